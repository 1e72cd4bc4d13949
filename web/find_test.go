package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/chromedp/chromedp"
)

// typeIn types s into the field sel as a person would, key by key ("\r" is Enter).
func (tb *tab) typeIn(sel, s string) {
	tb.t.Helper()
	tb.run(chromedp.SendKeys(chromedp.CSS(sel), s))
}

// seedFind stores a 300-entry chat whose entries 5, 150 and 290 hold the word "needle" (only the
// first is on the first page), and a chat whose id starts with the first one's, holding it too.
func seedFind(e *env) {
	e.t.Helper()
	var entries []*annals.Entry
	for i := 1; i <= 300; i++ {
		text := fmt.Sprintf("filler message %d", i)
		if i == 5 || i == 150 || i == 290 {
			text = fmt.Sprintf("the Needle is here, at %d", i)
		}
		kind := annals.KindUser
		if i%2 == 0 {
			kind = annals.KindAssistant
		}
		entries = append(entries, &annals.Entry{Kind: kind, Text: text})
	}
	e.chat(&annals.Chat{ID: "find-1", Title: "A haystack", CreatedAt: t0}, entries...)
	e.chat(&annals.Chat{ID: "find-1b", Title: "Another haystack", CreatedAt: t0},
		&annals.Entry{Kind: annals.KindUser, Text: "a needle in the other chat"})
}

// TestFindInChat: a find counts the chat's matches, loaded or not, moves between them with
// Enter, Shift+Enter and the buttons, lands on a match beyond the loaded page (loading the page
// around it) and highlights it and its words; a query the language refuses is shown beside
// the box.
func TestFindInChat(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedFind(e)
	tb := newTab(t)
	tb.open(e.url + "/chats/find-1")
	if tb.run(chromedpEval(`window.__samePage = true`)); eval[bool](tb, `document.getElementById("e-150") !== null`) {
		t.Fatal("entry 150 is on the first page; the test needs it beyond")
	}
	tb.run(chromedpClick("#find-input"))
	tb.typeIn("#find-input", "needle")
	tb.waitFor("the first match", `document.querySelector("#e-5.find-current") !== null`)
	if got := eval[string](tb, `document.getElementById("find-count").textContent`); got != "1 of 3 matches" {
		t.Errorf("the count reads %q, want 1 of 3 matches (the other chat's match is not counted)", got)
	}
	if !eval[bool](tb, `CSS.highlights.get("find").size >= 1`) {
		t.Error("the matched word is not highlighted")
	}
	tb.typeIn("#find-input", "\r")
	tb.waitFor("the match beyond the page", `document.querySelector("#e-150.find-current") !== null`)
	if got := eval[string](tb, `document.getElementById("find-count").textContent`); got != "2 of 3 matches" {
		t.Errorf("the count reads %q, want 2 of 3 matches", got)
	}
	if !eval[bool](tb, `(() => { const r = document.getElementById("e-150").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight })()`) {
		t.Error("the match is not in view")
	}
	tb.run(chromedpClick("#find-next"))
	tb.waitFor("the last match", `document.querySelector("#e-290.find-current") !== null`)
	tb.run(chromedpClick("#find-next"))
	tb.waitFor("back to the first match", `document.querySelector("#e-5.find-current") !== null`)
	tb.run(chromedpClick("#find-prev"))
	tb.waitFor("back to the last match", `document.querySelector("#e-290.find-current") !== null`)
	if n := eval[int](tb, `document.querySelectorAll("#transcript .find-current").length`); n != 1 {
		t.Errorf("%d entries are marked current, want 1", n)
	}
	if !eval[bool](tb, `window.__samePage === true`) {
		t.Error("moving between matches reloaded the page")
	}
	// The keyboard: n and N outside the box.
	tb.run(chromedpEval(`document.getElementById("find-input").blur()`))
	tb.key("n")
	tb.waitFor("n to the next match", `document.querySelector("#e-5.find-current") !== null`)
	tb.key("N")
	tb.waitFor("N to the previous match", `document.querySelector("#e-290.find-current") !== null`)
	// A refused query is shown, not a match.
	tb.run(chromedpEval(`document.getElementById("find-input").value = ""`))
	tb.typeIn("#find-input", "role:bot")
	tb.waitFor("the refusal", `document.getElementById("find-count").classList.contains("error")`)
	if got := eval[string](tb, `document.getElementById("find-count").textContent`); !strings.Contains(got, "bot") {
		t.Errorf("the refusal reads %q", got)
	}
}

