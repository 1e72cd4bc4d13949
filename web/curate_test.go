package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/chromedp/chromedp"
)

// seedSearchable stores the long chat with a rare word in entry 180, and two short chats
// about the same subject (for related).
func seedSearchable(e *env) {
	e.t.Helper()
	seedLong(e, "long-1", 250)
	e.chat(&annals.Chat{ID: "garden-1", Title: "Planting tomatoes in the garden", CreatedAt: t0,
		Attributes: annals.Attributes{"source": "claude-code", "resume_command": "claude --resume garden-1", "cwd": "/home/ann/garden"}},
		&annals.Entry{Kind: annals.KindUser, Text: "How deep should tomato seedlings be planted in the garden soil?"},
		&annals.Entry{Kind: annals.KindAssistant, Text: "Plant tomato seedlings deep in the garden soil, up to the first leaves; water the tomatoes well."})
	e.chat(&annals.Chat{ID: "garden-2", Title: "Watering the tomato garden", CreatedAt: t0},
		&annals.Entry{Kind: annals.KindUser, Text: "How often should I water tomato plants in the garden soil?"})
	if _, err := e.svc.Backfill(e.ownerCtx(), nil); err != nil {
		e.t.Fatal(err)
	}
}

func TestSearchToTheEntry(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedLong(e, "long-1", 250)
	e.chat(&annals.Chat{ID: "other", Title: "Other", CreatedAt: t0}, &annals.Entry{Kind: annals.KindUser, Text: "nothing to see"})
	tb := newTab(t)
	tb.open(e.url + "/search")
	tb.waitFor("the search box", `document.activeElement && document.activeElement.id === "search-input"`)
	// Typed a key at a time: each keystroke cancels the request before it; the results are the
	// last query's.
	tb.run(chromedp.SendKeys(chromedp.CSS("#search-input"), "question number 231"))
	tb.waitFor("the results", `location.search === "?q=question+number+231" && document.querySelectorAll("#hits li.hit").length === 1`)
	marked := eval[string](tb, `[...document.querySelectorAll("#hits mark")].map(m => m.textContent).join(" ")`)
	if !strings.Contains(marked, "231") {
		t.Errorf("the snippet highlights %q", marked)
	}
	tb.screenshot("search")
	// A snippet links to its entry: the chat opens there, scrolled and highlighted.
	href := eval[string](tb, `[...document.querySelectorAll("#hits a.snippet")].find(a => a.textContent.includes("231")).getAttribute("href")`)
	if href != "/chats/long-1?at=231#e-231" {
		t.Errorf("the snippet links to %q", href)
	}
	tb.run(chromedpEval(`[...document.querySelectorAll("#hits a.snippet")].find(a => a.textContent.includes("231")).click()`))
	tb.waitFor("the entry", `location.pathname === "/chats/long-1" && document.querySelector(":target") && document.querySelector(":target").id === "e-231"`)
	// A query the language refuses shows its error under the box.
	tb.open(e.url + "/search")
	tb.run(chromedp.SendKeys(chromedp.CSS("#search-input"), "role:bot"))
	tb.waitFor("the error", `document.querySelector("#results .query-error") !== null && document.querySelector("#results .query-error").textContent.includes('"bot"')`)
	if msg := eval[string](tb, `document.querySelector("#results .query-error").textContent`); !strings.Contains(msg, `unknown role "bot"`) {
		t.Errorf("the query's error reads %q", msg)
	}
}

