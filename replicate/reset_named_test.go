package replicate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// Another database writes a chat this host's lane holds — a copy of the host database that took
// a new host id, both appending to one chat: verify does not repair it on its own (resetting
// would throw the other database's writes away) and names both choices with the command;
// verify --reset makes the remote take this host's copy, and both databases verify at zero.
func TestVerifyResetOfAChatAnotherDatabaseWrites(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	dir := t.TempDir()
	origPath := filepath.Join(dir, "orig.db")
	first, err := sqlite.Open(ctx, origPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	writeChat(t, first, "shared", 2)
	mustVerifyZero(t, newPusher(first, r.url, r.key))
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "copy.db")
	copyFile(t, origPath, copyPath)
	orig, cp := openSQLite(t, origPath), openSQLite(t, copyPath)
	if _, err := cp.NewHostID(ctx); err != nil {
		t.Fatal(err)
	}
	po, pc := newPusher(orig, r.url, r.key), newPusher(cp, r.url, r.key)
	if _, err := annals.AppendEntries(ctx, orig, "shared", storetest.Entries("orig", 1)); err != nil {
		t.Fatal(err)
	}
	mustPush(t, po)
	if _, err := annals.AppendEntries(ctx, cp, "shared", storetest.Entries("copy", 2)); err != nil {
		t.Fatal(err)
	}

	v, err := pc.Verify(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	d := differences(t, v)["shared"]
	if d == nil || d.Repairable || len(v.Repaired) != 0 || !strings.Contains(d.Fix, "annals replicate verify --reset shared") || !strings.Contains(d.Fix, "keep the remote's copy") {
		t.Fatalf("verify on the copy: %+v (shared: %+v); want the lane left for a person, with both choices and the command", v, d)
	}
	v, err = pc.VerifyReset(ctx, []string{"shared"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Repaired) != 1 || len(v.Differences) != 0 {
		t.Fatalf("verify --reset shared: repaired %+v, left %+v", v.Repaired, v.Differences)
	}
	sameTranscript(t, cp, r.db, "shared")
	if q, _ := cp.Quarantined(ctx); len(q) != 0 {
		t.Errorf("quarantined lanes on the copy after the reset: %+v", q)
	}
	mustVerifyZero(t, pc)
	mustVerifyZero(t, po)
}
