package bench

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

func TestTypedCasesCoverWhatPeopleType(t *testing.T) {
	kinds := map[string]func(searchCase) bool{
		"two-letter prefix":   func(c searchCase) bool { return len(c.query) == 3 && strings.HasSuffix(c.query, "*") },
		"three-letter prefix": func(c searchCase) bool { return len(c.query) == 4 && strings.HasSuffix(c.query, "*") },
		"stop-word phrase": func(c searchCase) bool {
			return strings.HasPrefix(c.query, `"the `) || strings.HasPrefix(c.query, `"of `)
		},
		"tool filter": func(c searchCase) bool { return strings.HasPrefix(c.query, "tool:") },
		"role filter": func(c searchCase) bool { return strings.HasPrefix(c.query, "role:") },
		"OR":          func(c searchCase) bool { return strings.Contains(c.query, " OR ") },
		"negation":    func(c searchCase) bool { return strings.Contains(c.query, " -") },
		"entry-level": func(c searchCase) bool { return c.mode == annals.SearchEntriesMode },
		"three words": func(c searchCase) bool {
			return len(strings.Fields(c.query)) == 3 && !strings.ContainsAny(c.query, `":*-`)
		},
	}
	for kind, is := range kinds {
		all, share := false, false
		for _, c := range searchCases() {
			if is(c) {
				all = all || !c.share
				share = share || c.share
			}
		}
		if !all {
			t.Errorf("no %s query over every tenant", kind)
		}
		if !share && kind != "OR" && kind != "negation" {
			t.Errorf("no %s query as the 1%% tenant", kind)
		}
	}
	names := map[string]bool{}
	for _, c := range searchCases() {
		if names[c.name] {
			t.Errorf("two cases named %q", c.name)
		}
		names[c.name] = true
	}
}

func TestShareOptionsAreOnePercentOfTheChats(t *testing.T) {
	for _, tc := range []struct{ size, chats int }{{1_000_000, 10_000}, {10_000_000, 100_000}, {100_000, 2000}} {
		o := shareOptions(1, tc.size, tc.chats)
		pct := 100 * float64(o.Chats) / float64(tc.chats+1+o.Chats)
		if pct < 0.95 || pct > 1.05 || o.Entries != o.Chats*(tc.size/tc.chats) || len(o.TenantNames) != 1 {
			t.Errorf("size %d, %d chats: share corpus %+v is %.2f%% of the chats, want 1%% of the mean length", tc.size, tc.chats, o, pct)
		}
	}
}

// checkTypedRows checks the smoke run's rows of the typed queries: each ran and counted its
// hits, each 1% tenant row says its cost beside every tenant's, and the small tenant is about
// 1% of the chats.
func checkTypedRows(t *testing.T, rep *Report) {
	t.Helper()
	// One chat is the least the small tenant can hold: on a corpus under 150 chats (the -race
	// smoke run has 40) that one chat is more than 1.5% of them, and it must be exactly one.
	if s := rep.Corpus.Share; s == nil || s.Tenant != shareTenant || s.Total != rep.Corpus.Chats+1+s.Chats ||
		!(s.Percent >= 0.5 && s.Percent <= 1.5 || s.Chats == 1 && s.Total < 150) {
		t.Errorf("share tenant %+v of %d corpus chats: want about 1%% of every chat (one chat on a corpus too small for 1%%)", s, rep.Corpus.Chats)
	}
	byCase := map[string]Row{}
	for _, r := range rep.Rows {
		byCase[r.Case] = r
	}
	for _, c := range searchCases() {
		r, ok := byCase[c.name]
		if !ok {
			t.Errorf("no row for %q", c.name)
			continue
		}
		if r.Hits == nil || r.N < 1 || r.P50 <= 0 || r.Load == "" || r.Query != c.query || r.Mode != string(c.mode) {
			t.Errorf("row %+v: want hits, samples, a p50, the load average, the query and its mode", r)
		}
		if c.share && (r.Owner != shareTenant || r.ShareOfAll <= 0 || !strings.Contains(r.Note, "of every tenant's p50")) {
			t.Errorf("1%% tenant row %+v: want its cost in percent of every tenant's", r)
		}
	}
}

func TestPageCacheDropLeavesTheFileCold(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("posix_fadvise and mincore are used on Linux only")
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	before, err := residentShare(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := dropFromPageCache(path); err != nil {
		t.Fatal(err)
	}
	after, err := residentShare(path)
	if err != nil {
		t.Fatal(err)
	}
	if before < 0.9 || after > 0.1 {
		t.Errorf("resident share %.2f after reading, %.2f after the drop; want the file cached, then dropped", before, after)
	}
}

func TestColdScenarioRunsANewProcessPerCall(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the cold scenario drops pages on Linux only")
	}
	dir := t.TempDir()
	// A stand-in binary that records its arguments: the scenario's own logic (the copy, the
	// drops, the rounds, the row) is under test here, not annals search.
	log := filepath.Join(dir, "calls")
	bin := filepath.Join(dir, "annals")
	script := "#!/bin/sh\necho \"$@\" >> " + log + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "bench.db")
	if err := os.WriteFile(db, make([]byte, 64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	b := &runner{opts: Options{AnnalsBin: bin, Iterations: 3, Budget: time.Minute}, log: os.Stderr, rep: &Report{}, untraced: map[string]bool{}}
	if err := b.coldScenario(context.Background(), &target{backend: "sqlite", dbPath: db}, dir); err != nil {
		t.Fatal(err)
	}
	if len(b.rep.Rows) != len(coldCases()) {
		t.Fatalf("got %d rows, want one per cold case", len(b.rep.Rows))
	}
	for _, r := range b.rep.Rows {
		if r.Scenario != "cold" || r.N != 3 || r.P50 <= 0 || r.Met == nil || !strings.Contains(r.Note, "resident after the drop") || !strings.Contains(r.Note, "file cached: p50") {
			t.Errorf("cold row %+v: want 3 cold samples, the target, the resident share and the warm figures", r)
		}
	}
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	calls := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(calls) != 2*3*len(coldCases()) || !strings.HasPrefix(calls[0], "search --db "+filepath.Join(dir, "cold.db")) {
		t.Errorf("got calls %q, want a cold and a warm search of the private copy per round", calls)
	}
	if _, err := os.Stat(filepath.Join(dir, "cold.db")); err == nil {
		t.Error("the private copy outlived the scenario")
	}
}
