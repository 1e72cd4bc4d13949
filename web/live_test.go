package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// TestLiveChat: entries captured into an open chat appear below a "new entries" divider
// without a reload and without moving the reader.
func TestLiveChat(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedLong(e, "long-1", 60)
	tb := newTab(t)
	tb.open(e.url + "/chats/long-1")
	tb.run(chromedpEval(`window.__samePage = true; window.scrollTo(0, 400)`))
	y := eval[float64](tb, `window.scrollY`)
	for i := 61; i <= 63; i++ {
		en := &annals.Entry{ID: fmt.Sprintf("live-%d", i), Kind: annals.KindAssistant, Text: fmt.Sprintf("live entry %d", i), RunID: "run-b", Time: t0}
		if _, err := annals.AppendEntries(context.Background(), e.db, "long-1", []*annals.Entry{en}); err != nil {
			t.Fatal(err)
		}
	}
	tb.waitFor("the live entries", `document.getElementById("e-63") !== null`)
	if !eval[bool](tb, `window.__samePage === true`) {
		t.Error("the page reloaded")
	}
	if got := eval[float64](tb, `window.scrollY`); got != y {
		t.Errorf("the reader moved from %v to %v", y, got)
	}
	order := eval[string](tb, `[...document.querySelectorAll("#transcript > li")].slice(-4).map(li => li.className).join(",")`)
	if order != "new-divider,entry assistant,entry assistant,entry assistant" {
		t.Errorf("the end of the transcript is %s", order)
	}
	if n := eval[int](tb, `document.querySelectorAll("li.run").length`); n != 2 {
		t.Errorf("%d run boundaries after the live entries, want 2 (the current run is not drawn again)", n)
	}
	if got := eval[string](tb, `document.querySelector("#e-62 .text").textContent`); got != "live entry 62" {
		t.Errorf("entry 62 reads %q", got)
	}
	// Tool calls arriving together come as one group, and the stream goes on after the group's
	// last call (not its first: nothing is sent twice).
	calls := []*annals.Entry{
		{ID: "live-64", Kind: annals.KindTool, RunID: "run-b", Time: t0, Tool: &annals.ToolCall{Name: "Read", Outcome: annals.OutcomeSucceeded}},
		{ID: "live-65", Kind: annals.KindTool, RunID: "run-b", Time: t0, Tool: &annals.ToolCall{Name: "Grep", Outcome: annals.OutcomeSucceeded}},
	}
	if _, err := annals.AppendEntries(context.Background(), e.db, "long-1", calls); err != nil {
		t.Fatal(err)
	}
	tb.waitFor("the live group", `document.querySelector("li.tool-group #e-65") !== null`)
	if _, err := annals.AppendEntries(context.Background(), e.db, "long-1", []*annals.Entry{{ID: "live-66", Kind: annals.KindUser, Text: "thanks", Time: t0}}); err != nil {
		t.Fatal(err)
	}
	tb.waitFor("the entry after the group", `document.getElementById("e-66") !== null`)
	if n := eval[int](tb, `document.querySelectorAll("#transcript li.entry").length`); n != 66 {
		t.Errorf("the page shows %d entries after the live ones, want 66 (each once)", n)
	}
}

// TestLiveList: a new chat and a chat with a new entry come to the top of an open list without
// a reload, below the pinned chat.
func TestLiveList(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedMany(e, 5)
	tb := newTab(t)
	tb.open(e.url + "/")
	tb.run(chromedpEval(`window.__samePage = true`))
	now := time.Now().UTC()
	e.chat(&annals.Chat{ID: "brand-new", Title: "A brand new chat", CreatedAt: now},
		&annals.Entry{Kind: annals.KindUser, Text: "hello", Time: now})
	tb.waitFor("the new chat", `document.querySelectorAll("#chats li.chat")[1].textContent.includes("A brand new chat")`)
	if _, err := annals.AppendEntries(context.Background(), e.db, "chat-001", []*annals.Entry{{ID: "late", Kind: annals.KindUser, Text: "later", Time: now.Add(time.Second)}}); err != nil {
		t.Fatal(err)
	}
	tb.waitFor("the changed chat on top", `document.querySelectorAll("#chats li.chat")[1].textContent.includes("Chat number 1\n") || document.querySelectorAll("#chats li.chat")[1].querySelector(".title").textContent.trim() === "Chat number 1"`)
	titles := eval[string](tb, `[...document.querySelectorAll("#chats li.chat .title")].map(a => a.textContent.trim()).join("|")`)
	if want := "📌 Chat number 2|Chat number 1|A brand new chat|Chat number 4|Chat number 3"; titles != want {
		t.Errorf("the list reads %q, want %q", titles, want)
	}
	if !eval[bool](tb, `window.__samePage === true`) {
		t.Error("the list reloaded")
	}
}
