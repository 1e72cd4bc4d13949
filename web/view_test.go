package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

var t0 = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

// seedLong stores a chat of n entries in two runs: every tenth a tool call, one of them an
// edit, one with a long result, and the assistant's with reasoning.
func seedLong(e *env, id string, n int) {
	e.t.Helper()
	var entries []*annals.Entry
	for i := 1; i <= n; i++ {
		en := &annals.Entry{Kind: annals.KindAssistant, Text: fmt.Sprintf("answer number %d", i), RunID: "run-a"}
		if i > n/2 {
			en.RunID = "run-b"
		}
		switch {
		case i%2 == 1:
			en.Kind, en.Text = annals.KindUser, fmt.Sprintf("question number %d", i)
		case i == 4:
			en.Kind, en.Text = annals.KindTool, ""
			en.Tool = &annals.ToolCall{Name: "Edit", Outcome: annals.OutcomeSucceeded,
				Arguments: json.RawMessage(`{"file_path":"/src/app/main.go","old_string":"func main() {\n\tprintln(\"hi\")\n}","new_string":"func main() {\n\tprintln(\"hello\")\n}"}`),
				Result:    "The file was edited."}
		case i == 6:
			en.Kind, en.Text = annals.KindTool, ""
			en.Tool = &annals.ToolCall{Name: "Bash", Outcome: annals.OutcomeFailed,
				Arguments: json.RawMessage(`{"command":"go test ./...","timeout":120}`),
				Result:    strings.Repeat("--- FAIL: TestSomething\n", 200) + "the last line"}
		case i%10 == 0:
			en.Reasoning = fmt.Sprintf("thinking about %d", i)
		}
		entries = append(entries, en)
	}
	e.chat(&annals.Chat{ID: id, Title: "A long chat", CreatedAt: t0, Attributes: annals.Attributes{"source": "claude-code", "cwd": "/src/app"}}, entries...)
	end := t0.Add(time.Hour)
	e.run(&annals.Run{ID: "run-a", ChatID: id, Status: annals.StatusCompleted, Model: "model-alpha", StartedAt: t0, EndedAt: &end, InputTokens: 1200, OutputTokens: 340, CostUSD: 0.42,
		CacheReadTokens: 900, CacheCreationTokens: 200, ContextTokens: 1200})
	e.run(&annals.Run{ID: "run-b", ChatID: id, Status: annals.StatusCompleted, Model: "model-beta", StartedAt: t0.Add(time.Hour), InputTokens: 5, OutputTokens: 7})
}

