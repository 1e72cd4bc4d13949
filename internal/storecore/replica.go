package storecore

import (
	"errors"
	"sort"
	"time"

	"github.com/annals-dev/annals"
)

// ReplicaTx is what ApplyReplica needs of a store inside its write transaction.
type ReplicaTx interface {
	// LockLane returns the record of the chat's lane of host (a zero lane, Seq 0, when there is
	// none), holding it against every other delivery until the transaction ends, a new lane
	// included.
	LockLane(chatID, host string) (*annals.ReplicaLane, error)
	// OpApplied reports whether the operation id was recorded.
	OpApplied(opID string) (bool, error)
	// RecordOp records the operation id as applied.
	RecordOp(ch *annals.ReplicaChange, at time.Time) error
	// SetLane stores the lane's record (by chat and host).
	SetLane(l *annals.ReplicaLane) error
	// DropLane removes the record of the chat's lane of host (handed over to another host).
	DropLane(chatID, host string) error
	// FieldStamps returns the stamp of each field of the chat's human layer that a stamped
	// curation set; FieldStamps stores the stamp of the named fields.
	FieldStamps(chatID string) (map[string]annals.FieldStamp, error)
	SetFieldStamps(chatID string, fields []string, s annals.FieldStamp) error
	// FindChat reads the chat as it is in the transaction (not_found: none).
	FindChat(chatID string) (*annals.Chat, error)
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

// ApplyReplica applies one replicated change through tx (annals.ReplicaStore): the lane locked
// (and the lane it continues, when it is handed over), a recorded operation id answered as a
// duplicate, a head other than the one the change was checked against answered as moved, else
// the change applied, its id recorded and the lane's head moved, all in the caller's
// transaction. On an outcome other than ReplicaApplied the caller rolls back
// (ErrReplicaUnchanged).
func ApplyReplica(tx ReplicaTx, ch *annals.ReplicaChange, now time.Time) (annals.ReplicaOutcome, *annals.ReplicaLane, error) {
	lane, err := tx.LockLane(ch.ChatID, ch.Host)
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
	want := ch.LaneSeq - 1
	if ch.Reset {
		want = ch.FromSeq
	}
	if ch.From != "" && ch.From != ch.Host && lane.Seq == 0 {
		from, err := tx.LockLane(ch.ChatID, ch.From)
		if err != nil {
			return 0, nil, err
		}
		if from.Seq != want || from.Digest != ch.PrevDigest {
			return annals.ReplicaMoved, from, nil
		}
		if err := tx.DropLane(ch.ChatID, ch.From); err != nil {
			return 0, nil, err
		}
		lane = from
	} else if lane.Seq != want || lane.Digest != ch.PrevDigest {
		return annals.ReplicaMoved, lane, nil
	}
	var won map[string]annals.FieldStamp
	if ch.Reset && !ch.Tombstone {
		if won, err = resetHumanLayer(tx, ch); err != nil {
			return 0, nil, err
		}
	}
	if ch.Reset && !ch.Tombstone && ch.Ref != nil {
		if err := tx.Delete(*ch.Ref); err != nil { // the copy the reset replaces
			return 0, nil, err
		}
	}
	if err := applyReplicaChange(tx, ch); err != nil {
		return 0, nil, err
	}
	for _, f := range sortedFields(won) {
		if err := tx.SetFieldStamps(ch.ChatID, []string{f}, won[f]); err != nil {
			return 0, nil, err
		}
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

// resetHumanLayer merges, into the chat a reset creates, the human layer of the copy it
// replaces by the conflict rule (annals.MergeHumanLayer): a field the remote holds with a newer
// stamp keeps the remote's value, so a reset never puts back an older curation over a newer
// one from another host. It returns the host's stamps of the fields whose values won.
func resetHumanLayer(tx ReplicaTx, ch *annals.ReplicaChange) (map[string]annals.FieldStamp, error) {
	if len(ch.Capture) == 0 || ch.Capture[0].Chat == nil {
		return nil, nil
	}
	var held *annals.Chat
	var have map[string]annals.FieldStamp
	if ch.Ref != nil {
		var err error
		if held, err = tx.FindChat(ch.ChatID); annals.ErrorCode(err) == annals.ENOTFOUND {
			held, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
		if have, err = tx.FieldStamps(ch.ChatID); err != nil {
			return nil, err
		}
	}
	chat := *ch.Capture[0].Chat
	won := annals.MergeHumanLayer(&chat, ch.ResetStamps, held, have)
	ch.Capture[0].Chat = &chat
	return won, nil
}

// sortedFields are the names of m in a fixed order.
func sortedFields(m map[string]annals.FieldStamp) []string {
	names := make([]string, 0, len(m))
	for f := range m {
		names = append(names, f)
	}
	sort.Strings(names)
	return names
}

// applyReplicaChange applies the change itself: a capture, a curation of the fields it is
// after, or a tombstone.
func applyReplicaChange(tx ReplicaTx, ch *annals.ReplicaChange) error {
	switch {
	case len(ch.Capture) > 0:
		return tx.Capture(ch.Capture)
	case ch.Agent != "" && ch.Ref != nil:
		return tx.AdoptAgent(*ch.Ref, ch.Agent)
	case ch.Curate != nil && ch.Ref != nil:
		return applyCuration(tx, ch)
	case ch.Tombstone && ch.Ref != nil:
		return tx.Delete(*ch.Ref)
	case ch.Tombstone:
		// The remote never held the chat: the tombstone alone keeps it deleted.
		return nil
	}
	return annals.Errorf(annals.EINVALID, "replicated operation %s carries no change", ch.OpID)
}

// applyCuration sets the fields of a curation whose stamps are after the ones the fields have
// (the conflict rule, annals.NewerFields). An archive that wins is stamped with its own time
// even over an earlier archive, so archived_at is the winner's on every replica.
func applyCuration(tx ReplicaTx, ch *annals.ReplicaChange) error {
	have, err := tx.FieldStamps(ch.ChatID)
	if err != nil {
		return err
	}
	upd, fields := annals.NewerFields(*ch.Curate, ch.Stamp, have)
	if len(fields) == 0 {
		return nil
	}
	if upd.Archived != nil && *upd.Archived {
		restore := false
		if err := tx.Update(*ch.Ref, annals.ChatUpdate{Archived: &restore}, ch.At); err != nil {
			return err
		}
	}
	if err := tx.Update(*ch.Ref, upd, ch.At); err != nil {
		return err
	}
	return tx.SetFieldStamps(ch.ChatID, fields, ch.Stamp)
}

// ReplicaBatchTx is a ReplicaTx that marks a point of its transaction and goes back to it.
type ReplicaBatchTx interface {
	ReplicaTx
	// Savepoint marks the transaction's state; RollbackToSavepoint undoes what followed the
	// last mark.
	Savepoint() error
	RollbackToSavepoint() error
}

// ApplyReplicas applies chs through tx one after the other (annals.ReplicaBatchStore), each as
// ApplyReplica applies it and from a savepoint: it stops after the first change not applied (an
// outcome other than ReplicaApplied, or the change's own error), whose effects it rolls back.
// An error of the transaction itself (unavailable, internal, forbidden) is returned, and the
// caller rolls back everything.
func ApplyReplicas(tx ReplicaBatchTx, chs []*annals.ReplicaChange, now time.Time) ([]annals.ReplicaResult, error) {
	out := make([]annals.ReplicaResult, 0, len(chs))
	for _, ch := range chs {
		if err := ch.Validate(); err != nil {
			return append(out, annals.ReplicaResult{Err: err}), nil
		}
		if err := tx.Savepoint(); err != nil {
			return nil, err
		}
		outcome, lane, err := ApplyReplica(tx, ch, now)
		if err != nil && !changeRefused(err) {
			return nil, err
		}
		if err != nil || outcome != annals.ReplicaApplied {
			if err := tx.RollbackToSavepoint(); err != nil {
				return nil, err
			}
			return append(out, annals.ReplicaResult{Outcome: outcome, Lane: lane, Err: err}), nil
		}
		out = append(out, annals.ReplicaResult{Outcome: outcome, Lane: lane})
	}
	return out, nil
}

// changeRefused reports whether err is the change's own (it cannot be applied as it is), not a
// failure of the store that ends the transaction.
func changeRefused(err error) bool {
	switch annals.ErrorCode(err) {
	case annals.EINVALID, annals.ENOTFOUND, annals.ECONFLICT:
		return true
	}
	return false
}

// ReplicasApplied counts the changes of results that were applied.
func ReplicasApplied(results []annals.ReplicaResult) int {
	n := 0
	for _, r := range results {
		if r.Err == nil && r.Outcome == annals.ReplicaApplied {
			n++
		}
	}
	return n
}
