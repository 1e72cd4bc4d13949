package storetest

import (
	"context"
	"strconv"
	"sync"
	"testing"

	annals "github.com/annals-dev/annals"
)

// ReplicaStore is what the replica suite tests: a store that a replication remote runs on.
type ReplicaStore interface {
	Store
	annals.ReplicaStore
}

// RunReplica runs the remote-apply suite (annals.ReplicaStore, docs/REPLICATION.md): each
// change is applied with the record of its id in one transaction and moves the lane's head; a
// redelivered id changes nothing, even delivered many times at once; a change checked against
// a head the lane no longer has changes nothing; a change that fails leaves neither its rows nor
// its id nor the head; a tombstone stays on the lane. open returns a fresh, empty store.
func RunReplica(t *testing.T, open func(tb testing.TB) ReplicaStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s ReplicaStore)
	}{
		{"EachChangeMovesTheHead", testReplicaEachChange},
		{"DuplicateChangesNothing", testReplicaDuplicate},
		{"ConcurrentDeliveriesApplyOnce", testReplicaConcurrent},
		{"MovedHeadChangesNothing", testReplicaMoved},
		{"FailedChangeLeavesNothing", testReplicaFailed},
		{"TombstoneWithoutChat", testReplicaTombstone},
		{"AgentChange", testReplicaAgent},
		{"CurationFromSeveralHostsConverges", testReplicaCurationConverges},
		{"CurationWithoutClockByItsTime", testReplicaCurationWithoutClock},
		{"LaneHandedOverToANewHostID", testReplicaHandOver},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

// replicaLane is a lane being replayed into a store in a test: it numbers the changes, chains
// a digest over their labels and names their ids under one host.
type replicaLane struct {
	chatID string
	host   string
	seq    int64
	digest string
}

// next fills ch's place in the lane (without moving the lane: apply does, when it applied).
func (l *replicaLane) next(ch *annals.ReplicaChange, label string) *annals.ReplicaChange {
	ch.ChatID, ch.Host, ch.TenantID = l.chatID, l.host, "t1"
	ch.LaneSeq = l.seq + 1
	ch.OpID = annals.OpID(l.host, 100+ch.LaneSeq)
	ch.PrevDigest = l.digest
	ch.Digest = annals.LaneDigest(l.digest, l.chatID, ch.LaneSeq, annals.OpChat, []byte(label))
	return ch
}

func (l *replicaLane) apply(t *testing.T, s ReplicaStore, ch *annals.ReplicaChange, label string) *annals.ReplicaLane {
	t.Helper()
	l.next(ch, label)
	outcome, head, err := s.ApplyReplica(context.Background(), ch)
	if err != nil || outcome != annals.ReplicaApplied {
		t.Fatalf("ApplyReplica(%s, seq %d) = %v, %v; want applied", label, ch.LaneSeq, outcome, err)
	}
	if head.Seq != ch.LaneSeq || head.Digest != ch.Digest || head.Host != l.host || head.TenantID != "t1" {
		t.Fatalf("head after %s = %+v, want seq %d, its digest, host %s, tenant t1", label, head, ch.LaneSeq, l.host)
	}
	l.seq, l.digest = ch.LaneSeq, ch.Digest
	return head
}

func mustReplicaLane(t *testing.T, s ReplicaStore, chatID string) *annals.ReplicaLane {
	t.Helper()
	lanes, err := s.ReplicaLanes(context.Background(), []string{chatID, "never-replicated"})
	if err != nil {
		t.Fatalf("ReplicaLanes: %v", err)
	}
	var got *annals.ReplicaLane
	for _, l := range lanes {
		if l.ChatID != chatID {
			t.Fatalf("ReplicaLanes answers a lane never applied: %+v", l)
		}
		if got != nil {
			t.Fatalf("ReplicaLanes answers two lanes of %s (one host wrote it): %+v, %+v", chatID, got, l)
		}
		got = l
	}
	return got
}

func newReplicaLane(chatID string) *replicaLane {
	// One host per lane in these tests: operation ids are unique per host.
	return &replicaLane{chatID: chatID, host: "host-" + chatID}
}

func replicaAppend(chatID string, entries ...*annals.Entry) *annals.ReplicaChange {
	return &annals.ReplicaChange{Capture: []annals.CaptureOp{{Append: &annals.AppendOp{ChatID: chatID, Entries: entries}}}}
}

func testReplicaEachChange(t *testing.T, s ReplicaStore) {
	ctx := context.Background()
	l := newReplicaLane("rc")
	c := NewChat("rc", "t1")
	c.CreatedAt = BaseTime
	l.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: c}}}, "chat")
	l.apply(t, s, replicaAppend("rc", Entries("e", 3)...), "append")
	l.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Truncate: &annals.TruncateOp{ChatID: "rc", Point: annals.TruncatePoint{EntryID: "e-3"}}}}}, "truncate")
	l.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Run: NewRun("r1", "rc", annals.StatusCompleted, BaseTime)}}}, "run")
	archivedAt := BaseTime.Add(42 * 60e9)
	ref := refOf(t, s, "rc")
	l.apply(t, s, &annals.ReplicaChange{Curate: &annals.ChatUpdate{Title: ptr("replicated"), Archived: ptr(true)}, Ref: &ref, At: archivedAt}, "curate")

	chat := mustChat(t, s, "rc")
	if !chat.CreatedAt.Equal(BaseTime) || chat.Title != "replicated" || chat.ArchivedAt == nil || !chat.ArchivedAt.Equal(archivedAt) {
		t.Errorf("chat = created %v, title %q, archived %s; want created at %v, the title, archived at the change's time %v",
			chat.CreatedAt, chat.Title, fmtTimePtr(chat.ArchivedAt), BaseTime, archivedAt)
	}
	wantTranscript(t, mustEntries(t, s, "rc"), "e-1", "e-2")
	if runs := mustRuns(t, s, "rc"); len(runs) != 1 {
		t.Errorf("runs = %d, want 1", len(runs))
	}
	ids := make([]string, 0, 6)
	for seq := int64(1); seq <= 5; seq++ {
		ids = append(ids, annals.OpID(l.host, 100+seq))
	}
	applied, err := s.ReplicaOpsApplied(ctx, append(ids, annals.OpID(l.host, 999)))
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 5 || applied[annals.OpID(l.host, 999)] {
		t.Errorf("ReplicaOpsApplied = %v, want the five applied ids only", applied)
	}
	ref = refOf(t, s, "rc")
	head := l.apply(t, s, &annals.ReplicaChange{Tombstone: true, Ref: &ref}, "delete")
	if !head.Deleted {
		t.Errorf("head after a tombstone = %+v, want deleted", head)
	}
	if _, err := s.FindChatByID(ctx, "rc"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("the chat after its tombstone: %v, want not found", err)
	}
	if got := mustReplicaLane(t, s, "rc"); got == nil || got.Seq != 6 || !got.Deleted || got.Digest != l.digest {
		t.Errorf("ReplicaLanes = %+v, want seq 6, deleted, the last digest", got)
	}
}

