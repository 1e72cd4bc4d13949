package tui_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
)

// R cycles the ranking (lexical, hybrid, semantic) and searches again with it; the filter prompt
// takes rank: too, refusing an unknown one; F clears it. A history without an embedder refuses
// hybrid, and the refusal is the status line.
func TestRankIsAKeyAndAFilter(t *testing.T) {
	hashing, err := embed.NewHashing(64)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *history.Config) { c.Embedder = hashing })
	zoo(f)
	if _, err := f.svc.Backfill(f.ctx, nil); err != nil {
		t.Fatal(err)
	}
	rec := &recording{HistoryService: f.owner}
	d := newDriver(t, f.opts(rec), 120, 30)
	d.typeText("penguins")
	d.settle()
	d.keys("tab", "R")
	d.settle()
	if s := d.screen(); !strings.Contains(s, "rank: hybrid") || !strings.Contains(s, "Count penguins") {
		t.Errorf("R did not rank hybrid:\n%s", s)
	}
	d.keys("R")
	d.settle()
	if s := d.screen(); !strings.Contains(s, "rank: semantic") || !strings.Contains(s, "Count penguins") {
		t.Errorf("R did not rank by meaning:\n%s", s)
	}
	d.keys("R") // back to lexical
	d.settle()
	d.keys("f")
	d.typeText("rank:HYBRID")
	d.keys("enter")
	d.settle()
	d.keys("f", "ctrl+u")
	d.typeText("rank:fuzzy")
	d.keys("enter")
	d.settle()
	if s := d.m.Status(); !strings.Contains(s, `unknown rank "fuzzy" (want lexical, hybrid, semantic)`) {
		t.Errorf("an unknown rank was not refused: %q", s)
	}
	d.keys("esc", "F")
	d.settle()
	// R three times, rank:HYBRID, then F (rank:fuzzy searched nothing).
	if want := []string{"hybrid", "semantic", "lexical", "hybrid", ""}; !reflectEqual(rankOf(rec), want) {
		t.Errorf("the searches asked for ranks %q, want %q", rankOf(rec), want)
	}

	// Without an embedder, the service refuses hybrid and says how to get one.
	plain := newFixture(t)
	zoo(plain)
	d = newDriver(t, plain.opts(plain.owner), 120, 30)
	d.typeText("penguins")
	d.settle()
	d.keys("tab", "R")
	d.settle()
	if s := d.m.Status(); !strings.Contains(s, "search: rank hybrid needs an embedder") {
		t.Errorf("the refusal of hybrid is not the status line: %q", s)
	}
}

// rankOf is the ranks of the searches with words, after the first.
func rankOf(r *recording) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for i, q := range r.searches {
		if q != "" && i > 0 {
			out = append(out, r.ranks[i])
		}
	}
	return out
}
