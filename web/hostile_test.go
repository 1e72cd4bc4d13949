package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// hostileID is a chat id that tries to leave its URL and its attribute.
const hostileID = `javascript:alert(1)//"><img src=x onerror=alert(2)>/..`

// hostileCwd is a folder that tries to end the resume command's cd and run its own.
const hostileCwd = `/tmp/x'; <img src=x onerror=alert("cwd")> $(touch /tmp/pwned)`

// seedHostile stores a chat whose every field tries to run script in the page.
func seedHostile(e *env) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	e.chat(&annals.Chat{
		ID: hostileID, Title: `<script>alert("title")</script>`, CreatedAt: at,
		Description: `<img src=x onerror=alert("desc")>`, Tags: []string{`<b onmouseover=alert(1)>t</b>`},
		Attributes: annals.Attributes{"source": `<svg onload=alert("src")>`, "cwd": hostileCwd,
			"resume_command": `claude --resume "<script>alert('resume')</script>"`},
	},
		&annals.Entry{Kind: annals.KindUser, Text: `<script>alert("user")</script><img src=x onerror=alert("img")>`, RunID: "run-h1"},
		&annals.Entry{Kind: annals.KindAssistant, RunID: "run-h2", Text: "[click](javascript:alert(3)) <a href=\"javascript:alert(4)\">link</a>\n\x1b[31mred\x1b]52;c;ZXZpbA==\x07 \u202eevil",
			Reasoning: `<iframe src="javascript:alert('reasoning')"></iframe>`},
		&annals.Entry{Kind: annals.KindSystem, Text: `<svg xmlns="http://www.w3.org/2000/svg" onload="alert('svg')"><script>alert('in svg')</script></svg>`},
		&annals.Entry{Kind: annals.KindTool, Tool: &annals.ToolCall{
			Name:      `<img src=x onerror=alert("tool")>`,
			Arguments: json.RawMessage(`{"command":"<svg/onload=alert('cmd')>","old_string":"<script>alert('old')</script>","new_string":"\u001b[2J<style>body{display:none}</style>"}`),
			Result:    strings.Repeat("</pre><script>alert('result')</script>\n", 50), Outcome: annals.OutcomeFailed,
		}},
		&annals.Entry{Kind: annals.KindEvent, Channel: "in/x", Text: `<object data="javascript:alert('event')"></object><meta http-equiv="refresh" content="0;url=javascript:alert(1)">`},
	)
	// Runs whose model names try markup: one the table does not price (its recorded cost shows),
	// one it prices as gpt-4o (an estimated cost shows beside the name).
	e.run(&annals.Run{ID: "run-h1", ChatID: hostileID, Status: annals.StatusCompleted, Model: `<img src=x onerror=alert("model")>`,
		StartedAt: at, InputTokens: 1000, OutputTokens: 10, CostUSD: 0.5})
	e.run(&annals.Run{ID: "run-h2", ChatID: hostileID, Status: annals.StatusCompleted, Model: `gpt-4o-"><b onmouseover=alert(2)>x<b>`,
		StartedAt: at.Add(time.Minute), InputTokens: 1_000_000})
}

func TestHostileTranscriptRendersAsText(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedHostile(e)
	tb := newTab(t)
	tb.open(e.url + "/")
	tb.waitFor("the list", `document.querySelectorAll("#chats li.chat").length === 1`)
	if got := eval[string](tb, `document.querySelector("#chats .title").textContent.trim()`); got != `<script>alert("title")</script>` {
		t.Errorf("list title shows %q", got)
	}
	// Follow the list's own link: the id stays one path segment.
	tb.run(chromedpClick("#chats .title"))
	tb.waitFor("the chat", `document.getElementById("transcript") !== null`)
	path := eval[string](tb, `location.pathname`)
	if !strings.HasPrefix(path, "/chats/") || strings.Count(path, "/") != 2 {
		t.Errorf("the chat's link left /chats/<id>: %s", path)
	}
	// Open everything folded: results, reasoning, tool calls.
	tb.run(chromedpEval(`document.querySelectorAll("details").forEach(d => d.open = true)`))
	checkInert(t, tb)
	text := eval[string](tb, `document.getElementById("main").innerText`)
	for _, want := range []string{`<script>alert("user")</script>`, `<img src=x onerror=alert("img")>`, `javascript:alert(4)`,
		`\x1b[31mred`, `\u202eevil`, `<svg/onload=alert('cmd')>`, `<iframe src="javascript:alert('reasoning')">`, `<img src=x onerror=alert("tool")>`,
		`<img src=x onerror=alert("model")>`, `gpt-4o-"><b onmouseover=alert(2)>x<b>`, "$2.50 (estimated)", "$3.00 (estimated)",
		`cd '/tmp/x'\''; <img src=x onerror=alert("cwd")> $(touch /tmp/pwned)' && claude --resume "<script>alert('resume')</script>"`,
		`annals resume 'javascript:alert(1)//"><img src=x onerror=alert(2)>/..'`} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
	tb.screenshot("hostile")
}

