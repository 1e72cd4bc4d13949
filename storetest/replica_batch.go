package storetest

import (
	"context"
	"testing"

	annals "github.com/annals-dev/annals"
)

// RunReplicaBatch runs the suite of a store that applies several changes of a lane in one
// transaction (annals.ReplicaBatchStore): each as ApplyReplica would after the ones before it,
// searchable once the batch commits; a refused change stops the batch and leaves nothing of
// itself, while the ones before it stay applied with their ids and the head; a redelivered first
// change stops it unchanged. open returns a fresh, empty store.
func RunReplicaBatch(t *testing.T, open func(tb testing.TB) ReplicaStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s annals.ReplicaBatchStore)
	}{
		{"AppliesEachInOrder", testReplicaBatchInOrder},
		{"StopsAtTheFirstRefused", testReplicaBatchRefused},
		{"StopsAtARedelivery", testReplicaBatchDuplicate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := open(t).(annals.ReplicaBatchStore)
			if !ok {
				t.Skip("the store applies one change per transaction")
			}
			tc.fn(t, s)
		})
	}
}

// batch numbers changes as the lane's next ones, each chained to the one before.
func (l *replicaLane) batch(chs ...*annals.ReplicaChange) []*annals.ReplicaChange {
	at := *l
	for i, ch := range chs {
		at.next(ch, "op"+string(rune('a'+i)))
		at.seq, at.digest = ch.LaneSeq, ch.Digest
	}
	return chs
}

func applyBatch(t *testing.T, s annals.ReplicaBatchStore, chs []*annals.ReplicaChange, want int) []annals.ReplicaResult {
	t.Helper()
	got, err := s.ApplyReplicas(context.Background(), chs)
	if err != nil {
		t.Fatalf("ApplyReplicas: %v", err)
	}
	if len(got) != want {
		t.Fatalf("ApplyReplicas answered %d results, want %d: %+v", len(got), want, got)
	}
	return got
}

func testReplicaBatchInOrder(t *testing.T, s annals.ReplicaBatchStore) {
	st := s.(ReplicaStore)
	l := newReplicaLane("b")
	more := Entries("m", 2)
	more[0].Text = "zebra crossing"
	chs := l.batch(
		&annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("b", "t1")}}},
		replicaAppend("b", Entries("e", 3)...),
		&annals.ReplicaChange{Capture: []annals.CaptureOp{{Truncate: &annals.TruncateOp{ChatID: "b", Point: annals.TruncatePoint{EntryID: "e-3"}}}}},
		replicaAppend("b", more...),
		&annals.ReplicaChange{Capture: []annals.CaptureOp{{Run: NewRun("r1", "b", annals.StatusCompleted, BaseTime)}}},
	)
	for i, r := range applyBatch(t, s, chs, len(chs)) {
		if r.Err != nil || r.Outcome != annals.ReplicaApplied || r.Lane.Seq != chs[i].LaneSeq || r.Lane.Digest != chs[i].Digest {
			t.Fatalf("change %d: %+v, want applied at seq %d", i, r, chs[i].LaneSeq)
		}
	}
	wantTranscript(t, mustEntries(t, st, "b"), "e-1", "e-2", "m-1", "m-2")
	if runs := mustRuns(t, st, "b"); len(runs) != 1 {
		t.Errorf("runs = %d, want 1", len(runs))
	}
	if head := mustReplicaLane(t, st, "b"); head.Seq != 5 || head.Digest != chs[4].Digest {
		t.Errorf("head = %+v, want seq 5", head)
	}
	// The chat documents the batch refreshed once hold every entry it appended.
	if n := searchCount(t, st, tenant("t1"), annals.SearchChatsMode, "zebra"); n != 1 {
		t.Errorf("chats found by a word of the batch's last append = %d, want 1", n)
	}
}

func testReplicaBatchRefused(t *testing.T, s annals.ReplicaBatchStore) {
	ctx := context.Background()
	st := s.(ReplicaStore)
	l := newReplicaLane("r")
	first := Entries("e", 1)
	first[0].Text = "walrus"
	chs := l.batch(
		&annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("r", "t1")}}},
		replicaAppend("r", first...),
		&annals.ReplicaChange{Capture: []annals.CaptureOp{{Truncate: &annals.TruncateOp{ChatID: "r", Point: annals.TruncatePoint{EntryID: "absent"}}}}},
		replicaAppend("r", Entries("x", 1)...),
	)
	got := applyBatch(t, s, chs, 3)
	if got[0].Outcome != annals.ReplicaApplied || got[1].Outcome != annals.ReplicaApplied || annals.ErrorCode(got[2].Err) != annals.ENOTFOUND {
		t.Fatalf("results = %+v, want two applied and a not_found", got)
	}
	wantTranscript(t, mustEntries(t, st, "r"), "e-1")
	applied, err := st.ReplicaOpsApplied(ctx, []string{chs[0].OpID, chs[1].OpID, chs[2].OpID, chs[3].OpID})
	if err != nil || !applied[chs[0].OpID] || !applied[chs[1].OpID] || applied[chs[2].OpID] || applied[chs[3].OpID] {
		t.Errorf("ids recorded = %v, %v; want the first two only", applied, err)
	}
	if head := mustReplicaLane(t, st, "r"); head.Seq != 2 || head.Digest != chs[1].Digest {
		t.Errorf("head = %+v, want seq 2", head)
	}
	if n := searchCount(t, st, tenant("t1"), annals.SearchChatsMode, "walrus"); n != 1 {
		t.Errorf("chats found by a word the batch appended before the refused change = %d, want 1", n)
	}
	// A batch whose first change is refused changes nothing and says so.
	if got := applyBatch(t, s, chs[2:], 1); annals.ErrorCode(got[0].Err) != annals.ENOTFOUND {
		t.Errorf("results = %+v, want not_found", got)
	}
}

func testReplicaBatchDuplicate(t *testing.T, s annals.ReplicaBatchStore) {
	st := s.(ReplicaStore)
	l := newReplicaLane("d")
	chs := l.batch(
		&annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("d", "t1")}}},
		replicaAppend("d", Entries("e", 1)...),
	)
	applyBatch(t, s, chs[:1], 1)
	got := applyBatch(t, s, chs, 1)
	if got[0].Err != nil || got[0].Outcome != annals.ReplicaDuplicate {
		t.Fatalf("results = %+v, want a duplicate", got)
	}
	if es := mustEntries(t, st, "d"); len(es) != 0 {
		t.Errorf("entries = %d, want none: the batch stops at the redelivery", len(es))
	}
}
