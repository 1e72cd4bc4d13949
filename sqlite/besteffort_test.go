package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/besteffort"
	"github.com/annals-dev/annals/sqlite"
)

// TestBestEffortCaptureSurvivesAnUnwritableDatabase makes the database unwritable mid-run
// (another process holds its write lock) under an embedder's best-effort capture: the agent's
// calls keep succeeding, capture turns off for the rest of the process, and the next process
// writes one "history unavailable" warning onto the chat and captures again.
func TestBestEffortCaptureSurvivesAnUnwritableDatabase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "annals.db")
	pending := filepath.Join(dir, "history-pending.json")
	open := func() *sqlite.DB {
		db, err := sqlite.Open(ctx, path, sqlite.Options{BusyTimeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	be := besteffort.New(besteffort.Config{Capture: db, PendingFile: pending})
	entry := func(id string) []*annals.Entry {
		return []*annals.Entry{{ID: id, Kind: annals.KindUser, Text: "turn " + id}}
	}
	if _, err := annals.CreateChat(ctx, be, &annals.Chat{ID: "c1", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, be, "c1", entry("e1")); err != nil {
		t.Fatal(err)
	}
	// A batch refused for what it is is dropped, and capture stays on.
	if _, err := annals.AppendEntries(ctx, be, "no-such-chat", entry("x")); err != nil || be.Disabled() {
		t.Fatalf("a refused batch: err %v, disabled %v; want nil and still enabled", err, be.Disabled())
	}

	// Another process takes the write lock and keeps it.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	lock, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, be, "c1", entry("e2")); err != nil {
		t.Fatalf("the agent's call failed with the store: %v", err)
	}
	if !be.Disabled() || annals.ErrorCode(be.Err()) != annals.EUNAVAILABLE {
		t.Fatalf("after the failure: disabled %v, err %v; want disabled and unavailable", be.Disabled(), be.Err())
	}
	if _, err := lock.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	lock.Close()
	// The store works again, but this process no longer captures.
	if _, err := annals.AppendEntries(ctx, be, "c1", entry("e3")); err != nil {
		t.Fatal(err)
	}
	if got := entryIDs(t, db, "c1"); strings.Join(got, ",") != "e1" {
		t.Errorf("entries after the failure = %v, want only e1 (capture is off for the process)", got)
	}
	if _, err := os.Stat(pending); err != nil {
		t.Fatalf("no pending warning was kept: %v", err)
	}
	db.Close()

	// The next process retries from scratch and leaves the warning on the chat.
	db = open()
	defer db.Close()
	next := besteffort.New(besteffort.Config{Capture: db, PendingFile: pending})
	if _, err := annals.AppendEntries(ctx, next, "c1", entry("e4")); err != nil || next.Disabled() {
		t.Fatalf("the next process: err %v, disabled %v", err, next.Disabled())
	}
	es, err := db.FindEntries(ctx, annals.EntryFilter{ChatID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	var warnings int
	for _, e := range es {
		if e.Channel == besteffort.UnavailableChannel && e.Kind == annals.KindSystem && strings.Contains(e.Text, "history unavailable") {
			warnings++
		}
	}
	if len(es) != 3 || warnings != 1 {
		t.Errorf("entries of c1 = %v with %d warnings; want e1, e4 and one warning", entryIDs(t, db, "c1"), warnings)
	}
	if _, err := os.Stat(pending); !os.IsNotExist(err) {
		t.Errorf("the pending file is still there after the warning was written: %v", err)
	}
	// A third process has nothing left to warn about.
	again := besteffort.New(besteffort.Config{Capture: db, PendingFile: pending})
	if _, err := annals.AppendEntries(ctx, again, "c1", entry("e5")); err != nil {
		t.Fatal(err)
	}
	if n := len(entryIDs(t, db, "c1")); n != 4 {
		t.Errorf("c1 holds %d entries, want 4 (one warning only)", n)
	}
}

func entryIDs(t *testing.T, db *sqlite.DB, chatID string) []string {
	t.Helper()
	es, err := db.FindEntries(context.Background(), annals.EntryFilter{ChatID: chatID})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}
