package history_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

// writesCounted is a history service that counts the writes that reach it, and remembers the
// principal the last read ran as.
type writesCounted struct {
	annals.HistoryService
	writes int
	seen   *annals.Principal
}

func (w *writesCounted) FindChats(ctx context.Context, _ annals.ListParams) (*annals.ChatPage, error) {
	w.seen = annals.PrincipalFromContext(ctx)
	return &annals.ChatPage{}, nil
}

func (w *writesCounted) RenameChat(context.Context, annals.ChatSelector, string) (*annals.Chat, error) {
	w.writes++
	return &annals.Chat{}, nil
}

func (w *writesCounted) RecapChat(context.Context, annals.ChatSelector) (*annals.Recap, error) {
	w.writes++
	return &annals.Recap{}, nil
}

func (w *writesCounted) DeleteChat(context.Context, annals.ChatSelector) error {
	w.writes++
	return nil
}

// A session whose surface withholds writes (MCP without --allow-writes) is refused every write
// at the door, before it is sent to the service behind it.
func TestDoorWithoutWritesRefusesEveryWriteBeforeItIsSent(t *testing.T) {
	inner := &writesCounted{}
	ro := history.For(inner, history.LocalOwner(), history.Access{Surface: history.SurfaceAgent, Local: true})
	ctx := context.Background()
	sel := annals.ChatSelector{ID: "c1"}
	checks := map[string]error{}
	_, checks["rename"] = ro.RenameChat(ctx, sel, "x")
	_, checks["annotate"] = ro.AnnotateChat(ctx, sel, annals.Annotation{})
	_, checks["pin"] = ro.PinChat(ctx, sel, true)
	_, checks["archive"] = ro.ArchiveChat(ctx, sel, true)
	_, checks["recap"] = ro.RecapChat(ctx, sel)
	checks["delete"] = ro.DeleteChat(ctx, sel)
	_, checks["capture"] = ro.Capture(ctx, nil)
	_, checks["create"] = annals.CreateChat(ctx, ro, &annals.Chat{ID: "c2"})
	_, checks["append"] = annals.AppendEntries(ctx, ro, "c1", nil)
	_, checks["truncate"] = annals.TruncateChat(ctx, ro, "c1", annals.TruncatePoint{})
	_, checks["run"] = annals.RecordRun(ctx, ro, &annals.Run{})
	for op, err := range checks {
		if annals.ErrorCode(err) != annals.EFORBIDDEN {
			t.Errorf("%s through the read-only view: %v, want forbidden", op, err)
		}
	}
	// An envelope's write op is refused the same way.
	if _, err := envelope.Dispatch(ctx, ro, &envelope.Request{Op: history.OpRecap, SessionID: "c1"}); annals.ErrorCode(err) != annals.EFORBIDDEN {
		t.Errorf("envelope recap: %v", err)
	}
	if inner.writes != 0 {
		t.Fatalf("%d writes reached the service behind the read-only view", inner.writes)
	}
}

func member() *annals.Principal {
	return &annals.Principal{TenantID: "acme", UserID: "alice", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser}}
}

func operator() *annals.Principal {
	return &annals.Principal{TenantID: "acme", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}}
}

// A read-only history (annals serve --read-only) refuses every write for every caller, with the
// history's own refusal, before it reaches the service; reads pass.
func TestDoorReadOnlyRefusesWritesForEveryCaller(t *testing.T) {
	ctx := context.Background()
	for _, p := range []*annals.Principal{member(), operator(), history.LocalOwner()} {
		inner := &writesCounted{}
		ro := history.For(inner, p, history.Access{ReadOnly: true})
		if ro.Writes() {
			t.Errorf("%s: a read-only door offers writes", p.Role)
		}
		_, err := ro.RenameChat(ctx, annals.ChatSelector{ID: "c1"}, "x")
		if annals.ErrorCode(err) != annals.EFORBIDDEN || !strings.Contains(err.Error(), "this history is read-only (started with --read-only): op rename") {
			t.Errorf("%s: rename on a read-only history: %v", p.Role, err)
		}
		_, err = ro.Capture(ctx, []annals.CaptureOp{{Chat: &annals.Chat{ID: "c2"}}})
		if annals.ErrorCode(err) != annals.EFORBIDDEN || !strings.Contains(err.Error(), "capture writes and is refused") {
			t.Errorf("%s: capture on a read-only history: %v", p.Role, err)
		}
		if err := ro.CheckWrite("POST /v1/sessions"); annals.ErrorCode(err) != annals.EFORBIDDEN || !strings.Contains(err.Error(), "this server is read-only (started with --read-only): POST /v1/sessions writes") {
			t.Errorf("%s: a write route on a read-only history: %v", p.Role, err)
		}
		if _, err := ro.FindChats(ctx, annals.ListParams{}); err != nil {
			t.Errorf("%s: a read on a read-only history: %v", p.Role, err)
		}
		if inner.writes != 0 {
			t.Errorf("%s: %d writes reached the service", p.Role, inner.writes)
		}
	}
	// An agent's surface on a read-only history offers no writes even when told to.
	if history.For(&writesCounted{}, operator(), history.Access{ReadOnly: true, Surface: history.SurfaceAgent, AllowWrites: true}).Writes() {
		t.Error("an agent surface on a read-only history offers writes")
	}
}

