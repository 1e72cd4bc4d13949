package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// captureOps is a new chat with n entries, each with a source id, and a run every ten.
func captureOps(id string, n int) []annals.CaptureOp {
	ops := []annals.CaptureOp{{Chat: &annals.Chat{ID: id, TenantID: "local", Title: "session " + id}}}
	var entries []*annals.Entry
	for i := 0; i < n; i++ {
		entries = append(entries, &annals.Entry{ID: fmt.Sprintf("e%d", i), Kind: annals.KindUser, Text: fmt.Sprintf("otter %d sleeps", i), SourceIDs: []string{fmt.Sprintf("s%d", i)}})
	}
	ops = append(ops, annals.CaptureOp{Append: &annals.AppendOp{ChatID: id, Entries: entries}})
	for i := 0; i < n/10; i++ {
		ops = append(ops, annals.CaptureOp{Run: &annals.Run{ID: fmt.Sprintf("%s/r%d", id, i), ChatID: id, Status: annals.StatusCompleted}})
	}
	return ops
}

// TestCaptureRowStatementsIgnoreTheContextsWatch: a capture under a cancellable context (an
// import's, a request's) costs what it costs under one that cannot end. The driver watches a
// cancellable context per statement (a goroutine, a channel, a progress handler), and a capture
// runs a statement or more per entry: that watch was ~8% of an import's CPU (issue 33 item 7).
func TestCaptureRowStatementsIgnoreTheContextsWatch(t *testing.T) {
	db := openTestDB(t)
	const n = 200
	capture := func(ctx context.Context, id string) uint64 {
		t.Helper()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := db.Capture(ctx, captureOps(id, n))
		runtime.ReadMemStats(&after)
		if err != nil || res.EntriesAppended != n || res.RunsRecorded != n/10 {
			t.Fatalf("capture %s: %v %+v", id, err, res)
		}
		return after.Mallocs - before.Mallocs
	}
	capture(context.Background(), "warm") // the statements prepared
	plain := capture(context.Background(), "plain")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watched := capture(ctx, "watched")
	if watched > plain+2*n { // the transaction's own statements still watch it
		t.Errorf("a capture of %d entries allocated %d times under a cancellable context, %d under one that cannot end: the row statements watch it", n, watched, plain)
	}
}

// TestCaptureEndsWithItsContext: a capture whose context ends once its transaction has begun
// fails as cancelled (EUNAVAILABLE) and stores nothing, though its row statements do not watch
// the context. The store's clock, read as the capture's ops start, ends it.
func TestCaptureEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var armed atomic.Bool
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{Now: func() time.Time {
		if armed.Load() {
			cancel()
		}
		return time.Now()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	armed.Store(true)
	_, err = db.Capture(ctx, captureOps("c", 50))
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !errors.Is(err, context.Canceled) {
		t.Fatalf("capture whose context ended: %v, want EUNAVAILABLE wrapping context.Canceled", err)
	}
	chats, _, err := db.FindChats(context.Background(), annals.ChatFilter{Owner: annals.Owner{AllTenants: true}})
	if err != nil || len(chats) != 0 {
		t.Fatalf("chats after a cancelled capture: %v %d, want none", err, len(chats))
	}
}
