package historytest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/view"
)

// The query view's filter.text, as the reference defines it: a substring of the stored content,
// matched like SQL LIKE (ASCII letters in either case, every other character only itself, %, _
// and \ literal), in one field of a message at a time.

// substringFixture: tenant A's chat s-text holds fields chosen for each rule, tenant B's chat
// holds every needle the tests use, so any leak shows.
func substringFixture(t *testing.T, open Opener) *viewFixture {
	f := newViewFixture(t, open)
	reply := ve(annals.KindAssistant, 2, "", "", "pressure at 100% of max_load")
	reply.Reasoning = `path C:\temp\x`
	tool := ve(annals.KindTool, 3, "", "", "")
	tool.Tool = &annals.ToolCall{Name: "grep_tool", CallID: "c1", Arguments: json.RawMessage(`{"pattern":"a_b"}`), Result: "Überdruck im Kessel — ça va"}
	f.chat("s-text", "A", "ua1", "", 0,
		ve(annals.KindUser, 1, "", "", "Reactor PRESSURE nominal"),
		reply, tool,
		ve(annals.KindUser, 4, "", "", "1000 units, 100x faster, maxXload"),
		ve(annals.KindUser, 5, "", "", "ab AB aB"))
	f.chat("b-text", "B", "ub1", "", 0, ve(annals.KindUser, 1, "", "", `Reactor PRESSURE 100% max_load C:\temp a_b grep_tool Überdruck ab ç`))
	return f
}

// ViewSubstring runs the query view's substring cases alone, for a store set up to take one of
// its plans (postgres: the time walk for every needle).
func ViewSubstring(t *testing.T, open Opener) { testViewSubstring(t, open) }

func testViewSubstring(t *testing.T, open Opener) {
	f := substringFixture(t, open)
	a := as(member("A", "ua1", "aa1", annals.ScopeTenant, annals.ScopeUser))
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"actor pres", []string{"s-text#1"}},                                        // mid-word, across a space
		{"pressure", []string{"s-text#2", "s-text#1"}},                              // ASCII letters in either case
		{"PRESS", []string{"s-text#2", "s-text#1"}},                                 // and a part of a word
		{"100%", []string{"s-text#2"}},                                              // % is literal: not "1000", not "100x"
		{"x_l", []string{"s-text#2"}},                                               // _ is literal: not "xXl"
		{`C:\temp`, []string{"s-text#2"}},                                           // \ is literal; found in the reasoning
		{`C:\\temp`, nil},                                                           // two backslashes are two characters
		{"rep_to", []string{"s-text#3", "s-text#2"}},                                // the tool name: the call's and its assistant's
		{`"a_b"`, []string{"s-text#2"}},                                             // the arguments, quotes included: the assistant's
		{"Überdruck", []string{"s-text#3"}},                                         // the result, non-ASCII exact
		{"überdruck", nil},                                                          // non-ASCII letters keep their case, as LIKE does
		{"KESSEL — ÇA", nil},                                                        // ASCII folds, Ç does not
		{"kessel — ça", []string{"s-text#3"}},                                       // a needle across words and punctuation
		{"max_loadpath", nil},                                                       // never across two fields
		{"ç", []string{"s-text#3"}},                                                 // one character, non-ASCII
		{"%", []string{"s-text#2"}},                                                 // one character, a LIKE wildcard
		{"aB", []string{"s-text#5"}},                                                // two characters, either case
		{" ", []string{"s-text#5", "s-text#4", "s-text#3", "s-text#2", "s-text#1"}}, // blanks are a substring too
		{"secret", nil},
	} {
		body, _ := json.Marshal(map[string]any{"kind": "search", "filter": map[string]string{"text": tc.text}})
		got := f.searchKeys(t, a, string(body))
		if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("text %q = %v, want %v", tc.text, got, tc.want)
		}
	}
	long := make([]byte, view.MaxSubstringChars+1)
	for i := range long {
		long[i] = 'x'
	}
	f.wantInvalid(t, a, `{"kind":"search","filter":{"text":"`+string(long)+`"}}`, "1025 characters", "at most 1024")
	f.wantInvalid(t, a, `{"kind":"search","filter":{"text":"a\u0000b"}}`, "NUL")

	t.Run("WordsStayOptIn", func(t *testing.T) {
		// annals's word search: whole words, so "press" finds nothing where the substring does.
		if got := f.searchKeys(t, a, `{"kind":"search","filter":{"words":"press"}}`); len(got) != 0 {
			t.Errorf("words press = %v, want nothing", got)
		}
		if got := f.searchKeys(t, a, `{"kind":"search","filter":{"words":"pressure nominal","text":"actor"}}`); !slices.Equal(got, []string{"s-text#1"}) {
			t.Errorf("words and text = %v, want [s-text#1]", got)
		}
	})
	t.Run("PastTheWalkAndInSyncAfterWrites", func(t *testing.T) { testViewSubstringOlder(t, open) })
	t.Run("CallsBelongToTheAssistant", func(t *testing.T) { testViewSubstringCalls(t, open) })
}

