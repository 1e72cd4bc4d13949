package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestSearchByMeaning: the search form offers the rankings (the default, words, words and
// meaning, meaning); the chosen one reaches the history (the results page says so in its URL and
// pages), and ranking by meaning refuses a query without words with the history's message.
func TestSearchByMeaning(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedSearchable(e)
	tb := newTab(t)
	tb.open(e.url + "/search")
	if got := eval[string](tb, `[...document.querySelectorAll("#search-rank option")].map(o => o.value + "=" + o.textContent).join("|")`); got != "=default|lexical=words|hybrid=words and meaning|semantic=meaning" {
		t.Errorf("the rankings offered: %q", got)
	}
	// No choice is "": the history's default decides (docs/QUERY.md), the form does not.
	if got := eval[string](tb, `document.getElementById("search-rank").value`); got != "" {
		t.Errorf("the form starts on rank %q, want the default", got)
	}
	tb.run(chromedp.SetValue(chromedp.CSS("#search-rank"), "semantic"))
	tb.run(chromedp.SendKeys(chromedp.CSS("#search-input"), "tomato seedlings"))
	tb.waitFor("the results by meaning", `location.search === "?q=tomato+seedlings&rank=semantic" && document.querySelectorAll("#hits li.hit").length >= 1`)
	if !eval[bool](tb, `[...document.querySelectorAll("#hits li.hit .title")].some(a => a.textContent.includes("tomato"))`) {
		t.Error("ranking by meaning found no tomato chat")
	}
	// Changing the ranking runs the query again.
	tb.run(chromedpEval(`document.getElementById("search-rank").value = "hybrid"; document.getElementById("search-rank").dispatchEvent(new Event("change"))`))
	tb.waitFor("the results of both", `location.search === "?q=tomato+seedlings&rank=hybrid"`)
	// Meaning needs words: a query of filters only is refused with the history's message.
	tb.run(chromedpEval(`document.getElementById("search-input").value = ""`))
	tb.run(chromedp.SendKeys(chromedp.CSS("#search-input"), "tag:garden"))
	tb.waitFor("the refusal", `document.querySelector("#results .query-error") !== null`)
	if msg := eval[string](tb, `document.querySelector("#results .query-error").textContent`); !strings.Contains(msg, "use rank lexical") {
		t.Errorf("the refusal reads %q", msg)
	}
	// A whole page load keeps the choice, and an unknown ranking is refused by name.
	tb.open(e.url + "/search?q=tomato&rank=semantic")
	if got := eval[string](tb, `document.getElementById("search-rank").value`); got != "semantic" {
		t.Errorf("the page of rank=semantic selects %q", got)
	}
	a := do(t, client(t), "GET", e.url+"/search?q=tomato&rank=sideways", nil, nil)
	if a.status != 200 || !strings.Contains(a.body, "unknown rank &#34;sideways&#34;") {
		t.Errorf("an unknown rank: %d %q", a.status, a.body)
	}
}
