package replicate

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// digestTitle stores a digest with a generated title on the host's chat id, as the worker does.
func digestTitle(t *testing.T, host *sqlite.DB, id, title string) {
	t.Helper()
	ctx := context.Background()
	c, err := host.FindChatByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	now := storetest.BaseTime.Add(time.Hour)
	if ok, err := host.LeaseDigest(ctx, c.Ref(), "w", now, now.Add(time.Minute)); err != nil || !ok {
		t.Fatalf("lease: %v, %v", ok, err)
	}
	if _, err := host.StoreDigest(ctx, c.Ref(), annals.DigestWrite{Holder: "w", Revision: c.Revision, Summary: "s of " + id, Title: title, At: now}); err != nil {
		t.Fatal(err)
	}
}

func pushAll(t *testing.T, p *Pusher) {
	t.Helper()
	for range 20 {
		if _, err := p.PushOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		if pendingOps(t, p.cfg.Store) == 0 {
			return
		}
	}
	t.Fatal("the queue did not drain")
}

// TestGeneratedTitleReplicates: a digest's generated title reaches the remote marked generated,
// through the outbox and through a backfill of a chat digested before the outbox was on; a
// person's rename on the host then clears the mark on the remote too.
func TestGeneratedTitleReplicates(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	host := openSQLite(t, filepath.Join(t.TempDir(), "host.db"))
	writeChat(t, host, "before", 2)
	digestTitle(t, host, "before", "Digested before the outbox")
	if _, err := host.SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	writeChat(t, host, "after", 2)
	digestTitle(t, host, "after", "Digested with the outbox on")
	if _, err := Backfill(ctx, host, nil); err != nil {
		t.Fatal(err)
	}
	p := newPusher(host, r.url, r.key, func(c *Config) { c.MaxOps = 500 })
	pushAll(t, p)
	for id, title := range map[string]string{"before": "Digested before the outbox", "after": "Digested with the outbox on"} {
		got, err := r.db.FindChatByID(ctx, id)
		if err != nil || got.Title != title || !got.TitleGenerated {
			t.Fatalf("the remote's %s = %+v, %v; want title %q marked generated", id, got, err, title)
		}
	}
	c, _ := host.FindChatByID(ctx, "after")
	if _, err := host.UpdateChat(ctx, c.Ref(), annals.ChatUpdate{Title: ptr("Dana's title")}); err != nil {
		t.Fatal(err)
	}
	pushAll(t, p)
	if got, err := r.db.FindChatByID(ctx, "after"); err != nil || got.Title != "Dana's title" || got.TitleGenerated {
		t.Fatalf("after a rename, the remote's chat = %+v, %v; want the person's title, unmarked", got, err)
	}
}
