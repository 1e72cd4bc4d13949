package historytest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/queryview"
)

// testViewUnansweredCalls: as in the reference, a tool call nobody answered lives only on its
// assistant message's tool_calls, never as a row of its own, so pages and counts line up with
// the reference's; and a tool result no call asked for (no arguments) is a row, never one of
// the preceding assistant's calls.
func testViewUnansweredCalls(t *testing.T, open Opener) {
	f := newViewFixture(t, open)
	waiting := ve(annals.KindTool, 3, "in/agent/main", "", "")
	waiting.Tool = &annals.ToolCall{Name: "shell", CallID: "call-wait", Arguments: json.RawMessage(`{"cmd":"sleep"}`)}
	answered := ve(annals.KindTool, 4, "in/agent/main", "", "")
	answered.Tool = &annals.ToolCall{Name: "shell", CallID: "call-done", Arguments: json.RawMessage(`{"cmd":"ls"}`), Result: "a b", Outcome: annals.OutcomeSucceeded}
	orphan := ve(annals.KindTool, 5, "in/agent/main", "", "")
	orphan.Tool = &annals.ToolCall{Name: "read_file", CallID: "call-else", Result: "text", Outcome: annals.OutcomeSucceeded}
	f.chat("calls", "A", "ua1", "main", 0,
		ve(annals.KindUser, 1, "in/agent/main", "", "go"),
		ve(annals.KindAssistant, 2, "in/agent/main", "", "calling"),
		waiting, answered, orphan)
	ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant, annals.ScopeUser))

	tr := f.query(t, ctx, `{"kind":"transcript","session":"calls"}`).(*queryview.TranscriptAnswer)
	if got, want := msgKeys(tr.Messages), []string{"calls#1", "calls#2", "calls#4", "calls#5"}; !slices.Equal(got, want) {
		t.Fatalf("transcript rows = %v, want %v (the waiting call #3 only on its assistant)", got, want)
	}
	var ids []string
	for _, c := range tr.Messages[1].Content.ToolCalls {
		ids = append(ids, c.CallID)
	}
	if want := []string{"call-wait", "call-done"}; !slices.Equal(ids, want) {
		t.Errorf("assistant tool_calls = %v, want %v (the orphan result is no call)", ids, want)
	}
	if got := f.searchKeys(t, ctx, `{"kind":"search","filter":{"roles":["tool"]}}`); !slices.Equal(got, []string{"calls#5", "calls#4"}) {
		t.Errorf("search of tool rows = %v, want [calls#5 calls#4]", got)
	}
	ss := f.query(t, ctx, `{"kind":"sessions"}`).(*queryview.SessionsAnswer)
	if len(ss.Sessions) != 1 || ss.Sessions[0].Messages != 4 {
		t.Errorf("sessions = %+v, want one session of 4 messages", ss.Sessions)
	}
}
