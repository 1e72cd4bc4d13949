package history

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/annals-dev/annals"
)

// errLeaseLost ends a digest's computation when its lease was taken by another worker: the
// digest could no longer be stored, so the provider call it waits on is not worth finishing.
var errLeaseLost = errors.New("the digest lease was taken by another worker")

// errChatGone ends a digest's computation when its chat was deleted (or replaced) meanwhile.
var errChatGone = errors.New("the chat was deleted while it was digested")

// leaseEnd is how a held lease ended.
type leaseEnd int

const (
	leaseKept  leaseEnd = iota // still the worker's when the digest was computed
	leaseTaken                 // another worker took it after it expired: the chat is that one's
	chatGone                   // the chat was deleted (or replaced): nothing left to digest
)

// holdLease keeps holder's lease of the chat ref names while a digest of it is computed: it
// renews the lease (to now + lease) every third of the lease, so a digest whose provider call
// outlives the lease is never taken over by a second worker while the first is still at work.
// The returned context ends when the lease is lost (another worker took it after it expired,
// or the chat is gone), cancelling the computation. stop stops renewing and waits for the
// renewer (so none outlives the digest: a crashed or stopped worker's lease expires as it was
// last renewed) and says how the lease ended.
func (s *Service) holdLease(ctx context.Context, ds annals.DigestStore, ref annals.ChatRef, holder string, lease time.Duration) (context.Context, func() leaseEnd) {
	ctx, cancel := context.WithCancelCause(ctx)
	var end atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(lease/3, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			ok, err := ds.RenewDigest(ctx, ref, holder, s.now().Add(lease))
			switch {
			case ctx.Err() != nil:
				return
			case err != nil && annals.ErrorCode(err) != annals.ENOTFOUND:
				// The store failing now and then: the lease is still ours until it expires,
				// so keep trying; if it expires meanwhile, the write finds it lost.
				s.log.Warn("renew digest lease", "chat", ref.ID, "err", annals.ErrorDetail(err))
			case err != nil:
				end.Store(int32(chatGone))
				cancel(errChatGone)
				return
			case !ok:
				end.Store(int32(leaseTaken))
				cancel(errLeaseLost)
				return
			}
		}
	}()
	return ctx, func() leaseEnd {
		cancel(nil)
		<-done
		return leaseEnd(end.Load())
	}
}
