package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// seedCosts stores chat "priced", whose first run recorded its cost ($0.42) and whose second
// recorded 1M input tokens of gpt-4o and no cost (the built-in table's $2.50), and chat
// "recorded" whose only run recorded $1.00.
func seedCosts(e *env) {
	e.t.Helper()
	e.chat(&annals.Chat{ID: "priced", Title: "Partly priced", CreatedAt: t0},
		&annals.Entry{Kind: annals.KindUser, Text: "first question", RunID: "run-1"},
		&annals.Entry{Kind: annals.KindAssistant, Text: "first answer", RunID: "run-1"},
		&annals.Entry{Kind: annals.KindUser, Text: "second question", RunID: "run-2"},
		&annals.Entry{Kind: annals.KindAssistant, Text: "second answer", RunID: "run-2"})
	e.run(&annals.Run{ID: "run-1", ChatID: "priced", Status: annals.StatusCompleted, Model: "claude-sonnet-4", StartedAt: t0, InputTokens: 1000, OutputTokens: 100, CostUSD: 0.42})
	e.run(&annals.Run{ID: "run-2", ChatID: "priced", Status: annals.StatusCompleted, Model: "gpt-4o-2024-08-06", StartedAt: t0.Add(time.Minute), InputTokens: 1_000_000})
	e.chat(&annals.Chat{ID: "recorded", Title: "Fully recorded", CreatedAt: t0.Add(time.Hour)},
		&annals.Entry{Kind: annals.KindUser, Text: "a question", RunID: "run-3"})
	e.run(&annals.Run{ID: "run-3", ChatID: "recorded", Status: annals.StatusCompleted, Model: "gpt-4o", StartedAt: t0.Add(time.Hour), InputTokens: 10, CostUSD: 1})
}

// TestCostsAreEstimatedWhereOnlyTokensWereRecorded: the list and the chat's header show a
// chat's cost with the pricing table's estimate of its uncosted runs, marked estimated; a run
// boundary shows its own recorded or estimated cost; a fully recorded chat is not marked.
func TestCostsAreEstimatedWhereOnlyTokensWereRecorded(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedCosts(e)
	tb := newTab(t)
	tb.open(e.url + "/")
	rowCost := func(title string) string {
		return eval[string](tb, `(() => { const li = [...document.querySelectorAll("#chats li.chat")].find(li => li.textContent.includes(`+jsString(title)+`));
			const c = li && li.querySelector(".cost"); return c ? c.className + "|" + c.textContent : "" })()`)
	}
	if got := rowCost("Partly priced"); got != "cost estimated|$2.92 (estimated)" {
		t.Errorf("the partly priced row's cost is %q, want $0.42 recorded + $2.50 estimated, marked", got)
	}
	if got := rowCost("Fully recorded"); got != "cost|$1.00" {
		t.Errorf("the recorded row's cost is %q, want $1.00 unmarked", got)
	}
	tb.open(e.url + "/chats/priced")
	if got := eval[string](tb, `document.querySelector("#chat-head .cost").textContent`); got != "$2.92 (estimated)" {
		t.Errorf("the header's cost is %q, want $2.92 (estimated)", got)
	}
	runs := eval[string](tb, `[...document.querySelectorAll("#transcript li.run")].map(li => li.textContent.replace(/\s+/g, " ")).join("\n")`)
	lines := strings.Split(runs, "\n")
	if len(lines) != 2 {
		t.Fatalf("run boundaries:\n%s\nwant two", runs)
	}
	for i, want := range [][]string{{"claude-sonnet-4", "1.0k in / 100 out", "$0.42"}, {"gpt-4o-2024-08-06", "1.0M in / 0 out", "$2.50 (estimated)"}} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("run boundary %d reads %q, want %q in it", i+1, lines[i], w)
			}
		}
	}
	if strings.Contains(lines[0], "estimated") {
		t.Errorf("the recorded run is marked estimated: %q", lines[0])
	}
}

// TestLiveRowsKeepTheirEstimatedCost: a row the list's live stream re-renders (its chat grew)
// shows the same recorded-plus-estimated cost as the page did, not the recorded part alone.
func TestLiveRowsKeepTheirEstimatedCost(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedCosts(e)
	tb := newTab(t)
	tb.open(e.url + "/")
	tb.run(chromedpEval(`window.__samePage = true`))
	if _, err := annals.AppendEntries(context.Background(), e.db, "priced", []*annals.Entry{
		{ID: "m-live", Kind: annals.KindAssistant, Text: "a later answer", RunID: "run-2", Time: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	tb.waitFor("the live row of the grown chat", `[...document.querySelectorAll("#chats li.chat")].some(li => li.textContent.includes("Partly priced") && /\b5 entries\b/.test(li.textContent))`)
	if !eval[bool](tb, `window.__samePage === true`) {
		t.Fatal("the page reloaded; the row was not re-rendered by the live stream")
	}
	got := eval[string](tb, `(() => { const li = [...document.querySelectorAll("#chats li.chat")].find(li => li.textContent.includes("Partly priced"));
		const c = li && li.querySelector(".cost"); return c ? c.className + "|" + c.textContent : "" })()`)
	if got != "cost estimated|$2.92 (estimated)" {
		t.Errorf("the live row's cost is %q, want $0.42 recorded + $2.50 estimated, marked", got)
	}
}

// TestRunBoundariesShowCacheAndContext: a run boundary shows the part of its prompt read from
// and written to the cache, the context's size, and the estimate that prices the cache at its
// own rates: 1M prompt tokens of claude-sonnet-4-5, 500k read from the cache and 250k written,
// cost 250k × $3 + 500k × $0.30 + 250k × $3.75 per million = $1.84 (not $3.00, the prompt at
// the input price).
func TestRunBoundariesShowCacheAndContext(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.chat(&annals.Chat{ID: "cached", Title: "Mostly cached", CreatedAt: t0},
		&annals.Entry{Kind: annals.KindUser, Text: "a question", RunID: "run-c"},
		&annals.Entry{Kind: annals.KindAssistant, Text: "an answer", RunID: "run-c"})
	e.run(&annals.Run{ID: "run-c", ChatID: "cached", Status: annals.StatusCompleted, Model: "claude-sonnet-4-5", StartedAt: t0,
		InputTokens: 1_000_000, CacheReadTokens: 500_000, CacheCreationTokens: 250_000, ContextTokens: 120_000, OutputTokens: 300})
	tb := newTab(t)
	tb.open(e.url + "/chats/cached")
	line := eval[string](tb, `document.querySelector("#transcript li.run").textContent.replace(/\s+/g, " ")`)
	for _, want := range []string{"1.0M in (500k cache read, 250k cache write) / 300 out", "context 120k", "$1.84 (estimated)"} {
		if !strings.Contains(line, want) {
			t.Errorf("the run boundary reads %q, want %q in it", line, want)
		}
	}
	if got := eval[string](tb, `document.querySelector("#chat-head .cost").textContent`); got != "$1.84 (estimated)" {
		t.Errorf("the header's cost is %q, want $1.84 (estimated)", got)
	}
}
