package tui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// TestTheChatViewShowsEachRunsCacheAndContext: an open chat draws a line above the first entry
// of each run with its model, tokens in with the part read from and written to the prompt cache,
// out, and the context's size, as the web UI's run boundary does; a run whose source gave no
// cache says none.
func TestTheChatViewShowsEachRunsCacheAndContext(t *testing.T) {
	f := newFixture(t)
	f.chat("runs-1", "Cached work", nil)
	for _, r := range []*annals.Run{
		{ID: "r1", ChatID: "runs-1", Status: annals.StatusCompleted, Model: "claude-x", StartedAt: f.base,
			InputTokens: 120_000, CacheReadTokens: 90_000, CacheCreationTokens: 20_000, OutputTokens: 1500, ContextTokens: 64_000},
		{ID: "r2", ChatID: "runs-1", Status: annals.StatusCompleted, Model: "claude-x", StartedAt: f.base.Add(time.Minute),
			InputTokens: 800, OutputTokens: 40},
	} {
		if _, err := annals.RecordRun(f.ctx, f.owner, r); err != nil {
			t.Fatal(err)
		}
	}
	var entries []*annals.Entry
	for i, e := range []struct{ run, text string }{{"r1", "user: cache the build"}, {"r1", "assistant: cached it"}, {"r2", "user: again"}} {
		kind, text, _ := strings.Cut(e.text, ": ")
		entries = append(entries, &annals.Entry{ID: e.run + "-" + text, RunID: e.run, Kind: annals.EntryKind(kind), Text: text,
			Time: f.base.Add(time.Duration(i) * time.Second)})
	}
	if _, err := annals.AppendEntries(f.ctx, f.owner, "runs-1", entries); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, f.opts(f.owner), 240, 30)
	d.typeText("cache")
	d.settle()
	d.keys("enter", "enter")
	d.settle()
	s := d.screen()
	if got := lineWith(s, "run r1"); !strings.Contains(got, "run r1 · claude-x · completed · 120k in (90k cache read, 20k cache write) / 1.5k out · context 64k") {
		t.Errorf("r1's line: %q\n%s", got, s)
	}
	if got := lineWith(s, "run r2"); !strings.Contains(got, "run r2 · claude-x · completed · 800 in / 40 out") || strings.Contains(got, "cache") ||
		strings.Contains(got, "context") {
		t.Errorf("r2's line: %q\n%s", got, s)
	}
	if strings.Count(s, "── run r1") != 1 {
		t.Errorf("r1's line is drawn once, above its first entry:\n%s", s)
	}
	if i, j := strings.Index(s, "run r2"), strings.Index(s, "cached it"); i < j {
		t.Errorf("r2's line comes after r1's entries:\n%s", s)
	}
}
