package storecore

import (
	"errors"
	"time"

	"github.com/annals-dev/annals"
)

// ReplicaTx is what ApplyReplica needs of a store inside its write transaction.
type ReplicaTx interface {
	// LockLane returns the lane's record (a zero lane, Seq 0, when there is none), holding the
	// lane against every other delivery until the transaction ends, a new lane included.
	LockLane(chatID string) (*annals.ReplicaLane, error)
	// OpApplied reports whether the operation id was recorded.
	OpApplied(opID string) (bool, error)
	// RecordOp records the operation id as applied.
	RecordOp(ch *annals.ReplicaChange, at time.Time) error
	// SetLane stores the lane's record.
	SetLane(l *annals.ReplicaLane) error
	// Capture, Update and Delete apply the change through the store's own write paths.
	Capture(ops []annals.CaptureOp) error
	Update(ref annals.ChatRef, upd annals.ChatUpdate, at time.Time) error
	Delete(ref annals.ChatRef) error
	// AdoptAgent gives the chat ref names, which has no agent, its agent.
	AdoptAgent(ref annals.ChatRef, agent string) error
}

// ErrReplicaUnchanged is what a store's transaction function returns to roll back an
// ApplyReplica that changed nothing (a duplicate, or a lane that moved).
var ErrReplicaUnchanged = errors.New("replica change not applied")

// ApplyReplica applies one replicated change through tx (annals.ReplicaStore): the lane locked,
// a recorded operation id answered as a duplicate, a head other than the one the change was
// checked against answered as moved, else the change applied, its id recorded and the lane's
// head moved, all in the caller's transaction. On an outcome other than ReplicaApplied the
// caller rolls back (ErrReplicaUnchanged).
func ApplyReplica(tx ReplicaTx, ch *annals.ReplicaChange, now time.Time) (annals.ReplicaOutcome, *annals.ReplicaLane, error) {
	lane, err := tx.LockLane(ch.ChatID)
	if err != nil {
		return 0, nil, err
	}
	dup, err := tx.OpApplied(ch.OpID)
	if err != nil {
		return 0, nil, err
	}
	if dup {
		return annals.ReplicaDuplicate, lane, nil
	}
	from := ch.LaneSeq - 1
	if ch.Reset {
		from = ch.FromSeq
	}
	if lane.Seq != from || lane.Digest != ch.PrevDigest {
		return annals.ReplicaMoved, lane, nil
	}
	if ch.Reset && !ch.Tombstone && ch.Ref != nil {
		if err := tx.Delete(*ch.Ref); err != nil { // the copy the reset replaces
			return 0, nil, err
		}
	}
	switch {
	case len(ch.Capture) > 0:
		err = tx.Capture(ch.Capture)
	case ch.Agent != "" && ch.Ref != nil:
		err = tx.AdoptAgent(*ch.Ref, ch.Agent)
	case ch.Curate != nil && ch.Ref != nil:
		err = tx.Update(*ch.Ref, *ch.Curate, ch.At)
	case ch.Tombstone && ch.Ref != nil:
		err = tx.Delete(*ch.Ref)
	case ch.Tombstone:
		// The remote never held the chat: the tombstone alone keeps it deleted.
	default:
		return 0, nil, annals.Errorf(annals.EINVALID, "replicated operation %s carries no change", ch.OpID)
	}
	if err != nil {
		return 0, nil, err
	}
	if err := tx.RecordOp(ch, now); err != nil {
		return 0, nil, err
	}
	next := &annals.ReplicaLane{ChatID: ch.ChatID, TenantID: ch.TenantID, Seq: ch.LaneSeq, Digest: ch.Digest,
		Host: ch.Host, Deleted: lane.Deleted || ch.Tombstone, UpdatedAt: now.UTC()}
	if next.TenantID == "" {
		next.TenantID = lane.TenantID
	}
	if err := tx.SetLane(next); err != nil {
		return 0, nil, err
	}
	return annals.ReplicaApplied, next, nil
}
