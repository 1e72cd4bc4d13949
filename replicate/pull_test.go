package replicate

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/internal/pgtest"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// pullRemote is a real annals server on :0 that hosts push to and a laptop pulls from.
type pullRemote struct {
	url, key string
	store    annals.Store
	stop     func()
}

func sqlitePullRemote(t *testing.T) *pullRemote {
	db := openSQLite(t, filepath.Join(t.TempDir(), "remote.db"))
	svc := history.New(history.Config{Store: db, View: db})
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: svc, View: svc, Replica: svc, Keys: db})
	if err := srv.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &pullRemote{url: srv.URL(), key: newKey(t, db, annals.RoleOperator), store: db, stop: func() { srv.Close() }}
}

func pgPullRemote(t *testing.T) *pullRemote {
	s := startPGServer(t, pgtest.FreshSchema(t), "127.0.0.1:0")
	return &pullRemote{url: s.url(), key: newKey(t, s.db, annals.RoleOperator), store: s.db, stop: s.kill}
}

func TestPullSQLiteRemote(t *testing.T)     { testPull(t, sqlitePullRemote(t)) }
func TestPullPostgreSQLRemote(t *testing.T) { testPull(t, pgPullRemote(t)) }

// Two hosts push to a remote; a laptop pulls the tenant's collection into its mirror, in pages;
// a pull cut short resumes from the mirror's cursor (the mirror closed and opened again); a
// delete on a host removes the mirror's copy; a rename on host B of host A's chat reaches host
// A by the conflict rule and both hosts still verify at zero; another tenant's chats never
// appear; with the remote stopped the mirror still answers, and a pull names the remote.
func testPull(t *testing.T, r *pullRemote) {
	ctx := context.Background()
	a := newHost(t)
	writeChat(t, a, "a1", 3)
	writeChat(t, a, "shared", 2)
	writeChat(t, a, "gone", 1)
	// b holds the shared chat without having recorded its creation (it came from elsewhere).
	b := openSQLite(t, filepath.Join(t.TempDir(), "b.db"))
	if _, err := annals.CreateChat(ctx, b, storetest.NewChat("shared", "laptop")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	writeChat(t, b, "b1", 2)
	pa, pb := newPusher(a, r.url, r.key), newPusher(b, r.url, r.key)
	for _, p := range []*Pusher{pa, pb} {
		if _, err := p.PushOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := annals.CreateChat(ctx, r.store, storetest.NewChat("secret", "other")); err != nil {
		t.Fatal(err)
	}

	// A pull cut short after its first page, then resumed from the cursor in a reopened mirror.
	mirrorPath := filepath.Join(t.TempDir(), "mirror.db")
	m, err := sqlite.Open(ctx, mirrorPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cut, stop := context.WithCancel(ctx)
	first := NewPuller(PullConfig{Endpoint: r.url, Key: r.key, Mirror: m, Limit: 1})
	_, err = first.PullOnce(cut, func(*PullReport) { stop() })
	if !errors.Is(cut.Err(), context.Canceled) || err == nil {
		t.Fatalf("the pull cut after its first page: %v", err)
	}
	m.Close()
	m = openSQLite(t, mirrorPath)
	st, err := m.MirrorState(ctx)
	if err != nil || st == nil || st.Cursor == 0 {
		t.Fatalf("the mirror's state after the cut = %+v, %v; want the first page's cursor", st, err)
	}
	rep, err := NewPuller(PullConfig{Endpoint: r.url, Key: r.key, Mirror: m, Limit: 2}).PullOnce(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chats != 3 || rep.Pages != 2 || rep.TenantID != "team" {
		t.Fatalf("the resumed pull = %+v; want the 3 chats after the first, in 2 pages of team", rep)
	}
	for _, id := range []string{"a1", "shared", "gone", "b1"} {
		sameTranscript(t, mustHostOf(t, a, b, id), m, id)
	}
	mustNotHold(t, m, "secret")

	// A delete on host a; a rename and a pin on host b of a's chat, pushed; a rename of the
	// same chat on host a, not pushed yet; another tenant's new chat.
	if err := a.DeleteChat(ctx, refOf(t, a, "gone")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.UpdateChat(ctx, refOf(t, b, "shared"), annals.ChatUpdate{Title: ptr("b's title"), Pinned: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	stampB := stampOf(t, b, "shared")
	for _, p := range []*Pusher{pa, pb} {
		if _, err := p.PushOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.UpdateChat(ctx, refOf(t, a, "shared"), annals.ChatUpdate{Title: ptr("a's title")}); err != nil {
		t.Fatal(err)
	}
	want := "b's title" // the conflict rule's answer: the later stamp, then the greater host id
	if stampOf(t, a, "shared").After(stampB) {
		want = "a's title"
	}
	if _, err := annals.CreateChat(ctx, r.store, storetest.NewChat("secret-2", "other")); err != nil {
		t.Fatal(err)
	}
	rep, err = NewPuller(PullConfig{Endpoint: r.url, Key: r.key, Mirror: m, Host: a}).PullOnce(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deleted != 1 || rep.Curated != 1 {
		t.Fatalf("the second pull = %+v; want one tombstone and one of a's chats curated back", rep)
	}
	mustNotHold(t, m, "gone")
	mustNotHold(t, m, "secret-2")
	if c, _ := a.FindChatByID(ctx, "shared"); c.Title != want || !c.Pinned {
		t.Fatalf("host a's shared chat once pulled = title %q pinned %v; want %q (the rule) and b's pin", c.Title, c.Pinned, want)
	}
	if n := pendingOps(t, a); n != 1 {
		t.Fatalf("host a queues %d operations after taking b's curation back; want only its own rename", n)
	}
	if _, err := pa.PushOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := NewPuller(PullConfig{Endpoint: r.url, Key: r.key, Mirror: m, Host: a}).PullOnce(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for name, db := range map[string]annals.Store{"host a": a, "the mirror": m, "the remote": r.store} {
		c, err := db.FindChatByID(ctx, "shared")
		if err != nil || c.Title != want || !c.Pinned {
			t.Fatalf("the shared chat on %s = %+v, %v; want %q, pinned (b's)", name, c, err, want)
		}
	}
	mustVerifyZero(t, pa)
	mustVerifyZero(t, pb)

	// The remote stopped: the mirror answers alone; a pull names the remote.
	r.stop()
	sameTranscript(t, a, m, "a1")
	if _, err := NewPuller(PullConfig{Endpoint: r.url, Key: r.key, Mirror: m}).PullOnce(ctx, nil); annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Fatalf("a pull with the remote stopped: %v, want unavailable", err)
	}
	if _, err := annals.CreateChat(ctx, m, storetest.NewChat("mine", "team")); annals.ErrorCode(err) != annals.EFORBIDDEN {
		t.Fatalf("a write to the mirror: %v, want forbidden", err)
	}
}

func mustHostOf(t *testing.T, a, b *sqlite.DB, id string) *sqlite.DB {
	t.Helper()
	if _, err := a.FindChatByID(context.Background(), id); err == nil {
		return a
	}
	return b
}

func mustNotHold(t *testing.T, db annals.Store, id string) {
	t.Helper()
	if _, err := db.FindChatByID(context.Background(), id); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("the mirror holds %s (%v), want none", id, err)
	}
}

// Follow keeps following: a chat pushed after it started reaches the mirror without another
// command, and it ends when its context does.
func TestPullFollow(t *testing.T) {
	ctx := context.Background()
	r := sqlitePullRemote(t)
	host := newHost(t)
	m := openSQLite(t, filepath.Join(t.TempDir(), "mirror.db"))
	p := NewPuller(PullConfig{Endpoint: r.url, Key: r.key, Mirror: m, Poll: 10 * time.Millisecond})
	run, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Follow(run, nil) }()
	writeChat(t, host, "later", 2)
	if _, err := newPusher(host, r.url, r.key).PushOnce(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the chat pushed after the follow started to reach the mirror", func() bool {
		es, err := m.FindEntries(ctx, annals.EntryFilter{ChatID: "later"})
		return err == nil && len(es) == 2
	})
	stop()
	if err := <-done; err != nil {
		t.Fatalf("Follow ended with %v, want nil when its context ends", err)
	}
	sameTranscript(t, host, m, "later")
}
