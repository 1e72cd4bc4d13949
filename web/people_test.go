package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

func (tb *tab) key(keys string) {
	tb.t.Helper()
	tb.run(chromedp.KeyEvent(keys))
}

func TestKeyboard(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedMany(e, 5)
	seedLong(e, "long-1", 20)
	tb := newTab(t)
	tb.open(e.url + "/")
	tb.waitFor("the list", `document.querySelectorAll("#chats li.chat").length === 5`)
	selected := func() string {
		return eval[string](tb, `(document.querySelector("#chats li.selected .title") || {textContent: ""}).textContent.trim()`)
	}
	first := eval[string](tb, `document.querySelector("#chats li.chat .title").textContent.trim()`)
	tb.key("j")
	if got := selected(); got != first {
		t.Errorf("j selects %q, want the first row %q", got, first)
	}
	tb.key("j")
	tb.key("j")
	tb.key("k")
	second := eval[string](tb, `document.querySelectorAll("#chats li.chat .title")[1].textContent.trim()`)
	if got := selected(); got != second {
		t.Errorf("j j j k selects %q, want the second row %q", got, second)
	}
	// p pins the selected chat: it moves to the top.
	tb.key("p")
	tb.waitFor("the pinned chat on top", `document.querySelector("#chats li.chat .title").textContent.includes(`+jsString(second)+`) && document.querySelector("#chats li.chat").classList.contains("pinned") && document.documentElement.dataset.ready === "1"`)
	// / goes to the search box, Escape leaves it.
	tb.key("/")
	tb.waitFor("the search box focused", `document.activeElement.id === "quick-search"`)
	tb.key("\x1b")
	// ? shows the help, Escape closes it.
	tb.key("?")
	tb.waitFor("the help", `!document.getElementById("help").hidden`)
	tb.key("\x1b")
	tb.waitFor("the help closed", `document.getElementById("help").hidden`)
	// o opens the selected chat.
	tb.key("j")
	tb.key("o")
	tb.waitFor("the chat", `location.pathname.startsWith("/chats/")`)
	// In a chat, j and k move between the user's prompts; e exports.
	tb.open(e.url + "/chats/long-1")
	tb.waitFor("the chat", `document.getElementById("e-1") !== null`)
	tb.key("j")
	tb.key("j")
	if id := eval[string](tb, `document.querySelector("#transcript li.selected").id`); id != "e-3" {
		t.Errorf("j j in a chat selects %s, want the second prompt e-3", id)
	}
	tb.run(chromedpEval(`document.getElementById("export-md").addEventListener("click", ev => { ev.preventDefault(); window.__exported = ev.target.getAttribute("href") })`))
	tb.key("e")
	if got := eval[string](tb, `String(window.__exported)`); got != "/chats/long-1/export?format=markdown" {
		t.Errorf("e exported %q", got)
	}
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestNarrowDarkAndNamed: at 390 px nothing scrolls sideways; the colours follow the system's
// dark mode; every control has an accessible name.
func TestNarrowDarkAndNamed(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedMany(e, 5)
	seedLong(e, "long-1", 20)
	tb := newTab(t)
	pages := []string{"/", "/chats/long-1", "/search?q=question"}
	tb.run(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	for _, p := range pages {
		tb.open(e.url + p)
		tb.waitFor("the page", `document.readyState === "complete"`)
		tb.run(chromedpEval(`document.querySelectorAll("details").forEach(d => d.open = true)`))
		if w := eval[int](tb, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("%s is %d px wide at a 390 px viewport", p, w)
		}
		unnamed := eval[string](tb, `[...document.querySelectorAll("button, input:not([type=hidden]), select, textarea, a[href], [role=toolbar], nav, form[role=search]")]
			.filter(el => !el.closest("[hidden]"))
			.filter(el => !((el.getAttribute("aria-label") || "").trim() || (el.labels && [...el.labels].some(l => l.textContent.trim())) || (el.getAttribute("aria-labelledby")) || (["BUTTON", "A"].includes(el.tagName) && el.textContent.trim()) || (el.tagName === "FORM" && el.querySelector("[aria-label], label"))))
			.map(el => el.outerHTML.slice(0, 80)).join("\n")`)
		if unnamed != "" {
			t.Errorf("%s: controls without an accessible name:\n%s", p, unnamed)
		}
	}
	tb.screenshot("narrow")
	tb.run(chromedp.EmulateViewport(1280, 900))
	bg := func(scheme string) string {
		if _, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			t.Fatal(err)
		}
		return eval[string](tb, `getComputedStyle(document.body).backgroundColor`)
	}
	tb.open(e.url + "/chats/long-1")
	light, dark := bg("light"), bg("dark")
	if light != "rgb(255, 255, 255)" || dark != "rgb(21, 24, 28)" {
		t.Errorf("light %s, dark %s: the colours do not follow the system", light, dark)
	}
	tb.screenshot("dark")
}
