package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// FindChatRuns returns the runs of a chat in scope, oldest first, a run that recorded tokens
// but no cost with its cost estimated from the pricing table (Run.EstimatedCostUSD).
func (s *Service) FindChatRuns(ctx context.Context, c annals.ChatSelector) ([]*annals.Run, error) {
	chat, _, err := s.fetch(ctx, OpGet, c)
	if err != nil {
		return nil, err
	}
	runs, err := s.runsOf(ctx, chat)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		// The usage report's test for a run whose cost is the table's business (storecore's
		// uncosted): no cost, some tokens.
		if r.CostUSD > 0 || (r.InputTokens <= 0 && r.OutputTokens <= 0) {
			continue
		}
		if rate, ok := s.rate(r.Model); ok {
			r.EstimatedCostUSD = rate.Cost(annals.RunTokens{In: r.InputTokens, Out: r.OutputTokens,
				Read: r.CacheReadTokens, Write: r.CacheCreationTokens})
		}
	}
	return runs, nil
}

// runsOf reads the runs of a chat as fetched. Runs are read by chat id, so the chat is checked
// again afterwards: if it is still the same incarnation, the runs read before were its own (an
// incarnation never comes back); otherwise it was replaced in between, which is not found.
func (s *Service) runsOf(ctx context.Context, chat *annals.Chat) ([]*annals.Run, error) {
	runs, err := s.store.FindRuns(ctx, chat.ID)
	if err != nil {
		return nil, err
	}
	now, err := s.store.FindChatByID(ctx, chat.ID)
	if annals.ErrorCode(err) == annals.ENOTFOUND || (err == nil && now.Ref() != chat.Ref()) {
		return nil, annals.NotFound(chat.ID)
	}
	if err != nil {
		return nil, err
	}
	if runs == nil {
		runs = []*annals.Run{}
	}
	return runs, nil
}
