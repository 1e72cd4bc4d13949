package storecore

import (
	"github.com/annals-dev/annals"
)

// DropTx is what DropOp needs of a store inside its write transaction.
type DropTx interface {
	// QueuedOps returns the lane's queued operations in lane order, holding the lane against
	// writers until the transaction ends.
	QueuedOps(chatID string) ([]*annals.ReplicationOp, error)
	// DeleteOp deletes one queued operation (by its local seq).
	DeleteOp(op *annals.ReplicationOp) error
	// UpdateOp stores a queued operation's new lane_seq, payload and digest (by its local seq).
	UpdateOp(op *annals.ReplicationOp) error
	// SetHead stores the lane's new last sequence and digest.
	SetHead(chatID string, seq int64, digest string) error
	// MarkGivenUp records the mark of the dropped operation, with the diagnostic of the lane's
	// quarantine when it has one, stamped with the store's time.
	MarkGivenUp(g *annals.GivenUpOp) error
}

// DropOp drops the refused operation opID, the oldest queued of its lane, and numbers the
// operations queued after it on from the remote's head (baseSeq, baseDigest), re-chaining their
// digests (a reset's prev_digest with them), so the lane follows the remote again without it
// (annals.OutboxDrop). It returns the operation dropped.
func DropOp(tx DropTx, chatID, opID string, baseSeq int64, baseDigest string) (*annals.ReplicationOp, error) {
	ops, err := tx.QueuedOps(chatID)
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 || ops[0].ID != opID {
		return nil, annals.Errorf(annals.ECONFLICT, "operation %s is not the oldest queued operation of lane %q (the lane changed: look at 'annals replicate status' again)", opID, chatID)
	}
	if ops[0].LaneSeq != baseSeq+1 {
		return nil, annals.Errorf(annals.ECONFLICT, "the remote's lane %q is at seq %d and operation %s is seq %d: dropping it would not join the lane to the remote's; run 'annals replicate verify'", chatID, baseSeq, opID, ops[0].LaneSeq)
	}
	if err := tx.DeleteOp(ops[0]); err != nil {
		return nil, err
	}
	if mark := GivenUpMark(ops[0]); !recordsRun(ops[1:], mark.RunID) {
		if err := tx.MarkGivenUp(mark); err != nil {
			return nil, err
		}
	}
	seq, prev := baseSeq, baseDigest
	for _, op := range ops[1:] {
		seq++
		if op.Kind == annals.OpReset {
			p, err := annals.DecodePayload(op.Payload)
			if err != nil {
				return nil, err
			}
			p.Reset.PrevDigest = prev
			if op.Payload, err = annals.EncodePayload(p); err != nil {
				return nil, err
			}
		}
		op.LaneSeq = seq
		op.Digest = annals.LaneDigest(prev, chatID, seq, op.Kind, op.Payload)
		prev = op.Digest
		if err := tx.UpdateOp(op); err != nil {
			return nil, err
		}
	}
	if err := tx.SetHead(chatID, seq, prev); err != nil {
		return nil, err
	}
	return ops[0], nil
}

// GivenUpMark is the mark a dropped operation leaves: its place and kind, and what a repair must
// withhold — the entries of an append, the run of a run (nothing, for a payload too damaged to
// read).
func GivenUpMark(op *annals.ReplicationOp) *annals.GivenUpOp {
	g := &annals.GivenUpOp{ChatID: op.ChatID, OpID: op.ID, LaneSeq: op.LaneSeq, Kind: op.Kind}
	p, err := annals.DecodePayload(op.Payload)
	if err != nil {
		return g
	}
	switch {
	case op.Kind == annals.OpAppend && p.Append != nil:
		for _, e := range p.Append.Entries {
			if e != nil && e.ID != "" {
				g.EntryIDs = append(g.EntryIDs, e.ID)
			}
		}
	case op.Kind == annals.OpRun && p.Run != nil:
		g.RunID = p.Run.ID
	}
	return g
}

// recordsRun reports whether one of ops records the run runID: a run given up while a later
// operation of it waits in the lane is not given up — that operation carries the run to the
// remote — so it leaves no mark (docs/REPLICATION.md, "Dropping a refused operation").
func recordsRun(ops []*annals.ReplicationOp, runID string) bool {
	if runID == "" {
		return false
	}
	for _, op := range ops {
		if op.Kind != annals.OpRun {
			continue
		}
		if p, err := annals.DecodePayload(op.Payload); err == nil && p.Run != nil && p.Run.ID == runID {
			return true
		}
	}
	return false
}
