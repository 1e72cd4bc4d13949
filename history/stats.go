package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// Counts is what the history holds across every tenant, as /metrics reports it.
type Counts struct {
	Chats int64
	// Entries is -1 when the store cannot count its entries cheaply.
	Entries int64
	// QueryEmbeddings is what the embeddings of queries spent at a provider since the process
	// started, per model: they serve no chat, so no chat's runs record them.
	QueryEmbeddings []QueryEmbeddingUsage
}

// Stats counts what the history holds across every tenant. Counting every tenant is an admin's
// operation: a transport reaches it only through the door (Caller.Stats), which refuses
// everyone else.
type Stats interface {
	CountAll(ctx context.Context) (*Counts, error)
}

// Counter is a store that counts its chats and entries cheaply (both stores keep counters).
type Counter interface {
	Counts(ctx context.Context) (chats, entries int64, err error)
}

var _ Stats = (*Service)(nil)

// CountAll counts the chats (and, from a Counter, the entries) of every tenant; see Stats.
func (s *Service) CountAll(ctx context.Context) (*Counts, error) {
	if c, ok := s.store.(Counter); ok {
		chats, entries, err := c.Counts(ctx)
		if err != nil {
			return nil, err
		}
		return &Counts{Chats: chats, Entries: entries, QueryEmbeddings: s.queries.snapshot()}, nil
	}
	_, total, err := s.store.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{AllTenants: true}, IncludeArchived: true, Limit: 1})
	if err != nil {
		return nil, err
	}
	return &Counts{Chats: int64(total), Entries: -1, QueryEmbeddings: s.queries.snapshot()}, nil
}
