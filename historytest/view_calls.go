package historytest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/queryview"
	"github.com/annals-dev/annals/view"
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

// testViewPageCallsMatchToolCalls: a transcript page read with its calls (TranscriptFilter.Calls,
// which reads only the entries the page lacks) gives every assistant message the calls
// ViewToolCalls answers for it, for every page a walk can cut: pages that end inside a run of
// calls (before_id between an assistant and its tool rows), runs of unanswered calls, an orphan
// result, a call run longer than view.MaxCallsPerMessage, with and without the tool rows.
func testViewPageCallsMatchToolCalls(t *testing.T, open Opener) {
	f := newViewFixture(t, open)
	call := func(minute int, id string, answered, args bool) *annals.Entry {
		e := ve(annals.KindTool, minute, "", "", "")
		e.Tool = &annals.ToolCall{Name: "shell", CallID: id}
		if args {
			e.Tool.Arguments = json.RawMessage(`{"cmd":"` + id + `"}`)
		}
		if answered {
			e.Tool.Result, e.Tool.Outcome = "ok "+id, annals.OutcomeSucceeded
		}
		return e
	}
	entries := []*annals.Entry{ve(annals.KindUser, 1, "", "", "go"), ve(annals.KindAssistant, 2, "", "", "a1"),
		call(3, "c1", true, true), call(4, "c2", false, true), call(5, "c3", true, true),
		ve(annals.KindAssistant, 6, "", "", "a2"), call(7, "c4", false, true), call(8, "c5", false, true),
		ve(annals.KindUser, 9, "", "", "more"), ve(annals.KindAssistant, 10, "", "", "a3"),
		call(11, "orphan", true, false), call(12, "c6", true, true), ve(annals.KindAssistant, 13, "", "", "a4")}
	for i := 0; i < view.MaxCallsPerMessage+3; i++ {
		entries = append(entries, call(14+i, fmt.Sprintf("long%d", i), i%3 != 1, true))
	}
	entries = append(entries, ve(annals.KindAssistant, 100, "", "", "a5"), call(101, "last", false, true))
	f.chat("calls", "A", "ua1", "main", 0, entries...)
	ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant, annals.ScopeUser))
	n := int64(len(entries))
	for _, drop := range []bool{false, true} {
		for _, limit := range []int{1, 2, 3, 7} {
			for before := int64(0); before <= n+1; before++ {
				f0 := view.TranscriptFilter{ChatID: "calls", BeforeSeq: before, Limit: limit, Select: view.Select{DropToolRows: drop}}
				plain, err := f.svc.ViewTranscript(ctx, "", f0)
				if err != nil {
					t.Fatal(err)
				}
				f0.Calls = true
				with, err := f.svc.ViewTranscript(ctx, "", f0)
				if err != nil {
					t.Fatal(err)
				}
				var refs []view.Ref
				for _, m := range plain.Messages {
					if m.Role == annals.KindAssistant {
						refs = append(refs, view.Ref{ChatID: m.Session, Seq: m.ID})
					}
				}
				want := map[view.Ref][]view.Call{}
				if len(refs) > 0 {
					if want, err = f.svc.ViewToolCalls(ctx, "", view.ToolCallsFilter{Messages: refs}); err != nil {
						t.Fatal(err)
					}
				}
				if len(with.Messages) != len(plain.Messages) {
					t.Fatalf("drop %v limit %d before %d: %d messages with calls, %d without", drop, limit, before, len(with.Messages), len(plain.Messages))
				}
				for i, m := range with.Messages {
					if m.ID != plain.Messages[i].ID {
						t.Fatalf("drop %v limit %d before %d: message %d is #%d with calls, #%d without", drop, limit, before, i, m.ID, plain.Messages[i].ID)
					}
					got, _ := json.Marshal(m.Content.ToolCalls)
					exp, _ := json.Marshal(want[view.Ref{ChatID: m.Session, Seq: m.ID}])
					if m.Role != annals.KindAssistant {
						exp = []byte("null")
					}
					if string(got) != string(exp) {
						t.Errorf("drop %v limit %d before %d: #%d calls %s, want %s", drop, limit, before, m.ID, got, exp)
					}
				}
			}
		}
	}
}
