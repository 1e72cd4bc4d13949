package historytest

import (
	"context"
	"slices"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/queryview"
)

// testViewLedgerConversation: a conversation answers the ledger's events as events and only
// the messages of sessions as messages: the ledger chat's events are never repeated there.
func testViewLedgerConversation(t *testing.T, open Opener) {
	f := newViewFixture(t, open)
	ctx := context.Background()
	if _, err := annals.CreateChat(ctx, f.store, &annals.Chat{ID: "ledger", TenantID: "A", UserID: "ua1", CreatedAt: vmin(0),
		Attributes: annals.Attributes{queryview.LedgerAttribute: "x"}}); err != nil {
		t.Fatal(err)
	}
	ev := ve(annals.KindEvent, 1, "signal/tick", "c9", `{"n":1}`)
	ev.ID = "e1"
	if _, err := annals.AppendEntries(ctx, f.store, "ledger", []*annals.Entry{ev}); err != nil {
		t.Fatal(err)
	}
	f.chat("talk", "A", "ua1", "", 0, ve(annals.KindUser, 2, "in/agent/main", "c9", "hello"))
	ans := f.query(t, as(member("A", "ua1", "aa1", annals.ScopeTenant, annals.ScopeUser)), `{"kind":"conversation","correlation":"c9"}`).(*queryview.ConversationAnswer)
	if len(ans.Events) != 1 || ans.Events[0].Type != "signal/tick" {
		t.Errorf("events = %+v, want the ledger's one event", ans.Events)
	}
	if got := msgKeys(ans.Messages); !slices.Equal(got, []string{"talk#1"}) {
		t.Errorf("messages = %v, want [talk#1] (the ledger's event is no message)", got)
	}
}