func testReplicaDuplicate(t *testing.T, s ReplicaStore) {
	ctx := context.Background()
	l := newReplicaLane("dup")
	l.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("dup", "t1")}}}, "chat")
	again := l.next(&annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("dup", "t1")}}}, "chat")
	again.OpID, again.LaneSeq, again.PrevDigest = annals.OpID(l.host, 101), 1, ""
	outcome, head, err := s.ApplyReplica(ctx, again)
	if err != nil || outcome != annals.ReplicaDuplicate || head.Seq != 1 {
		t.Fatalf("the same id again = %v, %+v, %v; want a duplicate at seq 1", outcome, head, err)
	}
	l.apply(t, s, replicaAppend("dup", Entries("e", 2)...), "append")
	dup := replicaAppend("dup", Entries("x", 2)...)
	dup.OpID, dup.ChatID, dup.LaneSeq, dup.PrevDigest, dup.Digest = annals.OpID(l.host, 102), "dup", 3, l.digest, "other"
	outcome, _, err = s.ApplyReplica(ctx, dup)
	if err != nil || outcome != annals.ReplicaDuplicate {
		t.Fatalf("an applied id with other content = %v, %v; want a duplicate (ids are applied once)", outcome, err)
	}
	wantTranscript(t, mustEntries(t, s, "dup"), "e-1", "e-2")
}

