package storecore

import "sync"

// OutboxSignal tells listeners in the store's own process that a transaction which queued
// replication operations has committed (annals.OutboxNotifier), so a push worker wakes at once
// instead of at its next poll. A store marks a transaction when it queues operations in it
// (Queued) and reports how the transaction ended (Ended); only a commit of a marked transaction
// signals. The signal is coalesced: each listener's channel holds one pending wake, and a writer
// never waits for a listener. The zero value is ready to use.
type OutboxSignal struct {
	mu        sync.Mutex
	queued    map[any]struct{}
	listeners map[chan struct{}]struct{}
}

// Queued marks tx (the store's transaction value) as having queued operations.
func (s *OutboxSignal) Queued(tx any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queued == nil {
		s.queued = map[any]struct{}{}
	}
	s.queued[tx] = struct{}{}
}

// Ended forgets tx and, when it committed after queuing operations, wakes every listener.
func (s *OutboxSignal) Ended(tx any, committed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.queued[tx]; !ok {
		return
	}
	delete(s.queued, tx)
	if !committed {
		return
	}
	for c := range s.listeners {
		select {
		case c <- struct{}{}:
		default: // a wake is already pending
		}
	}
}

// Listen returns a channel that receives after commits that queued operations, and the
// function that stops listening.
func (s *OutboxSignal) Listen() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	s.mu.Lock()
	if s.listeners == nil {
		s.listeners = map[chan struct{}]struct{}{}
	}
	s.listeners[c] = struct{}{}
	s.mu.Unlock()
	return c, func() {
		s.mu.Lock()
		delete(s.listeners, c)
		s.mu.Unlock()
	}
}
