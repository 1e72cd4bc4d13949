package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// RunsResponse is the answer of Runs: a chat's runs, oldest first.
type RunsResponse struct {
	Runs []*annals.Run `json:"runs"`
}

// Runs returns the runs of a chat in scope, oldest first.
func (s *Service) Runs(ctx context.Context, req *Request) (*RunsResponse, error) {
	chat, _, err := s.fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	runs, err := s.runsOf(ctx, chat)
	if err != nil {
		return nil, err
	}
	return &RunsResponse{Runs: runs}, nil
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
