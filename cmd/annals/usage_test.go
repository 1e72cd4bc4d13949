package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const usageRuns = `{"type":"chat","id":"u1","title":"Port the parser","attributes":{"source":"codex"}}
{"type":"run","chat_id":"u1","id":"ur1","status":"completed","model":"gpt-4o-2024-08-06","started_at":"2026-03-01T23:30:00Z","input_tokens":1000000}
{"type":"run","chat_id":"u1","id":"ur2","status":"completed","model":"claude-sonnet-4","started_at":"2026-03-02T10:00:00Z","output_tokens":1000000,"cost_usd":20}
{"type":"chat","id":"u2","title":"Quiet chat"}
{"type":"run","chat_id":"u2","id":"ur3","status":"completed","model":"house-model","started_at":"2026-03-02T11:00:00Z","input_tokens":5}
`

// annals usage prints the figures per group with estimated costs marked, the top chats and the
// heatmap; --json is the service's report; a bad flag is a usage mistake naming what is allowed.
func TestUsageCommand(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(usageRuns, "ingest", "-")
	out := tm.mustRun("", "usage", "--all", "--tz", "UTC", "--by", "model")
	for _, want := range []string{
		"3 runs, 2.0M tokens", "cost ~$22.50+?",
		"gpt-4o-2024-08-06", "~$2.50", "claude-sonnet-4", "$20.00", "house-model", "$0.00+?",
		"Top chats by cost", "Port the parser", "price table of 2025-11", "1 run recorded tokens but no cost",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("usage --by model lacks %q:\n%s", want, out)
		}
	}
	days := tm.mustRun("", "usage", "--since", "2026-03-01", "--until", "2026-03-03", "--tz", "Asia/Tokyo", "--top", "0")
	if !strings.Contains(days, "2026-03-01     0") || !strings.Contains(days, "2026-03-02     3") || strings.Contains(days, "Top chats") {
		t.Errorf("usage by day in Tokyo:\n%s", days)
	}
	if heat := tm.mustRun("", "usage", "--all", "--tz", "UTC", "--by", "hour"); !strings.Contains(heat, "Sun") || !strings.Contains(heat, "█") {
		t.Errorf("usage --by hour:\n%s", heat)
	}
	var rep struct {
		Totals struct {
			Runs             int64   `json:"runs"`
			EstimatedCostUSD float64 `json:"estimated_cost_usd"`
		} `json:"totals"`
		Top struct {
			ByTokens []struct {
				ChatID string `json:"chat_id"`
			} `json:"by_tokens"`
		} `json:"top"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "usage", "--all", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Runs != 3 || rep.Totals.EstimatedCostUSD != 2.5 || len(rep.Top.ByTokens) != 2 || rep.Top.ByTokens[0].ChatID != "u1" {
		t.Errorf("usage --json = %+v", rep)
	}
	for args, want := range map[string]string{
		"--by week":                             "day, agent, model, tool, hour",
		"--tz Mars/Olympus":                     "IANA",
		"--since yesterday":                     "--since",
		"--top 1000":                            "0 to 100",
		"--since 2026-03-02 --until 2026-03-01": "before",
	} {
		stderr, code := tm.runFail(append([]string{"usage"}, strings.Fields(args)...)...)
		if code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("usage %s: exit %d, %q; want exit 2 naming %q", args, code, stderr, want)
		}
	}
}

// annals --server URL usage answers what the local command answers.
func TestUsageThroughAServer(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(usageRuns, "ingest", "-")
	local := tm.mustRun("", "usage", "--all", "--tz", "Europe/Paris", "--json")
	s := startServe(t, tm)
	client := newTestMain(t)
	remote := client.mustRun("", "--server", s.url, "usage", "--all", "--tz", "Europe/Paris", "--json")
	if local != remote {
		t.Errorf("usage through the server differs:\nlocal  %s\nremote %s", local, remote)
	}
}

// annals usage shows the part of the input read from and written to the cache, in the totals
// and per group, and prices it at the table's cache rates: 1M prompt tokens of
// claude-sonnet-4-5, 500k read and 250k written, cost ~$1.84 (not ~$3.00).
func TestUsageCommandShowsTheCache(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(`{"type":"chat","id":"c1","title":"Cached"}
{"type":"run","chat_id":"c1","id":"cr1","status":"completed","model":"claude-sonnet-4-5","started_at":"2026-03-01T10:00:00Z","input_tokens":1000000,"cache_read_tokens":500000,"cache_creation_tokens":250000,"context_tokens":120000}
`, "ingest", "-")
	out := tm.mustRun("", "usage", "--all", "--tz", "UTC", "--by", "model")
	for _, want := range []string{"1.0M in of which 500.0k cache read, 250.0k cache write", "CACHE READ", "CACHE WRITE", "cost ~$1.84"} {
		if !strings.Contains(out, want) {
			t.Errorf("usage lacks %q:\n%s", want, out)
		}
	}
	var rep struct {
		Totals struct {
			CacheRead  int64 `json:"cache_read_tokens"`
			CacheWrite int64 `json:"cache_creation_tokens"`
		} `json:"totals"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "usage", "--all", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Totals.CacheRead != 500_000 || rep.Totals.CacheWrite != 250_000 {
		t.Errorf("usage --json totals = %+v; want 500000 read, 250000 written", rep.Totals)
	}
}
