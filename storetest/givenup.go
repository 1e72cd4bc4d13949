package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// RunGivenUpRunRecordedAgain runs the rule that a run given up by `retry --drop` is given up
// only until the run is recorded again (docs/REPLICATION.md, "Dropping a refused operation"): a
// later operation of the run, queued after the drop, removes the run's mark in its own
// transaction, and a drop whose later queued operations record the same run leaves no mark (the
// later one carries the run to the remote; a repair must not withhold it).
func RunGivenUpRunRecordedAgain(t *testing.T, open func(tb testing.TB) DropStore) {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	mustOutboxOn(t, s)
	mustCreateChat(t, s, NewChat("g", "t1"))
	mustRecordRun(t, s, NewRun("g-r1", "g", annals.StatusRunning, BaseTime))
	mustRecordRun(t, s, NewRun("g-r2", "g", annals.StatusRunning, BaseTime))
	ops := laneOps(t, s, "g") // chat, run r1, run r2
	if _, err := s.AckOps(ctx, []string{ops[0].ID}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DropOp(ctx, "g", ops[1].ID, ops[0].LaneSeq, ops[0].Digest); err != nil {
		t.Fatal(err)
	}
	marks, err := s.GivenUp(ctx, "g")
	if err != nil || len(marks) != 1 || marks[0].RunID != "g-r1" || !marks[0].Withholdable() {
		t.Fatalf("marks after dropping run g-r1 = %+v, %v; want its mark", marks, err)
	}
	mustRecordRun(t, s, NewRun("g-r2", "g", annals.StatusCompleted, BaseTime)) // another run: the mark stays
	if marks, _ := s.GivenUp(ctx, "g"); len(marks) != 1 {
		t.Fatalf("marks after another run was recorded = %+v; want g-r1's still", marks)
	}
	mustRecordRun(t, s, NewRun("g-r1", "g", annals.StatusCompleted, BaseTime))
	if marks, err := s.GivenUp(ctx, "g"); err != nil || len(marks) != 0 {
		t.Fatalf("marks after run g-r1 was recorded again = %+v, %v; want none (the new operation carries it)", marks, err)
	}

	// Given up while a later operation of the run waits behind it: no mark.
	mustRecordRun(t, s, NewRun("g-r3", "g", annals.StatusRunning, BaseTime))
	mustRecordRun(t, s, NewRun("g-r3", "g", annals.StatusCompleted, BaseTime))
	ops = laneOps(t, s, "g")
	var ack []string
	for _, op := range ops[:len(ops)-2] {
		ack = append(ack, op.ID)
	}
	if _, err := s.AckOps(ctx, ack, time.Time{}); err != nil {
		t.Fatal(err)
	}
	base, first := ops[len(ops)-3], ops[len(ops)-2]
	if _, err := s.DropOp(ctx, "g", first.ID, base.LaneSeq, base.Digest); err != nil {
		t.Fatal(err)
	}
	if marks, err := s.GivenUp(ctx, "g"); err != nil || len(marks) != 0 {
		t.Fatalf("marks after dropping run g-r3 with its later operation queued = %+v, %v; want none", marks, err)
	}
	if left := laneOps(t, s, "g"); len(left) != 1 || mustPayload(t, left[0]).Run.Status != annals.StatusCompleted {
		t.Fatalf("queued after the drop: %v; want the later run operation", opKinds(left))
	}
}
