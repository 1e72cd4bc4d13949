package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// openSQLite is the Options.Open of these tests: every location is a SQLite file.
func openSQLite(ctx context.Context, location string) (annals.Store, error) {
	return sqlite.Open(ctx, location, sqlite.Options{})
}

// sqliteHooks is the Options.SQLite of these tests, as cmd/ wires it.
func sqliteHooks() SQLiteHooks {
	return SQLiteHooks{
		NewBaselineWriter: func(ctx context.Context, path string) (BaselineWriter, error) {
			w, err := sqlite.NewBaselineWriter(ctx, path)
			if err != nil {
				return nil, err
			}
			return w, nil
		},
		Summarize: sqlite.Summarize, EngineVersion: sqlite.EngineVersion, OpenReplay: sqlite.OpenReplay,
	}
}

// smokeOptions runs every scenario on a tiny corpus, as fast as the scenarios allow.
func smokeOptions(t *testing.T, dir string) Options {
	size := 600
	if benchRace {
		size = 200
	}
	opts := Options{
		Size: size, Seed: 1, Dir: dir, Iterations: 2, Budget: time.Millisecond, Duration: 30 * time.Millisecond,
		IngestRuns: 1, Command: "annals bench --smoke", Open: openSQLite, SQLite: sqliteHooks(),
	}
	if p, err := exec.LookPath("sqlite3"); err == nil {
		opts.SQLite3 = p
	}
	return opts
}

func TestRunsEveryScenarioAtASmokeSizeAndCachesItsDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests a small corpus three times")
	}
	dir := t.TempDir()
	opts := smokeOptions(t, dir)
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	chats := DefaultChats(opts.Size)
	c := rep.Corpus
	if c.Entries != opts.Size || c.Chats != chats || c.BigChatEntries != opts.Size || c.CachedDatabase || c.Share == nil || c.Embedded != chats+1+c.Share.Chats {
		t.Errorf("got corpus %+v, want %d entries in %d chats, a %d-entry big chat, every chat embedded (the 1%% tenant's too), built by this run", c, opts.Size, chats, opts.Size)
	}
	if rep.Command != opts.Command || rep.Targets == "" || rep.Machine.Cores < 1 || !strings.HasPrefix(rep.Build.SQLite, "3.") {
		t.Errorf("report header: command %q, targets %q, machine %+v, build %+v", rep.Command, rep.Targets, rep.Machine, rep.Build)
	}
	seen := map[string]int{}
	hits := map[string]int{}
	for _, r := range rep.Rows {
		seen[r.Scenario]++
		checkSmokeRow(t, r, opts.SQLite3 != "")
		if r.Scenario == "search" && r.Hits != nil {
			hits[r.Case] = *r.Hits
		}
	}
	// The owner cases search as members: a user's chats are some of a tenant's, which are some
	// of every tenant's (under -race the corpus is too small for the user to have any).
	all, tenant, user := hits["common term (10%)"], hits["common term, one tenant"], hits["common term, one user"]
	if user > tenant || tenant <= 0 || tenant >= all || (user == 0 && !benchRace) || user == tenant {
		t.Errorf("common-term hits: %d over every tenant, %d in one tenant, %d of one user; want 0 < user < tenant < all", all, tenant, user)
	}
	checkTypedRows(t, rep)
	if !hasRow(rep.Rows, "ingest", "decode + redact only (1 pass, no database)") {
		t.Error("no redaction-only ingest row")
	}
	for _, s := range ScenarioNames() {
		if seen[s] == 0 && s != "memory" && s != "cold" {
			t.Errorf("no %s rows in the report", s)
		}
	}
	gaps := map[string]bool{}
	for _, g := range rep.Gaps {
		gaps[g.What] = true
	}
	if !gaps["ingest: annals ingest"] || !gaps["ingest: HTTP"] || !gaps["memory"] || !gaps["cold"] {
		t.Errorf("got gaps %v, want the rows that need the annals binary reported as skipped", rep.Gaps)
	}

	// The second run finds the corpus and the prepared database in the cache.
	opts.Scenarios = []string{"list"}
	rep, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Corpus.CachedDatabase || len(rep.Rows) != 3 {
		t.Errorf("second run: cached_database %v with %d rows, want the cached database reused and 3 list rows", rep.Corpus.CachedDatabase, len(rep.Rows))
	}
	checkUpgradeFromPreviousRecipe(t, opts)
}