func TestCurationInTheBrowser(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedSearchable(e)
	tb := newTab(t)
	tb.open(e.url + "/chats/garden-1")
	tb.waitFor("the chat", `document.getElementById("chat-head") !== null`)
	head := func() string {
		return eval[string](tb, `document.getElementById("chat-head").textContent.replace(/\s+/g, " ")`)
	}
	// Rename inline.
	tb.run(chromedpEval(`document.querySelector("[data-reveal=rename-form]").click()`))
	tb.run(chromedpEval(`document.getElementById("rename-title").value = "Tomatoes, deep"; document.getElementById("rename-form").requestSubmit()`))
	tb.waitFor("the new title", `document.getElementById("chat-title").textContent === "Tomatoes, deep"`)
	// Tags and description.
	tb.run(chromedpEval(`document.querySelector("[data-reveal=tags-form]").click(); document.getElementById("tags-input").value = "garden, howto"; document.getElementById("tags-form").requestSubmit()`))
	tb.waitFor("the tags", `[...document.querySelectorAll("#chat-head .tag")].map(t => t.textContent).join(",") === "garden,howto"`)
	tb.run(chromedpEval(`document.querySelector("[data-reveal=describe-form]").click(); document.getElementById("describe-input").value = "How deep to plant"; document.getElementById("describe-form").requestSubmit()`))
	tb.waitFor("the description", `document.querySelector("#chat-head .description") && document.querySelector("#chat-head .description").textContent === "How deep to plant"`)
	// Recap with the offline summarizer: the stored summary is shown.
	tb.run(chromedpClick("#recap-button"))
	tb.waitFor("the summary", `document.querySelector("#chat-head .summary p") !== null`)
	if s := eval[string](tb, `document.querySelector("#chat-head .summary p").textContent`); !strings.Contains(strings.ToLower(s), "tomato") {
		t.Errorf("the recap reads %q", s)
	}
	// Related chats in the sidebar; following one opens it.
	tb.waitFor("related chats", `document.querySelector("#related .related-list a") !== null`)
	if rel := eval[string](tb, `document.querySelector("#related .related-list a").textContent`); rel != "Watering the tomato garden" {
		t.Errorf("the first related chat is %q", rel)
	}
	// Export: both downloads answer as the browser's session.
	md := eval[string](tb, `fetch(document.getElementById("export-md").href).then(r => r.text())`)
	js := eval[string](tb, `fetch(document.getElementById("export-json").href).then(r => r.text())`)
	if !strings.Contains(md, "Tomatoes, deep") || !strings.Contains(js, `"id":"garden-1"`) {
		t.Errorf("the exports: %.80q / %.80q", md, js)
	}
	// The resume command, copied (or selected where the clipboard is refused).
	if cmd := eval[string](tb, `document.getElementById("resume-command").textContent`); cmd != "cd /home/ann/garden && claude --resume garden-1" {
		t.Errorf("the resume command reads %q", cmd)
	}
	tb.run(chromedpClick("#resume-menu summary"))
	menu := eval[string](tb, `[...document.querySelectorAll("#resume-menu li")].map(li => li.querySelector("code").textContent).join("|")`)
	if menu != "cd /home/ann/garden && claude --resume garden-1|claude --resume garden-1|annals resume garden-1" {
		t.Errorf("the resume menu offers %q", menu)
	}
	if n := eval[int](tb, `document.querySelectorAll("#resume-menu a, #resume-menu [href]").length`); n != 0 {
		t.Errorf("the resume menu holds %d links; its commands are text", n)
	}
	tb.run(chromedpClick("#copy-resume"))
	tb.waitFor("the copy", `/^(Copied|Selected)/.test(document.getElementById("action-status").textContent)`)
	tb.run(chromedpClick("#copy-resume-2"))
	tb.waitFor("the copy of annals resume", `/^Copied: annals resume garden-1$|^Selected/.test(document.getElementById("action-status").textContent)`)
	// Pin: it moves to the top of the list.
	tb.run(chromedpClick("#pin-button"))
	tb.waitFor("pinned", `document.getElementById("pin-button").textContent === "Unpin"`)
	tb.open(e.url + "/")
	tb.waitFor("the list", `document.querySelector("#chats li.chat .title") !== null`)
	if first := eval[string](tb, `document.querySelector("#chats li.chat .title").textContent.trim()`); !strings.HasSuffix(first, "Tomatoes, deep") {
		t.Errorf("the pinned chat is not first: %q", first)
	}
	// Archive and restore.
	tb.open(e.url + "/chats/garden-1")
	tb.run(chromedpClick("#archive-button"))
	tb.waitFor("archived", `document.getElementById("archive-button").textContent === "Restore"`)
	tb.open(e.url + "/")
	if eval[bool](tb, `[...document.querySelectorAll("#chats .title")].some(a => a.textContent.includes("Tomatoes"))`) {
		t.Error("the archived chat is still listed")
	}
	tb.open(e.url + "/chats/garden-1")
	tb.run(chromedpClick("#archive-button"))
	tb.waitFor("restored", `document.getElementById("archive-button").textContent === "Archive"`)
	if h := head(); strings.Contains(h, "archived") {
		t.Errorf("the restored chat's header still says archived: %q", h)
	}
	// Delete: the confirmation names the chat.
	tb.run(chromedpEval(`document.querySelector("[data-reveal=delete-form]").click()`))
	if confirm := eval[string](tb, `document.getElementById("delete-confirm").textContent`); confirm != "Delete “Tomatoes, deep”" {
		t.Errorf("the confirmation reads %q", confirm)
	}
	tb.run(chromedpClick("#delete-confirm"))
	tb.waitFor("the list", `location.pathname === "/" && document.getElementById("chats") !== null`)
	if eval[bool](tb, `[...document.querySelectorAll("#chats .title")].some(a => a.textContent.includes("Tomatoes"))`) {
		t.Error("the deleted chat is still listed")
	}
}

