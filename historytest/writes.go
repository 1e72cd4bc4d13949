package historytest

import (
	"context"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

// testCaptureChecksEveryOp proves that an op of a capture batch is checked for what it does,
// whatever came before it: a tenant service key (no user, no agent) that may not write to a
// colleague's chat when it asks directly cannot do so by putting a chat op first.
func testCaptureChecksEveryOp(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("theirs", "A", "ua2", "", 1, "a colleague's chat", "their words", "their answer")
	service := as(member("A", "", "", annals.ScopeTenant))
	stored := &annals.Chat{ID: "theirs", UserID: "ua2"}
	writes := map[string]annals.CaptureOp{
		"append":   {Append: &annals.AppendOp{ChatID: "theirs", Entries: []*annals.Entry{{ID: "x", Kind: annals.KindUser, Text: "injected"}}}},
		"truncate": {Truncate: &annals.TruncateOp{ChatID: "theirs", Point: annals.TruncatePoint{Seq: 1}}},
		"run":      {Run: &annals.Run{ID: "r-x", ChatID: "theirs", Status: annals.StatusFailed, CostUSD: 99999}},
	}
	for name, w := range writes {
		t.Run(name, func(t *testing.T) {
			_, err := e.svc.Capture(service, []annals.CaptureOp{w})
			wantCode(t, name+" asked directly", err, annals.EFORBIDDEN)
			for _, tc := range []struct {
				batch   []annals.CaptureOp
				refused int // the op refused: creating a colleague's chat is refused itself
			}{
				{[]annals.CaptureOp{{Chat: stored}, w}, 0},
				{[]annals.CaptureOp{{Chat: &annals.Chat{ID: "mine-" + name}}, w}, 1},
				{[]annals.CaptureOp{{Chat: &annals.Chat{ID: "mine2-" + name}}, {Append: &annals.AppendOp{ChatID: "mine2-" + name, Entries: []*annals.Entry{{ID: "ok", Kind: annals.KindUser, Text: "fine"}}}}, w}, 2},
			} {
				_, err := e.svc.Capture(service, tc.batch)
				wantCode(t, name+" after a chat op in the same batch", err, annals.EFORBIDDEN)
				if i, ok := annals.BatchIndex(err); !ok || i != tc.refused {
					t.Errorf("%s: batch error index %d (%v), want %d", name, i, ok, tc.refused)
				}
			}
			c := mustFind(t, e.store, "theirs")
			if c.Totals.Entries != 2 || c.Totals.Runs != 0 || c.Totals.CostUSD != 0 || c.Status != "" {
				t.Errorf("the colleague's chat changed: totals %+v, status %q", c.Totals, c.Status)
			}
			if _, err := e.store.FindChatByID(context.Background(), "mine-"+name); annals.ErrorCode(err) != annals.ENOTFOUND {
				t.Errorf("a refused batch still created its first chat: %v", err)
			}
		})
	}
}

// testCaptureOwnership proves the owner assignment of the capture path and the decisions of
// docs/SECURITY.md: a member key with a user may create chats under any agent of its tenant;
// a member key without user or agent creates only chats without them; tenant members may curate
// (rename, annotate, pin, archive) a colleague's chat they can see, but not change its
// transcript or delete it.
func testCaptureOwnership(t *testing.T, open Opener) {
	e := newEnv(t, open)
	alice := as(member("A", "ua1", "", annals.ScopeUser, annals.ScopeTenant))
	c, err := annals.CreateChat(alice, e.svc, &annals.Chat{ID: "c-any-agent", TenantID: "B", AgentID: "some-agent"})
	if err != nil {
		t.Fatalf("a member key with a user creating a chat under an agent: %v", err)
	}
	if c.TenantID != "A" || c.UserID != "ua1" || c.AgentID != "some-agent" {
		t.Errorf("created chat owner = %q/%q/%q, want A/ua1/some-agent (the tenant comes from the key, never the body)", c.TenantID, c.UserID, c.AgentID)
	}
	_, err = annals.CreateChat(alice, e.svc, &annals.Chat{ID: "c-other-user", UserID: "ua2"})
	wantCode(t, "a member key with a user naming another user", err, annals.EFORBIDDEN)

	service := as(member("A", "", "", annals.ScopeTenant))
	_, err = annals.CreateChat(service, e.svc, &annals.Chat{ID: "c-for-bob", UserID: "ua2"})
	wantCode(t, "a service key creating a chat for a user", err, annals.EFORBIDDEN)
	if c, err := annals.CreateChat(service, e.svc, &annals.Chat{ID: "c-service"}); err != nil || c.UserID != "" || c.AgentID != "" {
		t.Errorf("a service key creating a chat without user or agent: %v (%+v)", err, c)
	}
	operator := as(&annals.Principal{TenantID: "A", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}})
	if c, err := annals.CreateChat(operator, e.svc, &annals.Chat{ID: "c-op-for-bob", UserID: "ua2"}); err != nil || c.UserID != "ua2" {
		t.Errorf("an operator key creating a chat for a user: %v (%+v)", err, c)
	}
	if _, err := annals.AppendEntries(operator, e.svc, "c-op-for-bob", []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "hi"}}); err != nil {
		t.Errorf("an operator appending to a chat of its tenant: %v", err)
	}

	// A colleague's chat, seen through tenant scope.
	e.chat("bobs", "A", "ua2", "", 5, "bob's chat", "bob's words")
	for _, req := range []*envelope.Request{
		{Op: history.OpRename, SessionID: "bobs", Title: ptr("renamed by alice")},
		{Op: history.OpAnnotate, SessionID: "bobs", Tags: ptr([]string{"team"})},
		{Op: history.OpPin, SessionID: "bobs"},
		{Op: history.OpArchive, SessionID: "bobs", Archived: ptr(false)},
	} {
		if _, err := e.svc.Do(alice, req); err != nil {
			t.Errorf("tenant member curating a colleague's chat (%s): %v, want allowed", req.Op, err)
		}
	}
	_, err = e.svc.Delete(alice, &envelope.Request{Op: history.OpDelete, SessionID: "bobs"})
	wantCode(t, "tenant member deleting a colleague's chat", err, annals.EFORBIDDEN)
	_, err = annals.AppendEntries(alice, e.svc, "bobs", []*annals.Entry{{ID: "x", Kind: annals.KindUser, Text: "x"}})
	wantCode(t, "tenant member appending to a colleague's chat", err, annals.EFORBIDDEN)
	if got := mustFind(t, e.store, "bobs"); got.Title != "renamed by alice" || got.Totals.Entries != 1 {
		t.Errorf("colleague's chat: title %q, %d entries; want the curation kept and the transcript untouched", got.Title, got.Totals.Entries)
	}

	// Another tenant's chat id: creating it answers like a conflict of immutable data, and
	// appending to it like a chat that does not exist.
	e.chat("b-chat", "B", "ub1", "", 6, "B's")
	_, err = annals.CreateChat(alice, e.svc, &annals.Chat{ID: "b-chat"})
	wantCode(t, "creating another tenant's chat id", err, annals.ECONFLICT)
	_, err = annals.AppendEntries(alice, e.svc, "b-chat", []*annals.Entry{{ID: "x", Kind: annals.KindUser, Text: "x"}})
	wantCode(t, "appending to another tenant's chat", err, annals.ENOTFOUND)

	// A read-only history refuses every write at the door, before it reaches the store.
	ro := history.For(history.New(history.Config{Store: e.store, Summarizer: e.sum}), annals.PrincipalFromContext(alice), history.Access{ReadOnly: true})
	_, err = annals.CreateChat(alice, ro, &annals.Chat{ID: "c-ro"})
	wantCode(t, "create on a read-only service", err, annals.EFORBIDDEN)
	_, err = envelope.Dispatch(alice, ro, &envelope.Request{Op: history.OpRename, SessionID: "c-any-agent", Title: ptr("x")})
	wantCode(t, "rename on a read-only service", err, annals.EFORBIDDEN)
	before := e.sum.calls
	_, err = envelope.Dispatch(alice, ro, &envelope.Request{Op: history.OpRecap, SessionID: "c-any-agent"})
	wantCode(t, "recap on a read-only service", err, annals.EFORBIDDEN)
	if e.sum.calls != before {
		t.Errorf("a read-only recap called the summarizer")
	}
}

func mustFind(t *testing.T, s annals.Store, id string) *annals.Chat {
	t.Helper()
	c, err := s.FindChatByID(context.Background(), id)
	if err != nil {
		t.Fatalf("find %s: %v", id, err)
	}
	return c
}