// checkUpgradeFromPreviousRecipe turns the cached database into one of the previous recipe and
// runs again: the run copies it into this recipe's directory, brings it up to date there, and
// leaves the old one as it was.
func checkUpgradeFromPreviousRecipe(t *testing.T, opts Options) {
	t.Helper()
	key := fmt.Sprintf("%s-chats%d-seed%d", countLabel(opts.Size), DefaultChats(opts.Size), opts.Seed)
	cur := filepath.Join(opts.Dir, fmt.Sprintf("v%d", cacheVersion), key)
	old := filepath.Join(opts.Dir, fmt.Sprintf("v%d", cacheVersion-1), key)
	if err := os.MkdirAll(filepath.Dir(old), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(cur, old); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, "meta.json"), []byte(`{"version": 1, "embedded": 5}`), 0o600); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(old, "bench.db"))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	opts.Log = &log
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(old, "bench.db"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) || !strings.Contains(log.String(), "copied the version 1 database") {
		t.Errorf("upgrade: the old database changed (%v) or was not copied; log:\n%s", !bytes.Equal(before, after), log.String())
	}
	if rep.Corpus.Share == nil || rep.Corpus.Share.Chats < 1 || rep.Corpus.CachedDatabase || rep.Corpus.Embedded < 5 {
		t.Errorf("upgraded corpus %+v: want the 1%% tenant counted, built by this run from the copy", rep.Corpus)
	}
}

// checkSmokeRow checks the rows whose outcome the corpus fixes in advance.
func checkSmokeRow(t *testing.T, r Row, sqlite3 bool) {
	t.Helper()
	switch {
	case r.Scenario == "ingest" && r.Case == "library (ingest.Ingest)":
		if r.Rate <= 0 || r.Baseline == nil || r.Baseline.Rate <= 0 || r.Ratio <= 0 {
			t.Errorf("library ingest row %+v lacks its rate, the raw baseline or the ratio", r)
		}
		if runtime.GOOS == "linux" && (r.CPURatio <= 0 || !strings.Contains(r.Note, "CPU per entry")) {
			t.Errorf("library ingest row %+v lacks the ratio of CPU per entry", r)
		}
		if strings.Contains(r.Note, "differ") || strings.Contains(r.Note, "cannot compare") {
			t.Errorf("the raw baseline wrote different rows than the library: %s", r.Note)
		}
	case r.Scenario == "search" && r.Case == "rare term (1 in 100k)":
		// One planted in the corpus, one in the big chat.
		if r.Hits == nil || *r.Hits != 2 || r.N != 2 || r.P50 <= 0 {
			t.Errorf("rare-term row %+v: want 2 hits and 2 timed runs", r)
		}
		// The same SQL through the same driver is sampled in turn with annals, always.
		if r.Driver == nil || r.Driver.Name != "same driver" || r.Driver.N != 2 || r.OwnRatio <= 0 {
			t.Errorf("rare-term row %+v: want the same-driver replay sampled twice beside annals", r)
		}
		// A sqlite3 older than the driver's SQLite cannot read the chat index (contentless_delete
		// needs 3.43): the native column stays empty, and the note says why.
		switch {
		case !sqlite3:
		case strings.Contains(r.Note, "sqlite3 could not replay"):
			if r.Baseline != nil {
				t.Errorf("rare-term row %+v: a baseline that could not replay is reported", r)
			}
		case r.Baseline == nil || r.Baseline.Name != "sqlite3" || r.Baseline.N != 2 || r.DriverGap <= 0:
			t.Errorf("rare-term row %+v: want the sqlite3 baseline replayed twice", r)
		}
	case r.Scenario == "ingest" && strings.HasPrefix(r.Case, "decode + redact only"):
		if r.Rate <= 0 || r.Unit != "entries/s" {
			t.Errorf("redaction-only row %+v: want its rate", r)
		}
	case r.Scenario == "concurrency":
		if r.Rate <= 0 || r.N == 0 || r.Unit != "searches/s" {
			t.Errorf("concurrency row %+v: want searches counted", r)
		}
	}
}

