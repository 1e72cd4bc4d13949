package storetest

import (
	"context"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// RepairStore is what the lane repair suite tests: a host store that queues resets.
type RepairStore interface {
	OutboxStore
	annals.PushStateStore
	annals.OutboxRepair
}

// RunResetLane runs the host side of the lane repair (annals.OutboxRepair): a reset drops the
// lane's queue and quarantine and queues, after the lane's head and chained to it, a reset with
// the chat's creation and human layer, then its entries and runs; a snapshot the chat no longer
// is, or a chat with no lane, is refused; a chat deleted here is reset to its tombstone. open
// returns a fresh, empty store.
func RunResetLane(t *testing.T, open func(tb testing.TB) RepairStore) {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	mustOutboxOn(t, s)
	mustCreateChat(t, s, NewChat("r", "t1"))
	mustAppend(t, s, "r", Entries("e", 3)...)
	mustRecordRun(t, s, NewRun("run1", "r", annals.StatusCompleted, BaseTime))
	title := "kept"
	mustUpdate(t, s, "r", annals.ChatUpdate{Title: &title})
	before := mustLanes(t, s, false)[0]
	if err := s.QuarantineLane(ctx, &annals.LaneQuarantine{ChatID: "r", OpID: "h.1", Status: 409, Code: annals.ECONFLICT, At: BaseTime}); err != nil {
		t.Fatal(err)
	}
	snap := func(id string) *annals.ChatSnapshot {
		return &annals.ChatSnapshot{Chat: mustChat(t, s, id), Entries: mustEntries(t, s, id), Runs: mustRuns(t, s, id)}
	}
	stale := snap("r")
	mustAppend(t, s, "r", Entries("late", 1)...)
	if err := s.ResetLane(ctx, "r", stale); annals.ErrorCode(err) != annals.ECONFLICT {
		t.Fatalf("ResetLane with a snapshot the chat no longer is: %v, want conflict", err)
	}
	if err := s.ResetLane(ctx, "r", nil); annals.ErrorCode(err) != annals.ECONFLICT {
		t.Fatalf("ResetLane to a tombstone of a chat that exists: %v, want conflict", err)
	}
	if err := s.ResetLane(ctx, "no-lane", nil); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("ResetLane of a chat with no lane: %v, want not_found", err)
	}
	head := mustLanes(t, s, false)[0]
	if err := s.ResetLane(ctx, "r", snap("r")); err != nil {
		t.Fatal(err)
	}
	ops := laneOps(t, s, "r")
	if got := opKinds(ops); !sameSeq(got, []string{"reset", "append", "run"}) {
		t.Fatalf("queued after the reset = %v, want only reset, append, run", got)
	}
	reset := mustPayload(t, ops[0])
	if ops[0].LaneSeq != head.HeadSeq+1 || reset.Reset.PrevDigest != head.HeadDigest || reset.Reset.Chat == nil || reset.Reset.Chat.Title != title || reset.Reset.Deleted {
		t.Fatalf("reset op at seq %d with %+v; want seq %d chained to %s with the chat and its title", ops[0].LaneSeq, reset.Reset, head.HeadSeq+1, head.HeadDigest)
	}
	if ops[0].Digest != annals.LaneDigest(head.HeadDigest, "r", ops[0].LaneSeq, annals.OpReset, ops[0].Payload) || head.HeadSeq <= before.HeadSeq {
		t.Fatalf("the reset's digest does not chain to the lane's head")
	}
	if p := mustPayload(t, ops[1]); len(p.Append.Entries) != 4 {
		t.Fatalf("the reset's append holds %d entries, want all 4", len(p.Append.Entries))
	}
	if qs, err := s.Quarantined(ctx); err != nil || len(qs) != 0 {
		t.Fatalf("quarantines after the reset = %v, %v; want none", qs, err)
	}
	if err := s.DeleteChat(ctx, mustChat(t, s, "r").Ref()); err != nil {
		t.Fatal(err)
	}
	if err := s.ResetLane(ctx, "r", nil); err != nil {
		t.Fatal(err)
	}
	ops = laneOps(t, s, "r")
	if len(ops) != 1 || ops[0].Kind != annals.OpReset || !mustPayload(t, ops[0]).Reset.Deleted {
		t.Fatalf("queued after the reset of a deleted chat = %v, want one reset to the tombstone", opKinds(ops))
	}
}

