package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// seedMany stores n chats: every third from codex (the rest claude-code), every fourth tagged
// "review", one pinned, one archived.
func seedMany(e *env, n int) {
	e.t.Helper()
	for i := 1; i <= n; i++ {
		src, agent := "claude-code", "builder"
		if i%3 == 0 {
			src, agent = "codex", "reviewer"
		}
		c := &annals.Chat{ID: fmt.Sprintf("chat-%03d", i), Title: fmt.Sprintf("Chat number %d", i), AgentID: agent,
			CreatedAt: t0.Add(time.Duration(i) * time.Hour), Attributes: annals.Attributes{"source": src, "cwd": fmt.Sprintf("/src/proj%d", i%2)}}
		if i%4 == 0 {
			c.Tags = []string{"review"}
		}
		e.chat(c, &annals.Entry{Kind: annals.KindUser, Text: fmt.Sprintf("hello %d", i), InputTokens: int64(i * 100)})
	}
	ctx := e.ownerCtx()
	if _, err := e.svc.PinChat(ctx, annals.ChatSelector{ID: "chat-002"}, true); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.svc.ArchiveChat(ctx, annals.ChatSelector{ID: "chat-005"}, true); err != nil {
		e.t.Fatal(err)
	}
}

func TestChatList(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedMany(e, 70)
	tb := newTab(t)
	tb.open(e.url + "/")
	tb.waitFor("the list", `document.querySelectorAll("#chats li.chat").length > 0`)
	titles := func() []string {
		return strings.Split(eval[string](tb, `[...document.querySelectorAll("#chats li.chat .title")].map(a => a.textContent.trim()).join("|")`), "|")
	}
	got := titles()
	if len(got) != 50 || !strings.HasSuffix(got[0], "Chat number 2") || got[1] != "Chat number 70" {
		t.Fatalf("the first page: %d chats, starting %q", len(got), got[:2])
	}
	row := eval[string](tb, `document.querySelector("#chats li.chat:nth-child(2) .meta").textContent.replace(/\s+/g, " ").trim()`)
	for _, want := range []string{"claude-code", "builder", "1 entry", "7.0k tokens"} {
		if !strings.Contains(row, want) {
			t.Errorf("a row's figures %q lack %q", row, want)
		}
	}
	tb.screenshot("list")
	// The next page joins the list without a reload.
	tb.run(chromedpEval(`window.__samePage = true`))
	tb.run(chromedpEval(`document.querySelector("a[data-more=rows]").scrollIntoView()`))
	tb.waitFor("the second page", `document.querySelectorAll("#chats li.chat").length === 69`)
	if !eval[bool](tb, `window.__samePage === true`) {
		t.Error("the next page reloaded the list")
	}
	for _, title := range titles() {
		if title == "Chat number 5" {
			t.Error("the archived chat is listed without asking")
		}
	}
	// Filters: source tool, tag, archived.
	for _, c := range []struct {
		query string
		n     int
	}{{"?tool=codex", 23}, {"?tag=review", 17}, {"?tool=codex&tag=review", 5}, {"?folder=proj1&archived=on", 35}, {"?agent=reviewer", 23}, {"?from=2026-04-03", 32}} {
		tb.open(e.url + "/" + c.query)
		tb.waitFor("the filtered list", `document.querySelector("h1 .count") !== null`)
		if n := eval[int](tb, `+document.querySelector("h1 .count").textContent`); n != c.n {
			t.Errorf("%s: %d chats, want %d", c.query, n, c.n)
		}
	}
	// The form fills the filters in.
	tb.open(e.url + "/")
	tb.run(chromedpEval(`document.querySelector("input[name=tool]").value = "codex"; document.querySelector("form.filters").requestSubmit()`))
	tb.waitFor("the filtered list", `location.search.includes("tool=codex") && document.querySelector("h1 .count").textContent === "23"`)
	// A bad filter is shown beside the form, not as a failed page.
	tb.open(e.url + "/?status=sideways")
	if msg := eval[string](tb, `document.querySelector(".list-page .error").textContent`); !strings.Contains(msg, `unknown status "sideways"`) {
		t.Errorf("a bad status shows %q", msg)
	}
}