// testViewSubstringOlder puts the matches behind more entries than a search walks before it
// looks the substring up in an index (storecore.SubstringFirstWalk and SubstringMoreWalk, 1000), so the index (or, for a
// short needle, the longer scan) answers, and checks the answer after appends, a truncate and a
// delete.
func testViewSubstringOlder(t *testing.T, open Opener) {
	ctx := context.Background()
	f := newViewFixture(t, open)
	a := as(member("A", "ua1", "aa1", annals.ScopeTenant, annals.ScopeUser))
	old := []*annals.Entry{
		ve(annals.KindUser, 0, "", "", "the Zqxw valve"),
		ve(annals.KindUser, 0, "", "", "a zqxw pump"),
	}
	filler := make([]*annals.Entry, 1200)
	for i := range filler {
		filler[i] = ve(annals.KindAssistant, 10+i, "", "", fmt.Sprintf("filler line %d", i))
	}
	f.chat("big", "A", "ua1", "", 0, append(old, filler...)...)
	f.chat("other", "B", "ub1", "", 0, ve(annals.KindUser, 0, "", "", "zqxw q in another tenant"))
	f.chat("valves", "A", "ua1", "", 0, ve(annals.KindUser, 0, "", "", `the relief valve opened at 14:02, pressure fell; he said "stop" (100% sure)`))
	search := func(text string, limit int) []string {
		body, _ := json.Marshal(map[string]any{"kind": "search", "filter": map[string]string{"text": text}, "page": map[string]int{"limit": limit}})
		return f.searchKeys(t, a, string(body))
	}
	check := func(what, text string, limit int, want ...string) {
		t.Helper()
		if got := search(text, limit); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s: text %q = %v, want %v", what, text, got, want)
		}
	}
	check("index", "ZQXW", 80, "big#2", "big#1")
	check("index, page of one", "zqxw", 1, "big#2")
	check("scan of a short needle", "q", 80, "big#2", "big#1")
	check("a needle nowhere", "zqxwv", 80)
	check("a long needle", "RELIEF VALVE OPENED AT 14:02", 80, "valves#1") // more trigrams than one lookup takes
	check("a long needle nowhere", "relief valve opened at 14:03", 80)
	check("quotes and wildcards", `said "STOP" (100%`, 80, "valves#1") // FTS5 strings and LIKE patterns both escaped
	check("quotes and wildcards nowhere", `said "STOP" (10_%`, 80)

	// An append of an entry as old as the others: found behind the walk again.
	if _, err := annals.AppendEntries(ctx, f.store, "big", []*annals.Entry{{ID: "late", Kind: annals.KindUser, Time: vmin(-1), Text: "late zqxw"}}); err != nil {
		t.Fatal(err)
	}
	check("after an append", "zqxw", 80, "big#2", "big#1", "big#1203")
	// Truncating at the late entry removes it from the answer.
	if _, err := annals.TruncateChat(ctx, f.store, "big", annals.TruncatePoint{EntryID: "late"}); err != nil {
		t.Fatal(err)
	}
	check("after a truncate", "zqxw", 80, "big#2", "big#1")
	// A chat of its own, deleted: its matches go with it.
	f.chat("gone", "A", "ua1", "", 0, ve(annals.KindUser, 0, "", "", "gone zqxw"))
	check("before a delete", "zqxw", 80, "gone#1", "big#2", "big#1")
	gone, err := f.store.FindChatByID(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.DeleteChat(ctx, gone.Ref()); err != nil {
		t.Fatal(err)
	}
	check("after a delete", "zqxw", 80, "big#2", "big#1")
	if c, ok := f.store.(interface{ CheckIndex(context.Context) error }); ok {
		if err := c.CheckIndex(ctx); err != nil {
			t.Errorf("the indexes are out of step with the entries: %v", err)
		}
	}
}

