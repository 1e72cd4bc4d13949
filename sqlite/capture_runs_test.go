package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// TestBatchedRunsGiveTheSameChatAsOneOpAtATime proves that recomputing a chat's run totals,
// status and last activity once per transaction (as Capture does) leaves exactly what
// recording the same ops one transaction each leaves: runs interleaved with entries, a run
// recorded twice (running, then ended), a later record that moves a run's start back, one that
// leaves its start out, and fractional costs whose float sum depends on the order of addition.
func TestBatchedRunsGiveTheSameChatAsOneOpAtATime(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	atp := func(min int) *time.Time { v := at(min); return &v }
	entry := func(id string, min int) *annals.Entry {
		return &annals.Entry{ID: id, Kind: annals.KindAssistant, Text: "step " + id, Time: at(min)}
	}
	ops := []annals.CaptureOp{
		{Chat: &annals.Chat{ID: "c1", TenantID: "t", CreatedAt: at(0)}},
		{Chat: &annals.Chat{ID: "c2", TenantID: "t", CreatedAt: at(1)}},
		{Run: &annals.Run{ID: "r1", ChatID: "c1", Status: annals.StatusRunning, StartedAt: at(5), InputTokens: 10, CostUSD: 0.1}},
		{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{entry("e1", 6), entry("e2", 7)}}},
		{Run: &annals.Run{ID: "r1", ChatID: "c1", Status: annals.StatusCompleted, EndedAt: atp(30), InputTokens: 12, OutputTokens: 4, CostUSD: 0.2}},
		{Run: &annals.Run{ID: "r2", ChatID: "c2", Status: annals.StatusRunning, StartedAt: at(40), CostUSD: 0.7}},
		{Run: &annals.Run{ID: "r3", ChatID: "c1", Status: annals.StatusRunning, StartedAt: at(50), CostUSD: 0.3}},
		{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{entry("e3", 20)}}},
		// r3's start moves back: the activity its first record carried must still count.
		{Run: &annals.Run{ID: "r3", ChatID: "c1", Status: annals.StatusFailed, StartedAt: at(45), EndedAt: atp(48), CostUSD: 0.3}},
		{Run: &annals.Run{ID: "r2", ChatID: "c2", Status: annals.StatusCancelled, InputTokens: 3}},
		{Append: &annals.AppendOp{ChatID: "c2", Entries: []*annals.Entry{entry("e1", 41)}}},
	}

	batched := MustOpenDB(t)
	if _, err := batched.Capture(ctx, ops); err != nil {
		t.Fatal(err)
	}
	oneByOne := MustOpenDB(t)
	for i, op := range ops {
		if _, err := oneByOne.Capture(ctx, []annals.CaptureOp{op}); err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
	}
	for _, id := range []string{"c1", "c2"} {
		got, err := batched.FindChatByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want, err := oneByOne.FindChatByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != want.Status || got.Totals != want.Totals || !got.LastActivity.Equal(want.LastActivity) {
			t.Errorf("chat %s batched: status %s, totals %+v, last activity %s; one op at a time: status %s, totals %+v, last activity %s",
				id, got.Status, got.Totals, got.LastActivity, want.Status, want.Totals, want.LastActivity)
		}
	}
	c1, _ := batched.FindChatByID(ctx, "c1")
	if c1.Status != annals.StatusFailed || c1.Totals.Runs != 2 || !c1.LastActivity.Equal(at(50)) {
		t.Errorf("c1: status %s, %d runs, last activity %s; want failed (the latest run), 2 runs, and %s (r3's first start)",
			c1.Status, c1.Totals.Runs, c1.LastActivity, at(50))
	}
}