func TestRunRefusesOptionsNoRunCanUse(t *testing.T) {
	good := Options{Size: 1000, Dir: t.TempDir(), Iterations: 1, IngestRuns: 1, Budget: time.Second, Duration: time.Second, Open: openSQLite, SQLite: sqliteHooks()}
	for name, change := range map[string]func(*Options){
		"no opener":        func(o *Options) { o.Open = nil },
		"no sqlite hooks":  func(o *Options) { o.SQLite.OpenReplay = nil },
		"no directory":     func(o *Options) { o.Dir = "" },
		"unknown scenario": func(o *Options) { o.Scenarios = []string{"nope"} },
		"tiny corpus":      func(o *Options) { o.Size = 50 },
		"too many chats":   func(o *Options) { o.Chats = 600 },
		"no iterations":    func(o *Options) { o.Iterations = 0 },
	} {
		o := good
		change(&o)
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("%s: Run succeeded, want an error", name)
		}
	}
}

func TestDefaultChats(t *testing.T) {
	for _, tc := range []struct{ size, want int }{{600, 120}, {10000, 2000}, {100000, 2000}, {1000000, 10000}, {10000000, 100000}} {
		if got := DefaultChats(tc.size); got != tc.want {
			t.Errorf("DefaultChats(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}

func TestReportWritesTablesAndJSON(t *testing.T) {
	rep := &Report{
		Date: "2026-12-02T00:00:00Z", Command: "annals bench", Targets: "t",
		Corpus: Corpus{Entries: 12345, Chats: 120, Seed: 3},
		Build:  Build{Commit: "abc123", CommitFromCheckout: true},
		Rows: []Row{
			{Scenario: "ingest", Case: "library", Backend: "sqlite", Rate: 50000, Unit: "entries/s",
				Baseline: &Baseline{Name: "raw", Rate: 60000}, Ratio: 0.83, Target: ">= 0.8x", Met: boolp(true)},
			{Scenario: "search", Case: "rare", Backend: "sqlite", Hits: intp(2), N: 5, P50: 1.5, P95: 2, P99: 2.5,
				Baseline: &Baseline{Name: "sqlite3", P50: 1.2}, Ratio: 1.25, Target: "p50<20", Met: boolp(false)},
		},
		Gaps: []Gap{{What: "memory", Why: "no binary"}},
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"12,345 entries in 120 chats (seed 3)", "50,000", "60,000 (raw)", "0.83x", ">= 0.8x met", "p50<20 MISSED", "1.50", "Not measured:\n  memory: no binary", "Targets (t).",
		"commit abc123 (the working directory's checkout: the binary carries no revision)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the tables lack %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Results []map[string]any `json:"results"`
		Gaps    []Gap            `json:"gaps"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Results) != 2 || back.Results[1]["p50_ms"] != 1.5 || back.Results[0]["unit"] != "entries/s" || len(back.Gaps) != 1 {
		t.Errorf("JSON report round-trips as %+v", back)
	}
	if !strings.HasSuffix(js.String(), "}\n") || !strings.Contains(js.String(), "\n  \"results\"") {
		t.Errorf("want indented JSON ending in a newline, got %q", js.String())
	}
}

func hasRow(rows []Row, scenario, c string) bool {
	for _, r := range rows {
		if r.Scenario == scenario && r.Case == c {
			return true
		}
	}
	return false
}