// RunReplicaReset runs the remote side of the lane repair (annals.ReplicaChange.Reset): a reset
// checked against the lane's head wherever it is removes the copy the remote holds and creates
// the chat anew in one transaction with its id and the new head; a reset checked against a
// head the lane no longer has changes nothing; a reset to a tombstone deletes the copy and
// marks the lane. open returns a fresh, empty store.
func RunReplicaReset(t *testing.T, open func(tb testing.TB) ReplicaStore) {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	l := newReplicaLane("rs")
	l.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("rs", "t1")}}}, "chat")
	l.apply(t, s, replicaAppend("rs", Entries("old", 3)...), "append")
	ref := mustChat(t, s, "rs").Ref()
	fresh := NewChat("rs", "t1")
	fresh.Title = "from the host"
	reset := func(from int64, ref *annals.ChatRef, tomb bool) *annals.ReplicaChange {
		ch := &annals.ReplicaChange{Reset: true, FromSeq: from, Ref: ref, Tombstone: tomb}
		if !tomb {
			ch.Capture = []annals.CaptureOp{{Chat: fresh}}
		}
		l.next(ch, "reset")
		ch.LaneSeq = l.seq + 10 // the host's lane is further on: the remote lost operations
		ch.OpID = annals.OpID(l.host, 100+ch.LaneSeq)
		return ch
	}
	if outcome, _, err := s.ApplyReplica(ctx, reset(l.seq-1, &ref, false)); err != nil || outcome != annals.ReplicaMoved {
		t.Fatalf("a reset checked against an older head = %v, %v; want moved", outcome, err)
	}
	ch := reset(l.seq, &ref, false)
	outcome, head, err := s.ApplyReplica(ctx, ch)
	if err != nil || outcome != annals.ReplicaApplied || head.Seq != ch.LaneSeq || head.Digest != ch.Digest || head.Deleted {
		t.Fatalf("reset = %v, %+v, %v; want applied at seq %d", outcome, head, err, ch.LaneSeq)
	}
	l.seq, l.digest = ch.LaneSeq, ch.Digest
	if c := mustChat(t, s, "rs"); c.Title != "from the host" || c.Totals.Entries != 0 || c.Incarnation == ref.Incarnation {
		t.Fatalf("the chat after the reset: %+v; want the host's, anew, without the old entries", c)
	}
	if es := mustEntries(t, s, "rs"); len(es) != 0 {
		t.Fatalf("entries after the reset: %d, want none", len(es))
	}
	l.apply(t, s, replicaAppend("rs", Entries("new", 2)...), "append after the reset")
	ref = mustChat(t, s, "rs").Ref()
	ch = reset(l.seq, &ref, true)
	if outcome, head, err = s.ApplyReplica(ctx, ch); err != nil || outcome != annals.ReplicaApplied || !head.Deleted {
		t.Fatalf("reset to a tombstone = %v, %+v, %v; want applied, deleted", outcome, head, err)
	}
	if _, err := s.FindChatByID(ctx, "rs"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("the chat after a reset to its tombstone: %v, want not found", err)
	}
}

// DropStore is what the drop suite tests.
type DropStore interface {
	OutboxStore
	annals.OutboxDrop
	annals.OutboxGivenUp
}

