package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/internal/cron"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/summarize"
)

// TestDigestScheduleRunsAfterItsTime drives the worker's schedule with a fixed clock: nothing
// before the schedule's first time after the start; at it, every chat changed since its digest;
// at the next one, only the chats active since the last run.
func TestDigestScheduleRunsAfterItsTime(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }
	add := func(id string, at time.Time) {
		t.Helper()
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "T", CreatedAt: day(1, 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, db, id, []*annals.Entry{{ID: at.String(), Kind: annals.KindUser, Text: "work on " + id, Time: at}}); err != nil {
			t.Fatal(err)
		}
	}
	add("a", day(1, 10))
	sched, err := cron.Parse("0 4 * * *")
	if err != nil {
		t.Fatal(err)
	}
	now := day(1, 12)
	w := &digestWorker{svc: history.New(history.Config{Store: db, Summarizer: summarize.Extractive{}}), ds: db, holder: "test",
		sched: sched, start: now, logger: slog.New(slog.NewTextHandler(io.Discard, nil)), now: func() time.Time { return now }}
	step := func(at time.Time, wantRan bool, wantDigested int) {
		t.Helper()
		now = at
		ran, p, err := w.scheduled(ctx)
		if err != nil || ran != wantRan || p.Digested != wantDigested {
			t.Fatalf("at %v: ran %v, %+v, %v; want ran %v, %d digested", at, ran, p, err, wantRan, wantDigested)
		}
	}
	step(day(1, 13), false, 0)
	step(day(2, 4), true, 1) // the first run: every chat changed since its digest
	if last, _ := db.DigestScheduleRun(ctx); !last.Equal(day(2, 4)) {
		t.Fatalf("last run recorded %v", last)
	}
	add("b", day(1, 11)) // active before the last run: not this schedule's
	if _, err := annals.AppendEntries(ctx, db, "a", []*annals.Entry{{ID: "later", Kind: annals.KindUser, Text: "more", Time: day(2, 5)}}); err != nil {
		t.Fatal(err)
	}
	step(day(2, 10), false, 0)
	step(day(3, 4), true, 1)
	if b, _ := db.FindChatByID(ctx, "b"); b.Summary != "" {
		t.Errorf("b, active before the last run, was refreshed: %q", b.Summary)
	}
	if a, _ := db.FindChatByID(ctx, "a"); a.Totals.Entries != 2 || a.Summary == "" {
		t.Errorf("a = %+v", a)
	}
}
