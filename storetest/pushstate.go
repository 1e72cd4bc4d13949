package storetest

import (
	"context"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// RunPushState runs the push worker's state suite (annals.PushStateStore): a quarantine is kept
// with its diagnostic, replaced by a later one of the same lane, released once; the last push
// time is kept. open returns a fresh, empty store.
func RunPushState(t *testing.T, open func(tb testing.TB) annals.PushStateStore) {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	if qs, err := s.Quarantined(ctx); err != nil || len(qs) != 0 {
		t.Fatalf("a fresh store's quarantines = %v, %v; want none", qs, err)
	}
	if at, err := s.LastPush(ctx); err != nil || !at.IsZero() {
		t.Fatalf("a fresh store's last push = %v, %v; want zero", at, err)
	}
	first := &annals.LaneQuarantine{ChatID: "b", OpID: "h.1", Status: 409, Code: annals.ECONFLICT, Message: "first", At: BaseTime}
	later := &annals.LaneQuarantine{ChatID: "b", OpID: "h.2", Status: 400, Code: annals.EINVALID, Message: "later", At: BaseTime.Add(time.Minute)}
	other := &annals.LaneQuarantine{ChatID: "a", OpID: "h.3", Status: 413, Code: "too_large", Message: "big", At: BaseTime}
	for _, q := range []*annals.LaneQuarantine{first, later, other} {
		if err := s.QuarantineLane(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	qs, err := s.Quarantined(ctx)
	if err != nil || len(qs) != 2 || qs[0].ChatID != "a" || *qs[1] != *later {
		t.Fatalf("quarantines = %v, %v; want a, then b with the later diagnostic", qs, err)
	}
	if ok, err := s.ReleaseLane(ctx, "b"); err != nil || !ok {
		t.Fatalf("ReleaseLane(b) = %v, %v", ok, err)
	}
	if ok, err := s.ReleaseLane(ctx, "b"); err != nil || ok {
		t.Fatalf("ReleaseLane(b) again = %v, %v; want false", ok, err)
	}
	at := BaseTime.Add(time.Hour)
	if err := s.RecordPush(ctx, at); err != nil {
		t.Fatal(err)
	}
	if got, err := s.LastPush(ctx); err != nil || !got.Equal(at) {
		t.Fatalf("LastPush = %v, %v; want %v", got, err, at)
	}
}

// BackfillStore is what the backfill suite tests.
type BackfillStore interface {
	OutboxStore
	annals.OutboxBackfill
}

// RunBackfill runs the backfill suite (annals.OutboxBackfill): with the outbox off nothing is
// queued; a chat recorded before the outbox was on is queued whole as a new lane (its creation,
// its entries, its runs) once; a chat that has a lane is left; a snapshot that is no longer the
// chat is refused. open returns a fresh, empty store.
func RunBackfill(t *testing.T, open func(tb testing.TB) BackfillStore) {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	mustCreateChat(t, s, NewChat("old", "t1"))
	mustAppend(t, s, "old", Entries("e", 3)...)
	mustRecordRun(t, s, NewRun("r1", "old", annals.StatusCompleted, BaseTime))
	snap := func(id string) *annals.ChatSnapshot {
		return &annals.ChatSnapshot{Chat: mustChat(t, s, id), Entries: mustEntries(t, s, id), Runs: mustRuns(t, s, id)}
	}
	if _, err := s.QueueChat(ctx, snap("old")); annals.ErrorCode(err) != annals.EFORBIDDEN {
		t.Fatalf("QueueChat with the outbox off: %v, want forbidden", err)
	}
	mustOutboxOn(t, s)
	stale := snap("old")
	mustAppend(t, s, "old", Entries("late", 1)...) // recorded: the chat now has a lane
	if ok, err := s.QueueChat(ctx, stale); err != nil || ok {
		t.Fatalf("QueueChat of a chat with a lane = %v, %v; want false", ok, err)
	}
	if _, err := s.SetOutbox(ctx, false); err != nil {
		t.Fatal(err)
	}
	mustCreateChat(t, s, NewChat("quiet", "t1"))
	mustAppend(t, s, "quiet", Entries("q", 2)...)
	before := snap("quiet")
	mustAppend(t, s, "quiet", Entries("q2", 1)...)
	mustOutboxOn(t, s)
	if _, err := s.QueueChat(ctx, before); annals.ErrorCode(err) != annals.ECONFLICT {
		t.Fatalf("QueueChat of a snapshot the chat no longer is: %v, want conflict", err)
	}
	if ok, err := s.QueueChat(ctx, snap("quiet")); err != nil || !ok {
		t.Fatalf("QueueChat = %v, %v; want queued", ok, err)
	}
	ops := laneOps(t, s, "quiet")
	if got := opKinds(ops); !sameSeq(got, []string{"chat", "append"}) {
		t.Fatalf("queued ops = %v, want chat then append", got)
	}
	if p := mustPayload(t, ops[1]); len(p.Append.Entries) != 3 || p.Append.Entries[2].Seq != 3 {
		t.Fatalf("queued append = %d entries, want all 3 with their seqs", len(p.Append.Entries))
	}
	if ok, err := s.QueueChat(ctx, snap("quiet")); err != nil || ok {
		t.Fatalf("QueueChat again = %v, %v; want false", ok, err)
	}
}