// RunDropOp runs the drop of a refused operation (annals.OutboxDrop): only the lane's oldest
// queued operation, right after the remote's head, is dropped; the later ones are numbered on
// from that head with their digests chained to it, and the lane's head follows them.
func RunDropOp(t *testing.T, open func(tb testing.TB) DropStore) {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	mustOutboxOn(t, s)
	mustCreateChat(t, s, NewChat("d", "t1"))
	for i := range 4 {
		mustAppend(t, s, "d", Entries("e"+string(rune('a'+i)), 1)...)
	}
	ops := laneOps(t, s, "d") // chat, then 4 appends
	if _, err := s.AckOps(ctx, []string{ops[0].ID, ops[1].ID}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	base := ops[1]
	if _, err := s.DropOp(ctx, "d", ops[3].ID, base.LaneSeq, base.Digest); annals.ErrorCode(err) != annals.ECONFLICT {
		t.Fatalf("DropOp of an operation that is not the oldest queued: %v, want conflict", err)
	}
	if _, err := s.DropOp(ctx, "d", ops[2].ID, base.LaneSeq-1, base.Digest); annals.ErrorCode(err) != annals.ECONFLICT {
		t.Fatalf("DropOp after a head it does not follow: %v, want conflict", err)
	}
	dropped, err := s.DropOp(ctx, "d", ops[2].ID, base.LaneSeq, base.Digest)
	if err != nil || dropped.ID != ops[2].ID {
		t.Fatalf("DropOp = %+v, %v; want %s dropped", dropped, err, ops[2].ID)
	}
	mustGivenUp(t, s, ops[2])
	left := laneOps(t, s, "d")
	if len(left) != 2 || left[0].ID != ops[3].ID || left[1].ID != ops[4].ID {
		t.Fatalf("queued after the drop: %v; want the two later operations, same ids", opKinds(left))
	}
	prev := base.Digest
	for i, op := range left {
		if op.LaneSeq != base.LaneSeq+1+int64(i) || op.Digest != annals.LaneDigest(prev, "d", op.LaneSeq, op.Kind, op.Payload) {
			t.Fatalf("op %s at seq %d: not renumbered onto the head and re-chained", op.ID, op.LaneSeq)
		}
		prev = op.Digest
	}
	lane := mustLanes(t, s, false)[0]
	if lane.HeadSeq != left[1].LaneSeq || lane.HeadDigest != left[1].Digest {
		t.Fatalf("lane head after the drop = %d %s; want the last renumbered operation", lane.HeadSeq, lane.HeadDigest)
	}
	mustAppend(t, s, "d", Entries("after", 1)...)
	if ops := laneOps(t, s, "d"); ops[2].LaneSeq != lane.HeadSeq+1 {
		t.Fatalf("the next change after the drop is at seq %d, want %d", ops[2].LaneSeq, lane.HeadSeq+1)
	}
	if n, err := s.ForgetGivenUp(ctx, "d"); err != nil || n != 1 {
		t.Fatalf("ForgetGivenUp = %d, %v; want the one mark", n, err)
	}
	if g, err := s.GivenUp(ctx, ""); err != nil || len(g) != 0 {
		t.Fatalf("marks after ForgetGivenUp: %+v, %v", g, err)
	}
}

// mustGivenUp checks that the drop of op left its mark: place, kind, the entries it carried and
// the time.
func mustGivenUp(t *testing.T, s DropStore, op *annals.ReplicationOp) {
	t.Helper()
	p, err := annals.DecodePayload(op.Payload)
	if err != nil {
		t.Fatal(err)
	}
	marks, err := s.GivenUp(context.Background(), "")
	if err != nil || len(marks) != 1 {
		t.Fatalf("GivenUp = %+v, %v; want one mark", marks, err)
	}
	g := marks[0]
	if g.ChatID != op.ChatID || g.OpID != op.ID || g.LaneSeq != op.LaneSeq || g.Kind != op.Kind || g.DroppedAt.IsZero() ||
		len(g.EntryIDs) != len(p.Append.Entries) || g.EntryIDs[0] != p.Append.Entries[0].ID || !g.Withholdable() {
		t.Fatalf("mark %+v; want op %s (append of %s) given up", g, op.ID, p.Append.Entries[0].ID)
	}
	if other, err := s.GivenUp(context.Background(), "other"); err != nil || len(other) != 0 {
		t.Fatalf("GivenUp of another lane = %+v, %v", other, err)
	}
}
