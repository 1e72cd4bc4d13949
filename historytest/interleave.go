package historytest

import (
	"context"
	"sync"

	"github.com/annals-dev/annals"
)

// interleavingStore is a real store with one seam: after FindChatByID of an id returns, it runs
// the function registered for that id (once), before the caller goes on. That is exactly the
// window of a check-then-write: the service has fetched and checked the chat, and is about to
// write. Registering "delete the chat and create it again for another tenant" there forces the
// race that otherwise needs thousands of tries and luck.
type interleavingStore struct {
	annals.Store
	mu    sync.Mutex
	after map[string]func()
}

func newInterleavingStore(s annals.Store) *interleavingStore {
	return &interleavingStore{Store: s, after: map[string]func(){}}
}

// afterFind registers fn to run once, right after the next fetch of id.
func (s *interleavingStore) afterFind(id string, fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.after[id] = fn
}

// FindChatByID fetches, then runs the registered interleaving, if any.
func (s *interleavingStore) FindChatByID(ctx context.Context, id string) (*annals.Chat, error) {
	c, err := s.Store.FindChatByID(ctx, id)
	s.mu.Lock()
	fn := s.after[id]
	delete(s.after, id)
	s.mu.Unlock()
	if fn != nil {
		fn()
	}
	return c, err
}