// testViewSubstringCalls: the reference stores a tool call's name, call id and arguments on the
// assistant row and the result on the tool row, so a substring is matched the same way here,
// newest entries and behind the walk alike, whatever the answer's projection.
func testViewSubstringCalls(t *testing.T, open Opener) {
	f := newViewFixture(t, open)
	a := as(member("A", "ua1", "aa1", annals.ScopeTenant, annals.ScopeUser))
	call := func(minute int, name, id, args, result string) *annals.Entry {
		e := ve(annals.KindTool, minute, "", "", "")
		e.Tool = &annals.ToolCall{Name: name, CallID: id, Arguments: json.RawMessage(args), Result: result}
		return e
	}
	f.chat("calls", "A", "ua1", "", 0,
		ve(annals.KindUser, 1, "", "", "look it up"),
		ve(annals.KindAssistant, 2, "", "", "on it"),
		call(3, "fetch_page", "call_7QZ", `{"q":"wombat"}`, "kestrel found"),
		call(4, "read_note", "call_8RT", `{"q":"otter"}`, "nothing"),
		ve(annals.KindUser, 5, "", "", "thanks"))
	deep := []*annals.Entry{
		ve(annals.KindAssistant, 0, "", "", "digging"),
		call(0, "dig", "call_deep", `{"where":"pangolin burrow"}`, "a pangolin result"),
	}
	for i := 0; i < 1200; i++ {
		deep = append(deep, ve(annals.KindUser, 10+i, "", "", fmt.Sprintf("filler line %d", i)))
	}
	f.chat("deep", "A", "ua1", "", 0, deep...)
	f.chat("b-calls", "B", "ub1", "", 0, ve(annals.KindUser, 1, "", "", "wombat kestrel fetch_page call_7QZ pangolin burrow"))
	for _, sel := range []string{"", `,"select":{"tool_calls":false}`} {
		for _, tc := range []struct {
			text string
			want []string
		}{
			{"wombat", []string{"calls#2"}},              // the arguments: the assistant's, not the tool's
			{"OTTER", []string{"calls#2"}},               // the second call's arguments too
			{"kestrel", []string{"calls#3"}},             // the result: the tool's
			{"fetch_pa", []string{"calls#3", "calls#2"}}, // the name: both
			{"pangolin burrow", []string{"deep#1"}},      // behind 1,200 newer entries: the index
			{"pangolin", []string{"deep#2", "deep#1"}},   // in the result and the arguments
			{"thanks", []string{"calls#5"}},              // a user message owns no calls
		} {
			body := `{"kind":"search","filter":{"text":` + mustJSON(tc.text) + `},"page":{"limit":80}` + sel + `}`
			if got := f.searchKeys(t, a, body); !slices.Equal(got, tc.want) {
				t.Errorf("%s = %v, want %v", body, got, tc.want)
			}
		}
	}
	testViewSubstringCallRoles(t, f, a)
}

// A role filter applies to the message matched, not to the call that holds the substring.
func testViewSubstringCallRoles(t *testing.T, f *viewFixture, a context.Context) {
	for body, want := range map[string][]string{
		`{"kind":"search","filter":{"text":"wombat","roles":["assistant"]}}`:  {"calls#2"},
		`{"kind":"search","filter":{"text":"wombat","roles":["tool"]}}`:       nil,
		`{"kind":"search","filter":{"text":"kestrel","roles":["assistant"]}}`: nil,
	} {
		if got := f.searchKeys(t, a, body); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s = %v, want %v", body, got, want)
		}
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
