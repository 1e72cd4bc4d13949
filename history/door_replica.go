package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// Replica returns r bound to the caller: applying a host's operations writes, so it is refused
// here when the caller's mode does not write; both calls run as the caller's principal, and r
// decides which principals may replicate.
func (c *Caller) Replica(r Replica) Replica { return boundReplica{r: r, c: c} }

type boundReplica struct {
	r Replica
	c *Caller
}

func (b boundReplica) ApplyReplicated(ctx context.Context, req *annals.ReplicateRequest) (*annals.ReplicateResult, error) {
	if err := b.c.write("replicate", "replicate"); err != nil {
		return nil, err
	}
	return b.r.ApplyReplicated(b.c.as(ctx), req)
}

func (b boundReplica) ReplicaFeed(ctx context.Context, req *annals.ReplicaFeedRequest) (*annals.ReplicaFeed, error) {
	return b.r.ReplicaFeed(b.c.as(ctx), req)
}

func (b boundReplica) ReplicaHeads(ctx context.Context, req *annals.ReplicaHeadsRequest) (*annals.ReplicaHeads, error) {
	return b.r.ReplicaHeads(b.c.as(ctx), req)
}
