package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// seedUsage stores a fortnight of runs before now: two tools, three models, one of them
// without a recorded cost (priced from the table, so estimated) and one unknown to the table.
func seedUsage(e *env, now time.Time, tenant string) {
	e.t.Helper()
	for i, src := range []string{"claude-code", "codex", "gemini-cli"} {
		id := fmt.Sprintf("%s-usage-%d", tenant, i)
		e.chat(&annals.Chat{ID: id, TenantID: tenant, Title: "Usage of " + src + " <b>bold</b>", AgentID: "builder", CreatedAt: now.AddDate(0, 0, -20),
			Attributes: annals.Attributes{"source": src}}, &annals.Entry{Kind: annals.KindUser, Text: "work"})
		for d := range 14 {
			r := &annals.Run{ID: fmt.Sprintf("%s-r%d", id, d), ChatID: id, Status: annals.StatusCompleted,
				StartedAt: now.AddDate(0, 0, -d).Add(-time.Duration(i*3+d%5) * time.Hour), InputTokens: int64(1000 * (d + 1) * (i + 1)), OutputTokens: int64(200 * (i + 1))}
			switch src {
			case "claude-code":
				r.Model = "claude-sonnet-4-20250514"  // no cost: estimated
				r.CacheReadTokens = r.InputTokens / 2 // half the prompt from the cache: 52,500 in all
			case "codex":
				r.Model, r.CostUSD = "gpt-5-codex", 0.01*float64(d+1)
			default:
				r.Model = "house-model-x" // no cost, no price
			}
			e.run(r)
		}
	}
}

// The usage page shows the caller's figures with their charts and tables, marks estimated
// costs, refuses a bad range beside the form, and never shows another tenant's runs.
func TestUsagePage(t *testing.T) {
	k := newKeyed(t)
	now := time.Now()
	seedUsage(k.env, now, "acme")
	k.run(&annals.Run{ID: "globex-r", ChatID: "globex-chat", Status: annals.StatusCompleted, Model: "gpt-4o", StartedAt: now.Add(-time.Hour), InputTokens: 777_777_777, CostUSD: 4321})
	c := client(t)
	k.login(t, c, k.acme)
	a := do(t, c, "GET", k.url+"/usage?range=30&zone=UTC", nil, nil)
	if a.status != http.StatusOK {
		t.Fatalf("the usage page: %d %s", a.status, a.body)
	}
	for _, want := range []string{
		`<svg class="chart"`, `aria-labelledby="tokens-chart-title tokens-chart-desc"`, `<title id="heatmap-title">Runs by weekday and hour</title>`,
		`id="total-runs">42<`, "(estimated)", "+ unpriced", "snapshot 2025-11", "claude-sonnet-4-20250514", "gemini-cli",
		"Usage of codex &lt;b&gt;bold&lt;/b&gt;", `href="/chats/acme-usage-0"`, `aria-current="page">last 30 days`,
	} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the usage page lacks %q", want)
		}
	}
	if strings.Contains(a.body, "777") || strings.Contains(a.body, "4321") || strings.Contains(a.body, "<b>bold") {
		t.Error("the usage page shows globex's run or unescaped markup")
	}
	if days := strings.Count(a.body, `<tr><th scope="row">20`); days != 30 {
		t.Errorf("the day table has %d rows; want the 30 days of the range", days)
	}
	for q, want := range map[string]string{
		"?zone=Mars/Olympus":                 "not a known time zone",
		"?from=2026-02-01&to=2026-01-01":     "before from",
		"?range=12x":                         "not a number of days",
		"?from=yesterday&zone=Europe/Berlin": "from &#34;yesterday&#34; is not a time",
	} {
		a := do(t, c, "GET", k.url+"/usage"+q, nil, nil)
		if a.status != http.StatusOK || !strings.Contains(a.body, `class="error" role="alert"`) || !strings.Contains(a.body, want) {
			t.Errorf("/usage%s: %d, want the form with %q", q, a.status, want)
		}
	}
	g := client(t)
	k.login(t, g, k.globex)
	if a := do(t, g, "GET", k.url+"/usage?range=all", nil, nil); !strings.Contains(a.body, `id="total-runs">1<`) || strings.Contains(a.body, "claude-code") {
		t.Errorf("globex's usage page is not globex's alone")
	}
}

// In a browser: the page renders its charts with no policy violation or console error, the
// range chooser works, and a screenshot is saved for docs/WEB.md.
func TestUsagePageInTheBrowser(t *testing.T) {
	e := newEnv(t, envOptions{})
	now := time.Now()
	seedUsage(e, now, "local")
	tb := newTab(t)
	tb.run(chromedpNavigate(e.url + "/usage?range=30&zone=UTC"))
	tb.waitFor("the charts", `document.querySelectorAll("svg.chart").length === 3`)
	if n := eval[int](tb, `document.querySelectorAll("#tokens-chart-title ~ g.bar, svg[aria-labelledby^=tokens] g.bar").length`); n != 30 {
		t.Errorf("the tokens chart has %d bars; want 30", n)
	}
	if h := eval[float64](tb, `document.querySelector("svg.chart").getBoundingClientRect().height`); h < 100 {
		t.Errorf("the tokens chart is %.0f px high; the stylesheet did not size it", h)
	}
	if fill := eval[string](tb, `getComputedStyle(document.querySelector("svg.chart rect.in")).fill`); fill == "" || fill == "rgb(0, 0, 0)" {
		t.Errorf("the input bars are painted %q; the stylesheet's class did not apply", fill)
	}
	if n := eval[int](tb, `document.querySelectorAll("svg.chart rect.cell.l4").length`); n < 1 {
		t.Error("the heatmap has no darkest cell")
	}
	if got := eval[string](tb, `document.getElementById("total-cache-read").textContent + "|" + document.getElementById("total-cache-write").textContent`); got != "52k|0" {
		t.Errorf("the totals' cache read and write are %q; want 52k|0 (half of claude-code's prompts read from the cache)", got)
	}
	// The day table's columns: day, runs, input, cache read, cache write, output, cost; today's
	// claude-code run read 500 of its 1,000 prompt tokens from the cache.
	if got := eval[string](tb, `(() => { const rows = document.querySelectorAll("#days tbody tr"); const c = rows[rows.length-1].children; return c[2].textContent + "|" + c[3].textContent })()`); !strings.HasSuffix(got, "|500") {
		t.Errorf("today's row's input and cache read are %q; want 500 read from the cache", got)
	}
	tb.screenshot("usage")
	tb.run(chromedpEval(`document.querySelector(".ranges a[href*='range=7']").click()`))
	tb.waitFor("the 7-day range", `location.search.includes("range=7") && document.querySelectorAll("#days tbody tr").length === 7`)
	tb.run(chromedpEval(`document.querySelector("input[name=zone]").value = "Nowhere/Land"; document.querySelector(".usage-page form").requestSubmit()`))
	tb.waitFor("the refusal", `(document.querySelector(".usage-page .error") || {}).textContent?.includes("not a known time zone") === true`)
}
