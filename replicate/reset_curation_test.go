package replicate

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

// A reset keeps the newer of the remote's and the host's curation, field by field, by the
// conflict rule (docs/REPLICATION.md): host a renames a chat, host b renames it later; the
// remote is restored from a backup that holds b's title but lost what a sent after it (an entry
// and a description). a's verify resets the lane from a's chat, whose title is the older one: the
// remote keeps b's title and takes a's description, and both hosts verify at zero.
func TestResetKeepsTheNewerCuration(t *testing.T) {
	ctx := context.Background()
	r := newFileRemote(t)
	a := newHost(t)
	writeChat(t, a, "shared", 3)
	pa := newPusher(a, r.url, r.key)
	mustPush(t, pa)
	older := "a's title, older"
	if _, err := a.UpdateChat(ctx, chatRef(t, a, "shared"), annals.ChatUpdate{Title: &older}); err != nil {
		t.Fatal(err)
	}
	mustPush(t, pa)
	stamps := remoteStamps(t, r, "shared")
	// b holds the chat without having recorded its creation (it came from elsewhere), and
	// renames it after a did, by its hybrid logical clock.
	b := openSQLite(t, filepath.Join(t.TempDir(), "b.db"))
	if _, err := annals.CreateChat(ctx, b, storetest.NewChat("shared", "laptop")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	for annals.HLCOf(time.Now()) <= stamps[annals.FieldTitle].HLC {
		time.Sleep(time.Millisecond)
	}
	newer := "b's title, newer"
	if _, err := b.UpdateChat(ctx, chatRef(t, b, "shared"), annals.ChatUpdate{Title: &newer}); err != nil {
		t.Fatal(err)
	}
	pb := newPusher(b, r.url, r.key)
	mustPush(t, pb)
	if c, err := r.db.FindChatByID(ctx, "shared"); err != nil || c.Title != newer {
		t.Fatalf("the remote's title after both renames: %+v, %v; want %q", c, err, newer)
	}
	backup := filepath.Join(t.TempDir(), "backup.db")
	r.backup(backup)

	pa = newPusher(a, r.url, r.key) // the remote came back on another port
	appendText(t, a, "shared", "after-backup", "written after the backup")
	desc := "a's description, after the backup"
	if _, err := a.UpdateChat(ctx, chatRef(t, a, "shared"), annals.ChatUpdate{Description: &desc}); err != nil {
		t.Fatal(err)
	}
	mustPush(t, pa)
	r.restore(backup)

	pa = newPusher(a, r.url, r.key)
	v, err := pa.Verify(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Repaired) != 1 || len(v.Differences) != 0 {
		t.Fatalf("verify on a: repaired %+v, left %+v; want the lane of shared reset", v.Repaired, v.Differences)
	}
	c, err := r.db.FindChatByID(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != newer || c.Description != desc || c.Totals.Entries != 4 {
		t.Errorf("the remote after a's reset: title %q, description %q, %d entries; want b's newer title, a's description and 4 entries",
			c.Title, c.Description, c.Totals.Entries)
	}
	if got := remoteStamps(t, r, "shared")[annals.FieldTitle]; got.HLC <= stamps[annals.FieldTitle].HLC {
		t.Errorf("the title's stamp after the reset = %+v; want b's, newer than a's %+v", got, stamps[annals.FieldTitle])
	}
	mustVerifyZero(t, pa)
	mustVerifyZero(t, newPusher(b, r.url, r.key))
}

// remoteStamps reads the remote's stamps of a chat's human layer.
func remoteStamps(t *testing.T, r *fileRemote, chatID string) map[string]annals.FieldStamp {
	t.Helper()
	raw, err := sql.Open("sqlite", r.path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT field, hlc, host_id FROM replica_fields WHERE chat_id = ?`, chatID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]annals.FieldStamp{}
	for rows.Next() {
		var f string
		var s annals.FieldStamp
		if err := rows.Scan(&f, &s.HLC, &s.Host); err != nil {
			t.Fatal(err)
		}
		out[f] = s
	}
	return out
}
