package ingest_test

import (
	"context"
	"slices"

	"github.com/annals-dev/annals"
)

// memStore is a small in-memory annals.CaptureStore with the contract's transactional
// behaviour: a Capture call applies all of its ops or none. It records every call, so tests can
// see how Ingest batched the input.
type memStore struct {
	chats   map[string]*annals.Chat
	entries map[string][]*annals.Entry
	runs    map[string]*annals.Run
	calls   [][]annals.CaptureOp
}

func newMemStore() *memStore {
	return &memStore{chats: map[string]*annals.Chat{}, entries: map[string][]*annals.Entry{}, runs: map[string]*annals.Run{}}
}

func (s *memStore) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	s.calls = append(s.calls, ops)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Snapshot the state so a failed op rolls the whole batch back.
	chats, runs := cloneMap(s.chats), cloneMap(s.runs)
	entries := make(map[string][]*annals.Entry, len(s.entries))
	for k, v := range s.entries {
		entries[k] = slices.Clone(v)
	}
	var res annals.CaptureResult
	for i, op := range ops {
		if err := s.apply(op, &res); err != nil {
			s.chats, s.runs, s.entries = chats, runs, entries
			return nil, &annals.BatchError{Index: i, Err: err}
		}
	}
	return &res, nil
}

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (s *memStore) apply(op annals.CaptureOp, res *annals.CaptureResult) error {
	if err := op.Validate(); err != nil {
		return err
	}
	switch {
	case op.Chat != nil:
		if old, ok := s.chats[op.Chat.ID]; ok {
			if !old.SameImmutable(op.Chat) {
				return annals.Errorf(annals.ECONFLICT, "chat %q exists with different immutable data", op.Chat.ID)
			}
			res.ChatsUnchanged++
			return nil
		}
		c := *op.Chat
		s.chats[c.ID] = &c
		res.ChatsCreated++
	case op.Append != nil:
		if s.chats[op.Append.ChatID] == nil {
			return annals.NotFound(op.Append.ChatID)
		}
		list := s.entries[op.Append.ChatID]
		for _, e := range op.Append.Entries {
			if slices.ContainsFunc(list, func(x *annals.Entry) bool { return x.ID == e.ID }) {
				res.EntriesSkipped++
				continue
			}
			ne := *e
			ne.ChatID = op.Append.ChatID
			ne.Seq = int64(len(list) + 1)
			list = append(list, &ne)
			res.EntriesAppended++
		}
		s.entries[op.Append.ChatID] = list
	case op.Truncate != nil:
		if s.chats[op.Truncate.ChatID] == nil {
			return annals.NotFound(op.Truncate.ChatID)
		}
		list := s.entries[op.Truncate.ChatID]
		p := op.Truncate.Point
		at := slices.IndexFunc(list, func(e *annals.Entry) bool {
			return (p.EntryID != "" && e.ID == p.EntryID) ||
				(p.SourceID != "" && slices.Contains(e.SourceIDs, p.SourceID)) ||
				(p.Seq != 0 && e.Seq == p.Seq)
		})
		if at < 0 {
			return annals.Errorf(annals.ENOTFOUND, "no entry at the truncation point in chat %q", op.Truncate.ChatID)
		}
		res.EntriesRemoved += len(list) - at
		s.entries[op.Truncate.ChatID] = list[:at:at]
	case op.Run != nil:
		if s.chats[op.Run.ChatID] == nil {
			return annals.NotFound(op.Run.ChatID)
		}
		if old, ok := s.runs[op.Run.ID]; ok && old.ChatID != op.Run.ChatID {
			return annals.Errorf(annals.ECONFLICT, "run %q belongs to another chat", op.Run.ID)
		}
		r := *op.Run
		s.runs[r.ID] = &r
		res.RunsRecorded++
	}
	return nil
}

// entryIDs returns a chat's entry ids in seq order.
func (s *memStore) entryIDs(chatID string) []string {
	var ids []string
	for _, e := range s.entries[chatID] {
		ids = append(ids, e.ID)
	}
	return ids
}