// checkInert fails unless the page holds only its own script, no element from a transcript,
// no event handler attribute and no javascript: URL.
func checkInert(t *testing.T, tb *tab) {
	t.Helper()
	checks := map[string]string{
		"scripts other than app.js":                             `[...document.scripts].filter(s => !s.src.endsWith("/assets/app.js")).length`,
		"img, svg, iframe, object, style, meta refresh in main": `document.querySelectorAll("main img, main svg, main iframe, main object, main style, main meta, main embed").length`,
		"on* attributes":                                        `[...document.querySelectorAll("*")].filter(el => [...el.attributes].some(a => a.name.startsWith("on"))).length`,
		"javascript: or data: URLs":                             `[...document.querySelectorAll("[href],[src],[action]")].filter(el => /^\s*(javascript|data|vbscript):/i.test(el.getAttribute("href") || el.getAttribute("src") || el.getAttribute("action") || "")).length`,
	}
	for what, js := range checks {
		if n := eval[int](tb, js); n != 0 {
			t.Errorf("%d %s in the page", n, what)
		}
	}
}

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedHostile(e)
	c := client(t)
	for _, path := range []string{"/", chatPath(hostileID), "/login-free-check"} {
		a := do(t, c, "GET", e.url+path, nil, nil)
		if path == "/login-free-check" {
			// Not one of the UI's paths: the API's JSON 404 as before.
			if a.status != http.StatusNotFound || strings.Contains(a.body, "<html") {
				t.Errorf("GET %s: %d %q", path, a.status, a.body)
			}
			continue
		}
		if a.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, a.status, a.body)
		}
		h := a.header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("GET %s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "http") {
			t.Errorf("GET %s: CSP %q allows inline code or another origin", path, csp)
		}
		for k, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"} {
			if got := h.Get(k); got != want {
				t.Errorf("GET %s: %s = %q, want %q", path, k, got, want)
			}
		}
		if strings.Contains(a.body, "<script>alert") || strings.Contains(a.body, "<img src=x") || strings.Contains(a.body, " style=") {
			t.Errorf("GET %s: transcript markup reached the page unescaped, or an inline style exists", path)
		}
	}
}

// chatPath is a chat's page path as the UI writes it.
func chatPath(id string) string { return "/chats/" + urlPathEscape(id) }

// TestTabCatchesProblems proves the detector the other browser tests rely on: a dialog, a
// console error and a script the policy blocks each fail a test.
func TestTabCatchesProblems(t *testing.T) {
	e := newEnv(t, envOptions{})
	tb := newTab(t)
	tb.open(e.url + "/")
	tb.run(chromedpEval(`console.error("planted"); const s = document.createElement("script"); s.textContent = "1"; document.body.append(s); setTimeout(() => alert("planted"), 0)`))
	want := []string{`console error: "planted"`, "Content Security Policy", "dialog opened: alert"}
	deadline := time.Now().Add(10 * time.Second)
	for {
		tb.mu.Lock()
		all := strings.Join(tb.problems, "\n")
		caught := 0
		for _, w := range want {
			if strings.Contains(all, w) {
				caught++
			}
		}
		if caught == len(want) || time.Now().After(deadline) {
			tb.problems = nil
			tb.mu.Unlock()
			if caught < len(want) {
				t.Fatalf("the tab caught %d of %d planted problems: %s", caught, len(want), all)
			}
			return
		}
		tb.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	}
}
