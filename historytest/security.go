package historytest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

// byIDOps are the ops that take a session_id and must fold "outside scope" into not-found.
var byIDOps = []string{history.OpGet, history.OpRename, history.OpAnnotate, history.OpPin, history.OpArchive, history.OpRecap, history.OpResume, history.OpDelete, history.OpRelated}

func byIDRequest(op, id string) *envelope.Request {
	r := &envelope.Request{Op: op, SessionID: id}
	switch op {
	case history.OpRename:
		r.Title = ptr("x")
	case history.OpAnnotate:
		r.Description = ptr("x")
	}
	return r
}

func testSecurityInvariants(t *testing.T, open Opener) {
	t.Run("1_OwnerComesFromPrincipalNeverFromBody", func(t *testing.T) {
		e := newEnv(t, open)
		e.chat("a1", "A", "ua1", "aa1", 1, "alpha")
		e.chat("b1", "B", "ub1", "ab1", 2, "bravo")
		// The envelope has no owner fields at all: a body naming a tenant is refused by name.
		_, err := envelope.DecodeRequest(strings.NewReader(`{"op":"list","tenant_id":"B"}`))
		wantCode(t, "envelope with tenant_id", err, annals.EINVALID)
		if !strings.Contains(annals.ErrorMessage(err), "tenant_id") {
			t.Errorf("message %q does not name the field", annals.ErrorMessage(err))
		}
		res, err := e.svc.List(as(member("A", "ua1", "aa1", annals.ScopeTenant)), &envelope.Request{Op: "list"})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(res.Chats); !slices.Equal(got, []string{"a1"}) {
			t.Errorf("tenant A lists %v, want [a1]", got)
		}
	})

	t.Run("2_DefaultDenyWithoutScopes", func(t *testing.T) {
		e := newEnv(t, open)
		e.chat("a1", "A", "ua1", "aa1", 1, "alpha")
		ctx := as(member("A", "ua1", "aa1"))
		for _, op := range history.Ops {
			req := byIDRequest(op, "a1")
			req.Query = "alpha"
			if op == history.OpRelated {
				req.SessionID = ""
			}
			_, err := e.svc.Do(ctx, req)
			wantCode(t, "op "+op+" with no scopes", err, annals.EFORBIDDEN)
		}
	})

	t.Run("3_GlobalOnlyForAdminAndFailsClosed", func(t *testing.T) {
		e := newEnv(t, open)
		e.chat("a1", "A", "ua1", "aa1", 1, "alpha")
		e.chat("b1", "B", "ub1", "ab1", 2, "bravo")
		// A member whose config lists global still cannot use it.
		_, err := e.svc.List(as(member("A", "ua1", "aa1", annals.ScopeGlobal, annals.ScopeTenant)), &envelope.Request{Scope: "global"})
		wantCode(t, "member asking for global", err, annals.EFORBIDDEN)
		// "any" is the alias of global and is gated the same way.
		_, err = e.svc.List(as(member("A", "ua1", "aa1", annals.ScopeGlobal)), &envelope.Request{Scope: "any"})
		wantCode(t, "member asking for any", err, annals.EFORBIDDEN)
		// Stripped, not honoured: the default scope of such a member is its tenant, not global.
		res, err := e.svc.List(as(member("A", "ua1", "aa1", annals.ScopeGlobal, annals.ScopeTenant)), &envelope.Request{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Scope != "tenant" || !slices.Equal(ids(res.Chats), []string{"a1"}) {
			t.Errorf("member default scope = %s with %v, want tenant with [a1]", res.Scope, ids(res.Chats))
		}
		// No principal at all (background work, a resumed run): not admin, no history.
		_, err = e.svc.List(context.Background(), &envelope.Request{Scope: "global"})
		wantCode(t, "no principal", err, annals.EFORBIDDEN)
		// An admin reaches every tenant.
		res, err = e.svc.List(as(admin(allScopes...)), &envelope.Request{Scope: "global"})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(res.Chats); !slices.Equal(got, []string{"b1", "a1"}) {
			t.Errorf("admin global lists %v, want [b1 a1]", got)
		}
	})

	t.Run("4_IdentityRequiredNeverWidened", func(t *testing.T) {
		e := newEnv(t, open)
		e.chat("a1", "A", "ua1", "aa1", 1, "alpha")
		_, err := e.svc.List(as(member("A", "", "aa1", annals.ScopeUser)), &envelope.Request{Scope: "user"})
		wantCode(t, "user scope without user identity", err, annals.EFORBIDDEN)
		if !strings.Contains(annals.ErrorMessage(err), "user identity") {
			t.Errorf("message %q does not say what is missing", annals.ErrorMessage(err))
		}
		_, err = e.svc.List(as(member("A", "ua1", "", annals.ScopeSelf)), &envelope.Request{Scope: "self"})
		wantCode(t, "self scope without agent identity", err, annals.EFORBIDDEN)
		if !strings.Contains(annals.ErrorMessage(err), "agent identity") {
			t.Errorf("message %q does not say what is missing", annals.ErrorMessage(err))
		}
		// By-id ops refuse the same way rather than fetching tenant-wide.
		_, err = e.svc.Get(as(member("A", "", "aa1", annals.ScopeUser)), &envelope.Request{SessionID: "a1"})
		wantCode(t, "get with user scope without user identity", err, annals.EFORBIDDEN)
	})

	t.Run("5_OutsideScopeAndMissingAreTheSameNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		e.chat("b1", "B", "ub1", "ab1", 1, "bravo", "secret plans")
		e.chat("a2", "A", "ua2", "aa2", 2, "other user's chat")
		ctx := as(member("A", "ua1", "aa1", annals.ScopeUser, annals.ScopeTenant))
		for _, op := range byIDOps {
			for _, id := range []string{"b1", "nope"} {
				_, err := e.svc.Do(ctx, byIDRequest(op, id))
				wantCode(t, op+" "+id, err, annals.ENOTFOUND)
				if got, want := annals.ErrorMessage(err), `chat "`+id+`" not found`; got != want {
					t.Errorf("%s %s: message %q, want %q", op, id, got, want)
				}
			}
			// Another user's chat in the same tenant, under user scope.
			req := byIDRequest(op, "a2")
			req.Scope = "user"
			_, err := e.svc.Do(ctx, req)
			wantCode(t, op+" other user's chat under user scope", err, annals.ENOTFOUND)
		}
		// Nothing was changed or summarised by the refused calls.
		b1, err := e.store.FindChatByID(context.Background(), "b1")
		if err != nil {
			t.Fatalf("b1 was deleted by a refused call: %v", err)
		}
		if b1.Title != "bravo" || b1.Pinned || b1.ArchivedAt != nil || b1.Summary != "" {
			t.Errorf("b1 was modified by refused calls: %+v", b1)
		}
		if e.sum.calls != 0 {
			t.Errorf("summarizer called %d times for refused recaps", e.sum.calls)
		}
	})

	t.Run("6_ListSearchRelatedCountFoldInSQL", func(t *testing.T) {
		e := newEnv(t, open)
		e.chat("a1", "A", "ua1", "aa1", 1, "shared topic kubernetes")
		e.chat("b1", "B", "ub1", "ab1", 2, "shared topic kubernetes")
		e.chat("b2", "B", "ub1", "ab1", 3, "zebrafish only in B")
		ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))
		list, err := e.svc.List(ctx, &envelope.Request{})
		if err != nil {
			t.Fatal(err)
		}
		if list.Total != 1 {
			t.Errorf("list total = %d, want 1 (other tenants' chats must not be counted)", list.Total)
		}
		s, err := e.svc.Search(ctx, &envelope.Request{Query: "zebrafish"})
		if err != nil {
			t.Fatal(err)
		}
		if s.Total != 0 || len(s.Chats) != 0 {
			t.Errorf("search for a term only in tenant B: total %d, chats %v; want 0", s.Total, hitIDs(s.Chats))
		}
		rel, err := e.svc.Related(ctx, &envelope.Request{SessionID: "a1"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rel.Results {
			if r.Chat.TenantID != "A" {
				t.Errorf("related returned %s of tenant %s", r.Chat.ID, r.Chat.TenantID)
			}
		}
	})

	t.Run("8_ContentAndQueriesAreNeverSyntax", func(t *testing.T) {
		e := newEnv(t, open)
		e.chat("a1", "A", "ua1", "aa1", 1, `odd "quoted" title NEAR(x) OR title:*`)
		ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))
		for _, q := range []string{`"`, `title:*`, `NEAR(x`, `a OR`, `')--`, `{title}: x`, `x AND`, `*`, `^x`} {
			if _, err := e.svc.Search(ctx, &envelope.Request{Query: q}); err != nil && annals.ErrorCode(err) != annals.EINVALID {
				t.Errorf("search %q: %v (code %s); want results or a clear invalid error, never an engine error", q, err, annals.ErrorCode(err))
			}
		}
		res, err := e.svc.Search(ctx, &envelope.Request{Query: `"quoted"`})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(hitIDs(res.Chats), []string{"a1"}) {
			t.Errorf("literal search for a quoted word found %v", hitIDs(res.Chats))
		}
	})

	t.Run("9_UnknownEnumsRefusedWithAllowedSet", func(t *testing.T) {
		e := newEnv(t, open)
		e.chat("a1", "A", "ua1", "aa1", 1, "alpha")
		ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))
		cases := []struct {
			name string
			req  *envelope.Request
			want string
		}{
			{"status", &envelope.Request{Op: "list", Status: "complete"}, "running, awaiting_input, completed, failed, cancelled"},
			{"scope", &envelope.Request{Op: "list", Scope: "everyone"}, "self, user, tenant, global"},
			{"op", &envelope.Request{Op: "destroy"}, "list, search, related, get"},
			{"format", &envelope.Request{Op: "get", SessionID: "a1", Format: "html"}, "json, markdown, conversation"},
			{"in", &envelope.Request{Op: "search", Query: "x", In: []string{"bodyy"}}, "title, description, summary, tags"},
		}
		for _, tc := range cases {
			_, err := e.svc.Do(ctx, tc.req)
			wantCode(t, tc.name, err, annals.EINVALID)
			if !strings.Contains(annals.ErrorMessage(err), tc.want) {
				t.Errorf("%s: message %q lacks the allowed set %q", tc.name, annals.ErrorMessage(err), tc.want)
			}
		}
		if _, err := annals.ParseRole("root"); annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(err.Error(), "member, operator, admin") {
			t.Errorf("ParseRole(root) = %v", err)
		}
	})

	t.Run("10_LimitsBoundedAndEffectiveValueReported", func(t *testing.T) {
		e := newEnv(t, open)
		e.chat("a1", "A", "ua1", "aa1", 1, "alpha", "one", "two", "three")
		ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))
		list, err := e.svc.List(ctx, &envelope.Request{Limit: 100000})
		if err != nil {
			t.Fatal(err)
		}
		if list.Limit != annals.MaxListLimit {
			t.Errorf("list limit echoed %d, want the effective %d", list.Limit, annals.MaxListLimit)
		}
		list, _ = e.svc.List(ctx, &envelope.Request{})
		if list.Limit != annals.DefaultListLimit {
			t.Errorf("default list limit echoed %d, want %d", list.Limit, annals.DefaultListLimit)
		}
		get, err := e.svc.Get(ctx, &envelope.Request{SessionID: "a1", Limit: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		if get.Limit != history.MaxGetLimit {
			t.Errorf("get limit echoed %d, want %d", get.Limit, history.MaxGetLimit)
		}
		rel, err := e.svc.Related(ctx, &envelope.Request{Query: "alpha", Limit: 9999})
		if err != nil {
			t.Fatal(err)
		}
		if rel.Limit != history.MaxRelatedLimit || rel.CandidateCap != annals.DefaultCandidateCap {
			t.Errorf("related limit %d cap %d, want %d and %d", rel.Limit, rel.CandidateCap, history.MaxRelatedLimit, annals.DefaultCandidateCap)
		}
		_, err = e.svc.List(ctx, &envelope.Request{Limit: -1})
		wantCode(t, "negative limit", err, annals.EINVALID)
	})
}

// testScopeAliasesNeverBypassTheGate: a principal whose configured scopes use the "any" alias
// or an unknown word (a hand-built principal, an old key) is normalised, never crashes and never
// gains global without being admin.
func testScopeAliasesNeverBypassTheGate(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("a1", "A", "ua1", "aa1", 1, "alpha")
	e.chat("b1", "B", "ub1", "ab1", 2, "bravo")
	for _, scopes := range [][]annals.Scope{{"any"}, {"bogus"}, {"any", "bogus"}} {
		_, err := e.svc.List(as(member("A", "ua1", "aa1", scopes...)), &envelope.Request{})
		wantCode(t, "member with scopes "+joinScopeNames(scopes), err, annals.EFORBIDDEN)
	}
	res, err := e.svc.List(as(admin("any")), &envelope.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scope != "global" || res.Total != 2 {
		t.Errorf("admin with the any alias: scope %s total %d, want global 2", res.Scope, res.Total)
	}
}

func joinScopeNames(s []annals.Scope) string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = string(v)
	}
	return strings.Join(out, ",")
}