// TestFindAnswersInScope: find answers the chat's match positions as JSON, the not-found of a
// missing chat otherwise, and a refusal for a bad query.
func TestFindAnswersInScope(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedFind(e)
	c := client(t)
	a := do(t, c, "GET", e.url+"/chats/find-1/find?q=needle", nil, nil)
	var got struct {
		Seqs  []int64 `json:"seqs"`
		Total int     `json:"total"`
		Error string  `json:"error"`
	}
	if err := json.Unmarshal([]byte(a.body), &got); a.status != 200 || err != nil {
		t.Fatalf("find: %d %q %v", a.status, a.body, err)
	}
	if fmt.Sprint(got.Seqs) != "[5 150 290]" || got.Total != 3 {
		t.Errorf("find answers %+v, want seqs 5 150 290 of 3", got)
	}
	if a := do(t, c, "GET", e.url+"/chats/nope/find?q=needle", nil, nil); a.status != 404 {
		t.Errorf("find in a missing chat: %d %q", a.status, a.body)
	}
	a = do(t, c, "GET", e.url+"/chats/find-1/find?q=role:bot", nil, nil)
	if err := json.Unmarshal([]byte(a.body), &got); err != nil || got.Error == "" || len(got.Seqs) != 0 {
		t.Errorf("a refused query: %q", a.body)
	}
}

