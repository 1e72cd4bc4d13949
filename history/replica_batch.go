package history

import (
	"context"
	"errors"

	"github.com/annals-dev/annals"
)

// A request's run of capture operations (chat, append, truncate, run: they bind without reading
// the remote's chat) goes to a store that can (annals.ReplicaBatchStore) in one transaction: a
// backlog then pays one commit and one chat document refresh per request, not per operation.
// Each operation is still checked against the head the one before it leaves, bound by the
// guard as its own capture would be, and applied with the record of its id; an operation
// refused stops the request after the ones before it, as one by one.

// maxReplicaRun bounds the operations of one store transaction: each is applied from a
// savepoint, and PostgreSQL keeps the subtransactions of a transaction cheap to check up to 64.
const maxReplicaRun = 50

// captureRun is the run of capture operations ops starts with, of one host and at most
// maxReplicaRun, when its first operation comes right after its host's lane's head (anything
// else — a redelivery, a lane handed over, a gap — goes one by one); nil otherwise.
func captureRun(lanes *chatLanes, ops []*annals.ReplicationOp) []*annals.ReplicationOp {
	if ops[0].LaneSeq != lanes.of(ops[0].Host).Seq+1 {
		return nil
	}
	n := 0
	for n < len(ops) && n < maxReplicaRun && ops[n].Host == ops[0].Host {
		switch ops[n].Kind {
		case annals.OpChat, annals.OpAppend, annals.OpTruncate, annals.OpRun:
			n++
			continue
		}
		break
	}
	return ops[:n]
}

// applyRun checks, binds and applies a run of capture operations (captureRun) in one store
// transaction, and returns how many were applied, the lane's head after them, and why the
// next one was not (nil when the whole run was).
func (s *Service) applyRun(ctx context.Context, rs annals.ReplicaBatchStore, lanes *chatLanes, run []*annals.ReplicationOp) (int, *annals.ReplicaLane, error) {
	checked, captures, stop := s.checkRun(ctx, rs, lanes, run)
	guarded, err := s.guard(ctx, captures)
	if err != nil {
		var be *annals.BatchError
		if !errors.As(err, &be) {
			return 0, nil, err
		}
		// The guard refused one: the ones before it still go.
		stop, checked = remoteRefusal(run[be.Index].ChatID, be.Err), checked[:be.Index]
		if guarded, err = s.guard(ctx, captures[:be.Index]); err != nil {
			return 0, nil, err
		}
	}
	if len(checked) == 0 {
		return 0, nil, stop
	}
	scrubbed := s.capture.Scrub(guarded)
	chs := make([]*annals.ReplicaChange, len(checked))
	tenant := checked[0].head.TenantID
	for k, c := range checked {
		// As one by one: a change goes into its lane's tenant, which a chat's creation sets.
		ch := &annals.ReplicaChange{TenantID: tenant, Capture: scrubbed[k : k+1]}
		if chat := ch.Capture[0].Chat; chat != nil {
			ch.TenantID = chat.TenantID
		}
		tenant = ch.TenantID
		c.fill(ch, run[k])
		chs[k] = ch
	}
	results, err := rs.ApplyReplicas(ctx, chs)
	if err != nil {
		return 0, nil, remoteRefusal(run[0].ChatID, err)
	}
	n, head := 0, (*annals.ReplicaLane)(nil)
	for k, r := range results {
		switch {
		case r.Err != nil:
			return n, head, remoteRefusal(run[k].ChatID, r.Err)
		case r.Outcome == annals.ReplicaMoved:
			return n, head, errLaneMoved(run[k])
		}
		lanes.moved(checked[k].from, r.Lane)
		n, head = n+1, r.Lane
		if r.Outcome == annals.ReplicaDuplicate {
			return n, head, nil // the store stopped there: the rest goes again from the new head
		}
	}
	return n, head, stop
}

// checkRun checks each operation of run against the head the ones before it leave (checkOp,
// on a copy of lanes), and returns the ones that pass with their capture ops, and why the next
// one did not (nil when all passed).
func (s *Service) checkRun(ctx context.Context, rs annals.ReplicaStore, lanes *chatLanes, run []*annals.ReplicationOp) ([]*checkedOp, []annals.CaptureOp, error) {
	plan := lanes.clone()
	checked := make([]*checkedOp, 0, len(run))
	captures := make([]annals.CaptureOp, 0, len(run))
	for _, op := range run {
		c, err := s.checkOp(ctx, rs, plan, op)
		if err != nil {
			return checked, captures, err
		}
		capture, ok := captureOf(op, c.payload)
		if c.dup || !ok {
			break // not within a run: the next round takes it one by one
		}
		checked, captures = append(checked, c), append(captures, capture)
		plan.moved(c.from, &annals.ReplicaLane{ChatID: op.ChatID, TenantID: c.head.TenantID, Seq: op.LaneSeq,
			Digest: c.digest, Host: op.Host, Deleted: c.head.Deleted})
	}
	return checked, captures, nil
}

// clone is a copy of c that moves without moving c.
func (c *chatLanes) clone() *chatLanes {
	out := &chatLanes{chatID: c.chatID, byHost: make(map[string]*annals.ReplicaLane, len(c.byHost))}
	for h, l := range c.byHost {
		out.byHost[h] = l
	}
	return out
}