func testReplicaConcurrent(t *testing.T, s ReplicaStore) {
	l := newReplicaLane("many")
	l.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("many", "t1")}}}, "chat")
	const deliveries = 8
	outcomes := make([]annals.ReplicaOutcome, deliveries)
	var wg sync.WaitGroup
	for i := range deliveries {
		wg.Go(func() {
			ch := l.next(replicaAppend("many", Entries("e", 3)...), "append")
			var err error
			outcomes[i], _, err = s.ApplyReplica(context.Background(), ch)
			if err != nil {
				t.Errorf("delivery %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	applied := 0
	for _, o := range outcomes {
		if o == annals.ReplicaApplied {
			applied++
		} else if o != annals.ReplicaDuplicate {
			t.Errorf("a delivery answered %v, want applied or duplicate", o)
		}
	}
	if applied != 1 {
		t.Fatalf("%d deliveries of one id applied, want exactly 1 (outcomes %v)", applied, outcomes)
	}
	wantTranscript(t, mustEntries(t, s, "many"), "e-1", "e-2", "e-3")
	if head := mustReplicaLane(t, s, "many"); head.Seq != 2 {
		t.Errorf("head = %+v, want seq 2", head)
	}
}

func testReplicaMoved(t *testing.T, s ReplicaStore) {
	ctx := context.Background()
	l := newReplicaLane("mv")
	l.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("mv", "t1")}}}, "chat")
	for _, tc := range []struct {
		name    string
		seq     int64
		prev    string
		outcome annals.ReplicaOutcome
	}{
		{"a gap", 3, l.digest, annals.ReplicaMoved},
		{"another digest", 2, "not-the-head", annals.ReplicaMoved},
	} {
		ch := replicaAppend("mv", Entries("e", 1)...)
		ch.OpID, ch.ChatID, ch.Host, ch.LaneSeq, ch.PrevDigest, ch.Digest = annals.OpID(l.host, 500+tc.seq), "mv", l.host, tc.seq, tc.prev, "d"
		outcome, head, err := s.ApplyReplica(ctx, ch)
		if err != nil || outcome != tc.outcome || head == nil || head.Seq != 1 || head.Digest != l.digest {
			t.Errorf("%s: %v, %+v, %v; want moved, answering the head at seq 1", tc.name, outcome, head, err)
		}
		if got, _ := s.ReplicaOpsApplied(ctx, []string{ch.OpID}); got[ch.OpID] {
			t.Errorf("%s: the id was recorded", tc.name)
		}
	}
	if es := mustEntries(t, s, "mv"); len(es) != 0 {
		t.Errorf("moved changes appended %v", entryIDs(es))
	}
	if head := mustReplicaLane(t, s, "mv"); head.Seq != 1 {
		t.Errorf("head = %+v, want seq 1", head)
	}
}

func testReplicaFailed(t *testing.T, s ReplicaStore) {
	ctx := context.Background()
	l := newReplicaLane("f")
	l.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("f", "t1")}}}, "chat")
	ch := l.next(&annals.ReplicaChange{Capture: []annals.CaptureOp{{Truncate: &annals.TruncateOp{ChatID: "f", Point: annals.TruncatePoint{EntryID: "absent"}}}}}, "truncate")
	_, _, err := s.ApplyReplica(ctx, ch)
	if annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("truncating from an entry the chat lacks: %v, want not_found", err)
	}
	if got, _ := s.ReplicaOpsApplied(ctx, []string{ch.OpID}); got[ch.OpID] {
		t.Error("a failed change recorded its id")
	}
	if head := mustReplicaLane(t, s, "f"); head.Seq != 1 {
		t.Errorf("head after a failed change = %+v, want seq 1", head)
	}
	// The same place takes the next delivery.
	l.apply(t, s, replicaAppend("f", Entries("e", 1)...), "append")
	if _, _, err := s.ApplyReplica(ctx, l.next(&annals.ReplicaChange{}, "nothing")); annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("a change with nothing in it: %v, want invalid", err)
	}
}

func testReplicaTombstone(t *testing.T, s ReplicaStore) {
	l := newReplicaLane("gone")
	head := l.apply(t, s, &annals.ReplicaChange{Tombstone: true}, "delete")
	if !head.Deleted {
		t.Fatalf("head = %+v, want deleted", head)
	}
	for i := range 3 {
		id := "gone-" + strconv.Itoa(i)
		l2 := newReplicaLane(id)
		l2.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat(id, "t1")}}}, "chat")
	}
	if got := mustReplicaLane(t, s, "gone"); got == nil || !got.Deleted || got.Seq != 1 {
		t.Errorf("lane = %+v, want a tombstone at seq 1", got)
	}
}