// TestToolGroups: consecutive tool calls of one turn show as one group, with the tools, whether
// they overlapped, how long the group took (from the calls' recorded result times) and what
// failed; a call alone shows its own duration.
func TestToolGroups(t *testing.T) {
	e := newEnv(t, envOptions{})
	at := func(d time.Duration) string {
		return fmt.Sprintf(`{%q:%q}`, annals.MetaResultTime, t0.Add(d).Format(time.RFC3339Nano))
	}
	e.chat(&annals.Chat{ID: "tools-1", Title: "Tools", CreatedAt: t0},
		&annals.Entry{Kind: annals.KindUser, Text: "look around", Time: t0, RunID: "r1"},
		&annals.Entry{Kind: annals.KindTool, Time: t0, RunID: "r1", Metadata: json.RawMessage(at(2 * time.Second)),
			Tool: &annals.ToolCall{Name: "Read", Arguments: json.RawMessage(`{"file_path":"/a.go"}`), Outcome: annals.OutcomeSucceeded}},
		&annals.Entry{Kind: annals.KindTool, Time: t0.Add(500 * time.Millisecond), RunID: "r1", Metadata: json.RawMessage(at(1500 * time.Millisecond)),
			Tool: &annals.ToolCall{Name: "Read", Arguments: json.RawMessage(`{"file_path":"/b.go"}`), Outcome: annals.OutcomeSucceeded}},
		&annals.Entry{Kind: annals.KindTool, Time: t0.Add(2500 * time.Millisecond), RunID: "r1", Metadata: json.RawMessage(at(4500 * time.Millisecond)),
			Tool: &annals.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"go vet"}`), Outcome: annals.OutcomeFailed}},
		&annals.Entry{Kind: annals.KindAssistant, Text: "vet failed", Time: t0.Add(5 * time.Second), RunID: "r1"},
		&annals.Entry{Kind: annals.KindTool, Time: t0.Add(6 * time.Second), RunID: "r1", Metadata: json.RawMessage(fmt.Sprintf(`{%q:850}`, annals.MetaDurationMS)),
			Tool: &annals.ToolCall{Name: "Grep", Arguments: json.RawMessage(`{"pattern":"TODO"}`), Outcome: annals.OutcomeSucceeded}},
	)
	tb := newTab(t)
	tb.open(e.url + "/chats/tools-1")
	if n := eval[int](tb, `document.querySelectorAll("#transcript li.tool-group").length`); n != 1 {
		t.Fatalf("%d tool groups, want 1", n)
	}
	line := eval[string](tb, `document.querySelector("li.tool-group > details > summary").textContent.replace(/\s+/g, " ").trim()`)
	if want := "3 tool calls Read ×2, Bash in parallel 4.5 s 1 failed"; line != want {
		t.Errorf("the group's line reads %q, want %q", line, want)
	}
	calls := eval[string](tb, `[...document.querySelectorAll("li.tool-group li.entry")].map(li => li.id).join(",")`)
	if calls != "e-2,e-3,e-4" {
		t.Errorf("the group holds %s, want e-2,e-3,e-4", calls)
	}
	if got := eval[string](tb, `document.querySelector("#e-2 .took").textContent`); got != "2.0 s" {
		t.Errorf("the first call took %q, want 2.0 s", got)
	}
	if got := eval[string](tb, `document.querySelector("#e-6 .took").textContent`); got != "850 ms" {
		t.Errorf("the call alone took %q, want 850 ms", got)
	}
	if eval[bool](tb, `document.querySelector("#e-6").closest("li.tool-group") !== null`) {
		t.Error("a call alone was grouped")
	}
	// A permalink into a folded group opens it.
	tb.run(chromedpEval(`document.querySelector("li.tool-group > details").open = false`))
	tb.run(chromedpClick("#find-input"))
	tb.typeIn("#find-input", "tool:Bash")
	tb.waitFor("the call inside the group", `document.querySelector("#e-4.find-current") !== null && document.querySelector("li.tool-group > details").open`)
	tb.screenshot("tools")
}

// TestFindInChatKeepsToThatChat: find in chat abc counts and marks abc's matches only, though
// chat abcdef (whose id starts with abc's) holds more matches, newer, at other positions.
func TestFindInChatKeepsToThatChat(t *testing.T) {
	e := newEnv(t, envOptions{})
	var mine, theirs []*annals.Entry
	for i := 1; i <= 6; i++ {
		text, other := "plain words", "plain words"
		if i == 1 || i == 3 {
			text = fmt.Sprintf("a needle at %d", i)
		}
		if i%2 == 0 {
			other = fmt.Sprintf("the other chat's needle at %d", i)
		}
		mine = append(mine, &annals.Entry{Kind: annals.KindUser, Text: text})
		theirs = append(theirs, &annals.Entry{Kind: annals.KindUser, Text: other})
	}
	e.chat(&annals.Chat{ID: "abc", Title: "Short id", CreatedAt: t0}, mine...)
	e.chat(&annals.Chat{ID: "abcdef", Title: "Longer id", CreatedAt: t0.Add(time.Hour)}, theirs...)
	tb := newTab(t)
	tb.open(e.url + "/chats/abc")
	tb.run(chromedpClick("#find-input"))
	tb.typeIn("#find-input", "needle")
	tb.waitFor("the first match", `document.querySelector("#e-1.find-current") !== null`)
	if got := eval[string](tb, `document.getElementById("find-count").textContent`); got != "1 of 2 matches" {
		t.Errorf("the count reads %q, want 1 of 2 matches (abcdef's three are not abc's)", got)
	}
	if got := eval[string](tb, `[...document.querySelectorAll("#transcript li.find-hit")].map(el => el.id).join(" ")`); got != "e-1 e-3" {
		t.Errorf("the marked matches are %q, want e-1 e-3", got)
	}
	tb.typeIn("#find-input", "\r")
	tb.waitFor("the second match", `document.querySelector("#e-3.find-current") !== null`)
	tb.typeIn("#find-input", "\r")
	tb.waitFor("back to the first match", `document.querySelector("#e-1.find-current") !== null`)
}