// Who may write at all: on the API every caller (the service then checks each chat); on an
// agent's surface operators and admins with a key, everyone when writes are allowed, and never
// the local owner by its role alone.
func TestDoorDecidesWhoWrites(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *annals.Principal
		a    history.Access
		want bool
	}{
		{"api member", member(), history.Access{}, true},
		{"api local owner", history.LocalOwner(), history.Access{Local: true}, true},
		{"agent member key", member(), history.Access{Surface: history.SurfaceAgent}, false},
		{"agent operator key", operator(), history.Access{Surface: history.SurfaceAgent}, true},
		{"agent local owner", history.LocalOwner(), history.Access{Surface: history.SurfaceAgent, Local: true}, false},
		{"agent local owner, writes allowed", history.LocalOwner(), history.Access{Surface: history.SurfaceAgent, Local: true, AllowWrites: true}, true},
		{"agent member key, writes allowed", member(), history.Access{Surface: history.SurfaceAgent, AllowWrites: true}, true},
	} {
		inner := &writesCounted{}
		d := history.For(inner, c.p, c.a)
		if d.Writes() != c.want {
			t.Errorf("%s: writes %v, want %v", c.name, d.Writes(), c.want)
		}
		_, err := d.RenameChat(context.Background(), annals.ChatSelector{ID: "c1"}, "x")
		if c.want && (err != nil || inner.writes != 1) {
			t.Errorf("%s: rename was not passed on: %v", c.name, err)
		}
		if !c.want && (annals.ErrorCode(err) != annals.EFORBIDDEN || !strings.Contains(err.Error(), "this session is read-only: rename") || inner.writes != 0) {
			t.Errorf("%s: rename without writes: %v (%d writes passed)", c.name, err, inner.writes)
		}
	}
}

// Naming an agent without an agents: block keeps no scope at all; with one, the agent keeps
// what the policy grants it and its credentials allow.
func TestDoorAgentWithoutPolicyKeepsNoScope(t *testing.T) {
	owner := history.LocalOwner()
	d := history.For(&writesCounted{}, owner, history.Access{Surface: history.SurfaceAgent, Local: true, Agent: "coder"})
	if p := d.Principal(); p.AgentID != "coder" || len(p.Scopes) != 0 {
		t.Fatalf("agent without a policy acts as %+v, want agent coder with no scope", p)
	}
	if owner.AgentID != "" || len(owner.Scopes) == 0 {
		t.Fatal("the door changed the principal it was given")
	}
	pol := history.AgentPolicy{"coder": {annals.ScopeSelf}}
	d = history.For(&writesCounted{}, owner, history.Access{Agents: pol, Agent: "coder"})
	if p := d.Principal(); p.AgentID != "coder" || len(p.Scopes) != 1 || p.Scopes[0] != annals.ScopeSelf {
		t.Fatalf("agent under a policy acts as %+v, want scope self only", p)
	}
	d = history.For(&writesCounted{}, owner, history.Access{Agents: pol, Agent: "stranger"})
	if p := d.Principal(); len(p.Scopes) != 0 {
		t.Fatalf("an agent the policy does not name keeps %v", p.Scopes)
	}
	// A key that names an agent is narrowed the same way.
	key := &annals.Principal{TenantID: "acme", AgentID: "coder", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeSelf, annals.ScopeTenant}}
	if p := history.For(&writesCounted{}, key, history.Access{Agents: pol}).Principal(); len(p.Scopes) != 1 || p.Scopes[0] != annals.ScopeSelf {
		t.Fatalf("an agent key under the policy keeps %v, want self", p.Scopes)
	}
}

// Admin-only operations (counting every tenant at /metrics) pass for admins and the local
// owner only.
func TestDoorAdminOnlyOperations(t *testing.T) {
	for _, c := range []struct {
		p    *annals.Principal
		want bool
	}{{member(), false}, {operator(), false}, {history.LocalOwner(), true}, {&annals.Principal{TenantID: "acme", Role: annals.RoleAdmin, Scopes: annals.Scopes}, true}, {nil, false}} {
		err := history.For(&writesCounted{}, c.p, history.Access{}).CheckAdmin("GET /metrics", "shows every tenant's counts")
		if c.want != (err == nil) {
			t.Errorf("%+v: %v", c.p, err)
		}
		if err != nil && (annals.ErrorCode(err) != annals.EFORBIDDEN || err.Error() != "GET /metrics shows every tenant's counts and needs an admin key") {
			t.Errorf("refusal: %v", err)
		}
	}
}

// Every call runs as the bound principal, whatever the caller's context carries: a transport
// handed a member's door cannot act as someone else by putting another principal in ctx.
func TestDoorBindsItsPrincipal(t *testing.T) {
	inner := &writesCounted{}
	d := history.For(inner, member(), history.Access{})
	admin := annals.NewContextWithPrincipal(context.Background(), history.LocalOwner())
	if _, err := d.FindChats(admin, annals.ListParams{}); err != nil {
		t.Fatal(err)
	}
	if inner.seen == nil || inner.seen.UserID != "alice" || inner.seen.Role != annals.RoleMember {
		t.Fatalf("the service saw %+v, want the member the door was bound to", inner.seen)
	}
}
