package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// A process that only reads (QueryOnly) must not wait for, or take, the write lock: a server
// holding a write transaction on the same file does not stall a CLI search (issue 33 item 5;
// the migration check of a read-write open took the write lock once per migration).
func TestQueryOnlyOpenTakesNoWriteLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	server, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if _, err := annals.CreateChat(ctx, server, storetest.NewChat("c1", "A")); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, server, "c1", storetest.Entries("e", 5)); err != nil {
		t.Fatal(err)
	}
	walBefore := fileSize(t, path+"-wal")
	mainBefore := fileSize(t, path)

	// Another process's write transaction, held open while the read-only command runs.
	holder, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK") //nolint:errcheck

	reader, err := sqlite.Open(ctx, path, sqlite.Options{QueryOnly: true, NoMemoryMap: true, BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatalf("a query-only open while another connection holds the write lock: %v", err)
	}
	if !reader.ReadOnly() {
		t.Error("a query-only open of a current database is not read-only")
	}
	if _, _, err := reader.SearchChats(ctx, annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{TenantID: "A"}}, Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if err := reader.Close(); err != nil {
		t.Fatal(err)
	}
	if w, m := fileSize(t, path+"-wal"), fileSize(t, path); w != walBefore || m != mainBefore {
		t.Errorf("a query-only handle changed the files: WAL %d -> %d bytes, main %d -> %d", walBefore, w, mainBefore, m)
	}
}

// A file an older annals wrote (here: an empty one, no schema yet) is upgraded once by a
// query-only open, then read read-only.
func TestQueryOnlyOpenUpgradesAnOldFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{QueryOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.ReadOnly() {
		t.Error("the upgraded database was not reopened read-only")
	}
	fresh, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "fresh.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	got, err := db.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := fresh.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || got == 0 {
		t.Errorf("schema version %d after a query-only open, want %d", got, want)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
