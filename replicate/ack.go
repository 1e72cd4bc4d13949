package replicate

import (
	"context"
	"sync"
)

// ackGroup commits the acknowledgements of the lanes a pass pushes at once in shared
// transactions (group commit): a lane whose acknowledgement arrives while another is being
// committed waits for the next commit, which takes every acknowledgement waiting by then, with
// the time of the push, in one transaction (annals.Outbox.AckOps). On SQLite, where writes
// queue on one lock, this turns one write per lane into one per burst.
type ackGroup struct {
	mu      sync.Mutex
	busy    bool
	waiting []*ackRequest
}

type ackRequest struct {
	ids  []string
	n    int
	err  error
	done chan struct{}
}

// ack deletes ids from the outbox (the remote applied them) and records the push; it returns
// once they are committed, with how many of this request's operations were deleted.
func (p *Pusher) ack(ctx context.Context, ids []string) (int, error) {
	g := &p.acks
	r := &ackRequest{ids: ids, done: make(chan struct{})}
	g.mu.Lock()
	g.waiting = append(g.waiting, r)
	if g.busy {
		g.mu.Unlock()
		<-r.done
		return r.n, r.err
	}
	g.busy = true
	for len(g.waiting) > 0 {
		batch := g.waiting
		g.waiting = nil
		g.mu.Unlock()
		p.commitAcks(ctx, batch)
		g.mu.Lock()
	}
	g.busy = false
	g.mu.Unlock()
	return r.n, r.err
}

// commitAcks acknowledges a batch in one transaction. The store counts what it deleted over
// the batch; it is given to the requests in order (an id acknowledged twice counts once).
func (p *Pusher) commitAcks(ctx context.Context, batch []*ackRequest) {
	var ids []string
	for _, r := range batch {
		ids = append(ids, r.ids...)
	}
	n, err := p.cfg.Store.AckOps(ctx, ids, p.cfg.Now())
	for _, r := range batch {
		r.n = min(n, len(r.ids))
		n -= r.n
		r.err = err
		close(r.done)
	}
}
