package web_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// waitUntil polls cond (a state, not a duration: nothing here asserts timing) for up to 30 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLiveChatFedByCapture: with the store's poll set to an hour, entries captured through the
// HTTP API reach the open chat through the history's change feed alone, below the divider,
// without moving the reader.
func TestLiveChatFedByCapture(t *testing.T) {
	e := newEnv(t, envOptions{livePoll: time.Hour})
	seedLong(e, "long-1", 60)
	tb := newTab(t)
	tb.open(e.url + "/chats/long-1")
	tb.run(chromedpEval(`window.__samePage = true; window.scrollTo(0, 400)`))
	y := eval[float64](tb, `window.scrollY`)
	waitUntil(t, "the page's stream to watch the chat", func() bool { return e.svc.Watches() == 1 })
	for i := 61; i <= 63; i++ {
		body := fmt.Sprintf(`{"entries":[{"id":"live-%d","kind":"assistant","text":"captured entry %d","run_id":"run-b","time":"2026-01-01T00:00:00Z"}]}`, i, i)
		res, err := http.Post(e.url+"/v1/sessions/long-1/entries", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("capture answered %d", res.StatusCode)
		}
	}
	tb.waitFor("the captured entries", `document.getElementById("e-63") !== null`)
	if !eval[bool](tb, `window.__samePage === true`) {
		t.Error("the page reloaded")
	}
	if got := eval[float64](tb, `window.scrollY`); got != y {
		t.Errorf("the reader moved from %v to %v", y, got)
	}
	if got := eval[string](tb, `document.querySelector("#e-62 .text").textContent`); got != "captured entry 62" {
		t.Errorf("entry 62 reads %q", got)
	}
	if n := eval[int](tb, `document.querySelectorAll("#transcript li.new-divider").length`); n != 1 {
		t.Errorf("%d new-entries dividers, want 1", n)
	}
	if before := eval[bool](tb, `document.querySelector("li.new-divider").compareDocumentPosition(document.getElementById("e-61")) === Node.DOCUMENT_POSITION_FOLLOWING`); !before {
		t.Error("the captured entries are not below the divider")
	}
}

// TestLiveStreamsCloseTheirWatches: a chat's and the list's streams each hold one watch while
// the page is open, and leave no watch and no goroutine behind when it goes away.
func TestLiveStreamsCloseTheirWatches(t *testing.T) {
	e := newEnv(t, envOptions{livePoll: time.Hour})
	seedLong(e, "long-1", 4)
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	for _, path := range []string{"/chats/long-1/events?after=4", "/events?since=2026-01-01T00:00:00Z"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url+path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s answered %d", path, res.StatusCode)
		}
		go func() { _, _ = bufio.NewReader(res.Body).ReadString(0); res.Body.Close() }()
	}
	waitUntil(t, "two watches", func() bool { return e.svc.Watches() == 2 })
	// A write wakes both streams; the chat's sends the entry.
	if _, err := annals.AppendEntries(e.ownerCtx(), e.svc, "long-1", []*annals.Entry{{ID: "x", Kind: annals.KindUser, Text: "more", Time: t0}}); err != nil {
		t.Fatal(err)
	}
	cancel()
	waitUntil(t, "the watches to close", func() bool { return e.svc.Watches() == 0 })
	http.DefaultClient.CloseIdleConnections()
	waitUntil(t, fmt.Sprintf("the goroutines to fall back to %d", base), func() bool { return runtime.NumGoroutine() <= base })
}
