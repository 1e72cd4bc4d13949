package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// seedStraddle stores a 150-entry chat whose entries 98 to 104 are consecutive tool calls of one
// turn: a group across the first page's end (entry 100).
func seedStraddle(e *env) {
	e.t.Helper()
	var entries []*annals.Entry
	for i := 1; i <= 150; i++ {
		if i >= 98 && i <= 104 {
			entries = append(entries, &annals.Entry{Kind: annals.KindTool, Tool: &annals.ToolCall{Name: "Read",
				Arguments: []byte(fmt.Sprintf(`{"file_path":"f%d.go"}`, i)), Result: "ok", Outcome: annals.OutcomeSucceeded}})
			continue
		}
		kind := annals.KindUser
		if i%2 == 0 {
			kind = annals.KindAssistant
		}
		entries = append(entries, &annals.Entry{Kind: kind, Text: fmt.Sprintf("message %d", i)})
	}
	e.chat(&annals.Chat{ID: "straddle", Title: "A group across pages", CreatedAt: t0}, entries...)
}

// groupsOnPage is each tool group's calls on the page, as "e-98 e-99 ...", one group a line.
const groupsOnPage = `[...document.querySelectorAll("#transcript li.tool-group")].map(g => [...g.querySelectorAll("li.entry")].map(li => li.id).join(" ")).join("\n")`

const wholeGroup = "e-98 e-99 e-100 e-101 e-102 e-103 e-104"

// TestAToolGroupAcrossPagesIsOneGroup: a group of calls that straddles the first page's end is
// drawn once, whole, on the first page (which reads on to the group's end), and loading the
// next page adds no second group; a page that would start inside the group (a permalink's
// window) starts at its first call, and the page above it stops before the group.
func TestAToolGroupAcrossPagesIsOneGroup(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedStraddle(e)
	tb := newTab(t)
	tb.open(e.url + "/chats/straddle")
	if got := eval[string](tb, groupsOnPage); got != wholeGroup {
		t.Errorf("the first page's groups:\n%s\nwant one group of entries 98 to 104", got)
	}
	if got := eval[string](tb, `document.querySelector("#transcript li.tool-group .group-count").textContent`); got != "7 tool calls" {
		t.Errorf("the group's line reads %q, want 7 tool calls", got)
	}
	tb.run(chromedpEval(`document.querySelector("a[data-more=later]").scrollIntoView()`))
	tb.waitFor("the next page", `document.getElementById("e-150") !== null`)
	if got := eval[string](tb, groupsOnPage); got != wholeGroup {
		t.Errorf("after the next page, the groups:\n%s\nwant the one group", got)
	}
	if n := eval[int](tb, `document.querySelectorAll("#transcript li.entry").length`); n != 150 {
		t.Errorf("the transcript shows %d entries, want 150 (none twice, none missing)", n)
	}
	// A permalink to 142: its window would start after entry 101, inside the group.
	tb.open(e.url + "/chats/straddle?at=142#e-142")
	if got := eval[string](tb, groupsOnPage); got != wholeGroup {
		t.Errorf("the permalink's page groups:\n%s\nwant the whole group", got)
	}
	tb.run(chromedpClick("a[data-more=earlier]"))
	tb.waitFor("the page above", `document.getElementById("e-1") !== null`)
	if got := eval[string](tb, groupsOnPage); got != wholeGroup {
		t.Errorf("with the page above, the groups:\n%s\nwant the one group", got)
	}
	ids := eval[string](tb, `[...document.querySelectorAll("#transcript li.entry")].map(li => li.id).join(" ")`)
	if n := len(strings.Fields(ids)); n != 150 {
		t.Errorf("the transcript shows %d entries, want 150", n)
	}
}

// TestAPageInsertedCarriesOnlyItsOuterLink: the page above the reader's first page has no link
// to the page below it (that page is the reader's), and the page below none to the page above;
// a link there was loaded again when it came into view and drew its entries twice.
func TestAPageInsertedCarriesOnlyItsOuterLink(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedStraddle(e)
	c := client(t)
	for _, tc := range []struct {
		u          string
		want, not  string
		firstEntry string
	}{
		{"/chats/straddle/entries?before=98", `data-more="earlier"`, `data-more="later"`, `id="e-1"`},
		{"/chats/straddle/entries?before=120", `data-more="earlier"`, `data-more="later"`, `id="e-20"`},
		{"/chats/straddle/entries?after=20", `data-more="later"`, `data-more="earlier"`, `id="e-21"`},
	} {
		a := do(t, c, "GET", e.url+tc.u, nil, map[string]string{"X-Fragment": "1"})
		if a.status != 200 || !strings.Contains(a.body, tc.firstEntry) {
			t.Fatalf("GET %s = %d, want its entries from %s\n%s", tc.u, a.status, tc.firstEntry, a.body)
		}
		if strings.Contains(a.body, tc.not) {
			t.Errorf("GET %s links back to the reader's own page (%s)", tc.u, tc.not)
		}
		if tc.u != "/chats/straddle/entries?before=98" && !strings.Contains(a.body, tc.want) {
			t.Errorf("GET %s has no link onward (%s)", tc.u, tc.want)
		}
	}
}
