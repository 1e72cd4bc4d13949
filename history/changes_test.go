package history_test

import (
	"context"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// woke reports whether w holds a wake-up, taking it. Publishing happens before the write
// returns, so a wake-up caused by a finished write is already there: no waiting is needed.
func woke(w *history.Watch) bool {
	select {
	case <-w.Wake():
		return true
	default:
		return false
	}
}

func watchAs(t *testing.T, svc *history.Service, p *annals.Principal, chatID string) *history.Watch {
	t.Helper()
	w, err := svc.Watch(annals.NewContextWithPrincipal(context.Background(), p), chatID)
	if err != nil {
		t.Fatalf("watch %q as %s: %v", chatID, p.TenantID, err)
	}
	t.Cleanup(w.Close)
	return w
}

// The change feed wakes a watch only for chats its caller can read: another tenant's writes,
// and a colleague's chat outside a member's user scope, wake nothing; a chat's watch wakes for
// that chat only, and another tenant cannot watch it at all.
func TestWatchWakesOnlyForChatsInTheCallersScope(t *testing.T) {
	svc := history.New(history.Config{Store: openSQLite(t)})
	opA := &annals.Principal{TenantID: "A", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}}
	aliceA := &annals.Principal{TenantID: "A", UserID: "alice", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser}}
	opB := &annals.Principal{TenantID: "B", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}}
	admin := &annals.Principal{TenantID: "A", Role: annals.RoleAdmin, Scopes: annals.Scopes}
	ctxA := annals.NewContextWithPrincipal(context.Background(), opA)
	ctxB := annals.NewContextWithPrincipal(context.Background(), opB)
	now := time.Now().UTC()
	for _, c := range []struct {
		ctx  context.Context
		chat *annals.Chat
	}{{ctxA, &annals.Chat{ID: "a-bob", UserID: "bob", CreatedAt: now}}, {ctxA, &annals.Chat{ID: "a-alice", UserID: "alice", CreatedAt: now}}, {ctxB, &annals.Chat{ID: "b-1", CreatedAt: now}}} {
		if _, err := annals.CreateChat(c.ctx, svc, c.chat); err != nil {
			t.Fatal(err)
		}
	}
	allA, allB, alice, all := watchAs(t, svc, opA, ""), watchAs(t, svc, opB, ""), watchAs(t, svc, aliceA, ""), watchAs(t, svc, admin, "")
	oneA := watchAs(t, svc, opA, "a-alice")
	if _, err := svc.Watch(ctxB, "a-alice"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("tenant B watching tenant A's chat: %v, want not_found", err)
	}
	entry := func(id string) []*annals.Entry {
		return []*annals.Entry{{ID: id, Kind: annals.KindUser, Text: "hello", Time: now}}
	}
	if _, err := annals.AppendEntries(ctxA, svc, "a-bob", entry("e1")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"tenant A's operator": true, "the admin": true, "tenant B": false, "alice (bob's chat)": false, "the watch of a-alice": false} {
		w := map[string]*history.Watch{"tenant A's operator": allA, "the admin": all, "tenant B": allB, "alice (bob's chat)": alice, "the watch of a-alice": oneA}[name]
		if got := woke(w); got != want {
			t.Errorf("after a write to a-bob, %s woke: %v, want %v", name, got, want)
		}
	}
	if _, err := annals.AppendEntries(ctxA, svc, "a-alice", entry("e2")); err != nil {
		t.Fatal(err)
	}
	if !woke(alice) || !woke(oneA) || !woke(allA) || woke(allB) {
		t.Error("a write to a-alice woke the wrong watches")
	}
	woke(all)
	if _, err := annals.AppendEntries(ctxB, svc, "b-1", entry("e3")); err != nil {
		t.Fatal(err)
	}
	if !woke(allB) || !woke(all) || woke(allA) || woke(alice) || woke(oneA) {
		t.Error("a write of tenant B woke the wrong watches")
	}
}

// Curation, delete and the local import path wake a chat's watch too; several writes before it
// reads are one wake-up.
func TestWatchWakesOnEveryKindOfWrite(t *testing.T) {
	svc := history.New(history.Config{Store: openSQLite(t)})
	local := history.LocalOwner()
	ctx := annals.NewContextWithPrincipal(context.Background(), local)
	now := time.Now().UTC()
	if _, err := annals.CreateChat(ctx, svc, &annals.Chat{ID: "c1", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	w := watchAs(t, svc, local, "c1")
	sel := annals.ChatSelector{ID: "c1"}
	writes := map[string]func() error{
		"rename": func() error { _, err := svc.RenameChat(ctx, sel, "new title"); return err },
		"pin":    func() error { _, err := svc.PinChat(ctx, sel, true); return err },
		"import": func() error {
			_, err := annals.AppendEntries(ctx, svc.LocalCapture(), "c1", []*annals.Entry{{ID: "i1", Kind: annals.KindUser, Text: "imported", Time: now}})
			return err
		},
		"delete": func() error { return svc.DeleteChat(ctx, sel) },
	}
	for _, name := range []string{"rename", "pin", "import", "delete"} {
		if err := writes[name](); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !woke(w) {
			t.Errorf("%s did not wake the chat's watch", name)
		}
	}
	for i := 0; i < 3; i++ {
		if _, err := annals.CreateChat(ctx, svc, &annals.Chat{ID: "c1", CreatedAt: now}); err != nil && i == 0 {
			t.Fatal(err)
		}
	}
	if !woke(w) || woke(w) {
		t.Error("three writes before the watch read are not one wake-up")
	}
}

// The feed holds at most MaxWatches; over it a watch is refused as unavailable (the page
// polls), and closed watches free their places.
func TestWatchesAreBoundedAndFreedOnClose(t *testing.T) {
	svc := history.New(history.Config{Store: openSQLite(t), MaxWatches: 2})
	ctx := annals.NewContextWithPrincipal(context.Background(), history.LocalOwner())
	a, err := svc.Watch(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Watch(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Watch(ctx, ""); annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Fatalf("a third watch over a bound of 2: %v, want unavailable", err)
	}
	a.Close()
	a.Close()
	c, err := svc.Watch(ctx, "")
	if err != nil {
		t.Fatalf("a watch after one closed: %v", err)
	}
	b.Close()
	c.Close()
	if n := svc.Watches(); n != 0 {
		t.Errorf("%d watches open after all closed", n)
	}
	var none *history.Watch
	none.Close()
	if none.Wake() != nil {
		t.Error("a nil watch has a wake channel")
	}
}