func TestChatView(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedLong(e, "long-1", 250)
	tb := newTab(t)
	tb.open(e.url + "/chats/long-1")
	tb.waitFor("the transcript", `document.getElementById("e-1") !== null`)
	if n := eval[int](tb, `document.querySelectorAll("li.entry").length`); n != 100 {
		t.Errorf("the first page shows %d entries, want 100 (one page)", n)
	}
	// A tool call is one line: name, the argument that matters, the outcome; folded.
	line := eval[string](tb, `document.querySelector("#e-6 summary").textContent.replace(/\s+/g, " ").trim()`)
	if line != "Bash go test ./... failed" {
		t.Errorf("the tool call's line is %q", line)
	}
	if eval[bool](tb, `document.querySelector("#e-6 details.tool-call").open`) || eval[bool](tb, `document.querySelector("#e-10 details.reasoning").open`) {
		t.Error("a tool call or reasoning is open by default")
	}
	tb.run(chromedpClick("#e-6 summary"))
	tb.waitFor("the arguments", `document.querySelector("#e-6 pre.args").offsetParent !== null`)
	// The long result is cut, with the rest behind "show all".
	if got := eval[string](tb, `document.querySelector("#e-6 .show-all summary").textContent`); got != "show all (201 lines)" {
		t.Errorf("show all reads %q", got)
	}
	if eval[bool](tb, `document.querySelector("#e-6 .head").textContent.includes("the last line")`) {
		t.Error("the cut head holds the end of the result")
	}
	// The edit is a diff.
	tb.run(chromedpClick("#e-4 summary"))
	del := eval[string](tb, `[...document.querySelectorAll("#e-4 .diff .d-del")].map(s => s.textContent).join("|")`)
	add := eval[string](tb, `[...document.querySelectorAll("#e-4 .diff .d-add")].map(s => s.textContent).join("|")`)
	if del != "\tprintln(\"hi\")" || add != "\tprintln(\"hello\")" {
		t.Errorf("the diff removes %q and adds %q", del, add)
	}
	// Run boundaries name the model, tokens and cost.
	runs := eval[string](tb, `[...document.querySelectorAll("li.run")].map(r => r.textContent.replace(/\s+/g, " ")).join("|")`)
	if !strings.Contains(runs, "model-alpha") || !strings.Contains(runs, "1.2k in (900 cache read, 200 cache write) / 340 out · context 1.2k") || !strings.Contains(runs, "$0.42") {
		t.Errorf("the first run's boundary reads %q", runs)
	}
	tb.screenshot("chat")
	// Scrolling down loads the next pages in place.
	tb.run(chromedpEval(`window.__samePage = true`))
	for _, seq := range []int{200, 250} {
		tb.run(chromedpEval(`document.querySelector("a[data-more=later]").scrollIntoView()`))
		tb.waitFor(fmt.Sprintf("entry %d", seq), fmt.Sprintf(`document.getElementById("e-%d") !== null`, seq))
	}
	if n := eval[int](tb, `document.querySelectorAll("li.entry").length`); n != 250 {
		t.Errorf("after scrolling the page shows %d entries, want 250", n)
	}
	if n := eval[int](tb, `document.querySelectorAll("li.run").length`); n != 2 {
		t.Errorf("%d run boundaries, want 2 (one per run, across pages)", n)
	}
	if !eval[bool](tb, `window.__samePage === true`) {
		t.Error("loading more reloaded the page")
	}
}

func TestPermalink(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedLong(e, "long-1", 250)
	tb := newTab(t)
	// Beyond the first page: the page around the entry opens, scrolled to it, highlighted.
	tb.open(e.url + "/chats/long-1#e-230")
	tb.waitFor("the permalink's entry", `document.getElementById("e-230") !== null`)
	tb.waitFor("the entry as the target", `document.querySelector(":target") && document.querySelector(":target").id === "e-230"`)
	if !eval[bool](tb, `(() => { const r = document.getElementById("e-230").getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight })()`) {
		t.Error("the permalink's entry is not in view")
	}
	if bg := eval[string](tb, `getComputedStyle(document.getElementById("e-230")).outlineStyle`); bg == "none" {
		t.Error("the permalink's entry is not highlighted")
	}
	// Above the window, the earlier entries load on demand.
	tb.run(chromedpClick("a[data-more=earlier]"))
	tb.waitFor("the entries above", `document.getElementById("e-150") !== null`)
	// Every entry carries its own permalink.
	if got := eval[string](tb, `document.querySelector("#e-231 a.permalink").getAttribute("href")`); got != "#e-231" {
		t.Errorf("entry 231's permalink is %q", got)
	}
}

func TestChatMissingAndBadInput(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := client(t)
	a := do(t, c, "GET", e.url+"/chats/nope", nil, nil)
	if a.status != 404 || !strings.Contains(a.body, "Not found") || a.header.Get("Content-Security-Policy") == "" {
		t.Errorf("a missing chat: %d %q", a.status, a.body)
	}
	seedLong(e, "long-1", 10)
	a = do(t, c, "GET", e.url+"/chats/long-1?at=abc", nil, nil)
	if a.status != 400 || !strings.Contains(a.body, "at=&#34;abc&#34; is not an entry&#39;s position") {
		t.Errorf("a bad at: %d %q", a.status, a.body)
	}
}
