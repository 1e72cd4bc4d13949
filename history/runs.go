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
	s.estimate(runs)
	return runs, nil
}

// pageRuns is the runs the entries belong to (GetParams.Runs), costs estimated as
// FindChatRuns does: read by id, so a page of a chat with many runs reads only its own.
func (s *Service) pageRuns(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) ([]*annals.Run, error) {
	var ids []string
	seen := map[string]bool{}
	for _, e := range entries {
		if e.RunID != "" && !seen[e.RunID] {
			seen[e.RunID] = true
			ids = append(ids, e.RunID)
		}
	}
	if len(ids) == 0 {
		return []*annals.Run{}, nil
	}
	runs, err := s.checkedRuns(ctx, chat, func() ([]*annals.Run, error) { return s.store.FindRunsByID(ctx, chat.ID, ids) })
	if err != nil {
		return nil, err
	}
	s.estimate(runs)
	return runs, nil
}

// estimate fills the estimated cost of each run that recorded tokens but no cost.
func (s *Service) estimate(runs []*annals.Run) {
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
}

// runsOf reads the runs of a chat as fetched.
func (s *Service) runsOf(ctx context.Context, chat *annals.Chat) ([]*annals.Run, error) {
	return s.checkedRuns(ctx, chat, func() ([]*annals.Run, error) { return s.store.FindRuns(ctx, chat.ID) })
}

// checkedRuns reads runs of a chat as fetched with read. Runs are read by chat id, so the chat
// is checked again afterwards: if it is still the same incarnation, the runs read before were
// its own (an incarnation never comes back); otherwise it was replaced in between, which is
// not found.
func (s *Service) checkedRuns(ctx context.Context, chat *annals.Chat, read func() ([]*annals.Run, error)) ([]*annals.Run, error) {
	runs, err := read()
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
