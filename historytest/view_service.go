package historytest

import (
	"context"
	"slices"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/view"
)

// testViewService checks the view operations of the history service (view.Service) directly:
// the owner a store reads comes from the caller's principal and scope, never from the filter a
// caller hands in, and a service without a view store refuses before reading anything.
func testViewService(t *testing.T, open Opener) {
	f := newViewFixture(t, open)
	f.seed()
	svc := f.svc
	ua1 := as(member("A", "ua1", "aa1", annals.ScopeUser))
	otherTenant := annals.Owner{TenantID: "B"}

	t.Run("AFilterOwnerIsNeverRead", func(t *testing.T) {
		page, err := svc.ViewSearch(ua1, "", view.Filter{Owner: otherTenant, Limit: view.MaxSearch})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"a-main#5", "a-linked#2", "a-main#4", "a-main#3", "a-main#2", "a-linked#1", "a-main#1"}
		if got := msgKeys(page.Messages); !slices.Equal(got, want) {
			t.Errorf("search as ua1 with tenant B's owner in the filter = %v; want ua1's messages %v", got, want)
		}
		sessions, err := svc.ViewSessions(ua1, annals.ScopeUser, view.SessionsFilter{Owner: otherTenant})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range sessions.Sessions {
			ids = append(ids, s.ID)
		}
		if slices.Contains(ids, "b-main") || !slices.Contains(ids, "a-main") || slices.Contains(ids, "a-plain") {
			t.Errorf("sessions as ua1 with tenant B's owner in the filter = %v; want ua1's chats only", ids)
		}
		if _, err := svc.ViewTranscript(ua1, "", view.TranscriptFilter{Owner: otherTenant, ChatID: "b-main"}); annals.ErrorCode(err) != annals.ENOTFOUND {
			t.Errorf("transcript of tenant B's chat as ua1: %v; want not_found", err)
		}
		calls, err := svc.ViewToolCalls(ua1, "", view.ToolCallsFilter{Owner: otherTenant, Messages: []view.Ref{{ChatID: "a-main", Seq: 2}}})
		if err != nil || len(calls[view.Ref{ChatID: "a-main", Seq: 2}]) != 1 {
			t.Errorf("tool calls of ua1's own message = %v, %v; want its one call", calls, err)
		}
	})

	t.Run("ScopeIsResolvedFromThePrincipal", func(t *testing.T) {
		if sc, err := svc.ViewScope(ua1, ""); err != nil || sc != annals.ScopeUser {
			t.Errorf("ViewScope(\"\") as ua1 = %q, %v; want user", sc, err)
		}
		if _, err := svc.ViewScope(ua1, annals.ScopeTenant); annals.ErrorCode(err) != annals.EFORBIDDEN {
			t.Errorf("ViewScope(tenant) as a user-scoped member: %v; want forbidden", err)
		}
		if _, err := svc.ViewEvents(context.Background(), "", view.EventsFilter{Owner: otherTenant, CorrelationID: "corr1"}); annals.ErrorCode(err) != annals.EFORBIDDEN {
			t.Errorf("events without a principal: %v; want forbidden", err)
		}
		if _, err := svc.ViewAgents(ua1, annals.ScopeGlobal, view.AgentsFilter{}); annals.ErrorCode(err) != annals.EFORBIDDEN {
			t.Errorf("agents in global scope as a member: %v; want forbidden", err)
		}
	})

	t.Run("NoViewStoreIsNotImplemented", func(t *testing.T) {
		bare := newService(history.Config{Store: f.store})
		_, err := bare.ViewConversation(ua1, "", view.ConversationFilter{CorrelationID: "corr1"})
		if annals.ErrorCode(err) != annals.ENOTIMPLEMENTED {
			t.Errorf("conversation on a service without a view store: %v; want not_implemented", err)
		}
	})
}