// TestCurationNeedsCSRFAndRights: a state-changing request without the page's token changes
// nothing; a member's key curates its own chats only; a read-only server curates nothing.
func TestCurationNeedsCSRFAndRights(t *testing.T) {
	k := newKeyed(t)
	k.chat(&annals.Chat{ID: "acme-bob", TenantID: "acme", UserID: "bob", Title: "Bob's chat", CreatedAt: t0})
	c := client(t)
	csrf := k.login(t, c, k.acme)
	pin := url.Values{"on": {"true"}}
	if a := do(t, c, "POST", k.url+"/chats/acme-chat/pin", pin, nil); a.status != http.StatusForbidden {
		t.Errorf("a pin without the CSRF token: %d", a.status)
	}
	if a := do(t, c, "POST", k.url+"/chats/acme-chat/pin", pin, map[string]string{"X-CSRF-Token": "forged"}); a.status != http.StatusForbidden {
		t.Errorf("a pin with a forged CSRF token: %d", a.status)
	}
	tok := map[string]string{"X-CSRF-Token": csrf}
	if a := do(t, c, "POST", k.url+"/chats/acme-chat/pin", pin, tok); a.status != http.StatusOK || !strings.Contains(a.body, "Unpin") {
		t.Errorf("a pin of its own chat: %d %s", a.status, a.body)
	}
	// Another user's chat of the same tenant: a member may curate it (docs/SECURITY.md) but
	// not delete it.
	if a := do(t, c, "POST", k.url+"/chats/acme-bob/delete", url.Values{"confirm": {"acme-bob"}}, tok); a.status != http.StatusForbidden {
		t.Errorf("a member deleting another user's chat: %d %s", a.status, a.body)
	}
	// Another tenant's chat: not found, as if missing.
	if a := do(t, c, "POST", k.url+"/chats/globex-chat/delete", url.Values{"confirm": {"globex-chat"}}, tok); a.status != http.StatusNotFound {
		t.Errorf("deleting another tenant's chat: %d", a.status)
	}
	// Delete without the confirmation naming the chat deletes nothing.
	if a := do(t, c, "POST", k.url+"/chats/acme-chat/delete", url.Values{}, tok); a.status != http.StatusBadRequest {
		t.Errorf("a delete without confirmation: %d", a.status)
	}
	if a := do(t, c, "GET", k.url+"/chats/acme-chat", nil, nil); a.status != http.StatusOK {
		t.Errorf("the chat after a refused delete: %d", a.status)
	}
	// A token of one session does not work in another.
	c2 := client(t)
	k.login(t, c2, k.globex)
	if a := do(t, c2, "POST", k.url+"/chats/globex-chat/pin", pin, tok); a.status != http.StatusForbidden {
		t.Errorf("another session's CSRF token: %d", a.status)
	}
}

func TestReadOnlyServerOffersNoCuration(t *testing.T) {
	e := newEnv(t, envOptions{readOnly: true})
	seedLong(e, "long-1", 3)
	c := client(t)
	page := do(t, c, "GET", e.url+"/chats/long-1", nil, nil)
	if page.status != 200 || strings.Contains(page.body, "pin-button") || !strings.Contains(page.body, "export-md") {
		t.Errorf("a read-only server's chat page offers curation (or no export): %d", page.status)
	}
	u, _ := url.Parse(e.url)
	var csrf string
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "annals_csrf" {
			csrf = ck.Value
		}
	}
	a := do(t, c, "POST", e.url+"/chats/long-1/pin", url.Values{"on": {"true"}}, map[string]string{"X-CSRF-Token": csrf})
	if a.status != http.StatusForbidden || !strings.Contains(a.body, "read-only") {
		t.Errorf("a pin on a read-only server: %d %s", a.status, a.body)
	}
}
