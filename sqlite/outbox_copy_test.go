package sqlite_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

func openAt(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// A copy of the database file (beside the original: a backup restored, or carried to another
// machine) keeps the host id in its rows but not the place it was created in: CheckHost reports
// it, the changes made in the copy are queued under no host id, and taking a new id names them
// while the operations queued before the copy keep the id they share with the original.
func TestOutboxCopiedDatabaseDetected(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.db")
	db := openAt(t, orig)
	host, err := db.SetOutbox(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := annals.CreateChat(ctx, db, storetest.NewChat("c", "t1")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "copy.db")
	copyFile(t, orig, copied)

	db = openAt(t, orig)
	if check, err := db.CheckHost(ctx); err != nil || check.Moved {
		t.Fatalf("original after a copy was made: %+v, %v; want not moved", check, err)
	}
	cp := openAt(t, copied)
	check, err := cp.CheckHost(ctx)
	if err != nil || !check.Moved || check.Identity.ID != host.ID || !strings.Contains(check.Reason, "another copy of the database") {
		t.Fatalf("copy: %+v, %v; want moved, naming the copy", check, err)
	}
	if _, err := annals.AppendEntries(ctx, cp, "c", storetest.Entries("c", 1)); err != nil {
		t.Fatal(err)
	}
	ops, err := cp.PendingOps(ctx, annals.OutboxRead{ChatID: "c"})
	if err != nil || len(ops) != 2 {
		t.Fatalf("copy's ops: %d, %v", len(ops), err)
	}
	if ops[0].ID != annals.OpID(host.ID, ops[0].Seq) || ops[1].Host != "" || ops[1].ID != "" {
		t.Fatalf("copy's ops = %q, %q; want the copied op under the old id and the new one under none", ops[0].ID, ops[1].ID)
	}
	renewed, err := cp.NewHostID(ctx)
	if err != nil || renewed.ID == host.ID {
		t.Fatalf("NewHostID: %+v, %v", renewed, err)
	}
	if check, err := cp.CheckHost(ctx); err != nil || check.Moved {
		t.Fatalf("copy after NewHostID: %+v, %v; want not moved", check, err)
	}
	ops, _ = cp.PendingOps(ctx, annals.OutboxRead{ChatID: "c"})
	if ops[0].Host != host.ID || ops[1].Host != renewed.ID {
		t.Fatalf("after NewHostID, hosts = %q, %q; want %q then %q", ops[0].Host, ops[1].Host, host.ID, renewed.ID)
	}
}

// The same file seen from another machine (a disk moved, a home directory synced) is reported
// as created on another machine, naming both.
func TestOutboxOtherMachineDetected(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := db.SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	db.SetMachineForTest("0123456789abcdef", "laptop-2")
	check, err := db.CheckHost(ctx)
	if err != nil || !check.Moved || !strings.Contains(check.Reason, "created on another machine") || !strings.Contains(check.Reason, "laptop-2") {
		t.Fatalf("CheckHost from another machine = %+v, %v", check, err)
	}
}
