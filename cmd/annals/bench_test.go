package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bench runs 'annals bench args...'. It goes through the command table once bench is
// registered there, and calls runBench directly until then.
func (tm *testMain) bench(args ...string) (string, string, error) {
	tm.tb.Helper()
	for _, c := range NewMain().commands() {
		if c.name == "bench" {
			return tm.run("", append([]string{"bench"}, args...)...)
		}
	}
	var out, errOut bytes.Buffer
	m := NewMain()
	m.Stdin = strings.NewReader("")
	m.Stdout, m.Stderr = &out, &errOut
	m.Getenv = func(k string) string { return tm.env[k] }
	m.HomeDir = func() (string, error) { return tm.home, nil }
	m.IsTerminal = func(io.Writer) bool { return false }
	err := runBench(context.Background(), m, args)
	if errors.Is(err, flag.ErrHelp) { // what Main.Run does for --help
		err = nil
	}
	if cerr := m.Close(); cerr != nil {
		tm.tb.Errorf("close: %v", cerr)
	}
	return out.String(), errOut.String(), err
}

func TestBenchGenWritesACorpusThatIngests(t *testing.T) {
	tm := newTestMain(t)
	file := filepath.Join(t.TempDir(), "corpus.jsonl")
	out, errOut, err := tm.bench("gen", "--seed", "7", "--entries", "300", "--chats", "5", "--tenants", "2", "--out", file)
	if err != nil {
		t.Fatalf("bench gen: %v\nstderr: %s", err, errOut)
	}
	if !strings.Contains(out, "300 entries in 5 chats") || !strings.Contains(out, "zqxrare 1") {
		t.Errorf("got report %q, want it to count 300 entries in 5 chats and the markers", out)
	}

	got := tm.mustRun("", "ingest", file)
	if !strings.Contains(strings.Join(strings.Fields(got), " "), "entries appended 300") {
		t.Errorf("ingest of the corpus reported:\n%s\nwant 300 entries appended", got)
	}
	var list listJSON
	if err := json.Unmarshal([]byte(tm.mustRun("", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if list.Total != 5 {
		t.Errorf("list shows %d chats, want the 5 generated", list.Total)
	}
}

func TestBenchGenIsDeterministicOnStandardOutput(t *testing.T) {
	tm := newTestMain(t)
	a, errA, err := tm.bench("gen", "--entries", "1k", "--seed", "3")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := tm.bench("gen", "--entries", "1k", "--seed", "3")
	if err != nil {
		t.Fatal(err)
	}
	if a != b || len(a) == 0 {
		t.Errorf("two runs with the same flags wrote different corpora (%d and %d bytes)", len(a), len(b))
	}
	if !strings.Contains(errA, "1000 entries") {
		t.Errorf("got stderr %q, want the report there when the corpus goes to standard output", errA)
	}
	if strings.Count(a, `"type":"entry"`) != 1000 {
		t.Errorf("standard output holds %d entries, want 1000 and nothing but the corpus", strings.Count(a, `"type":"entry"`))
	}
}

func TestBenchGenJSONReport(t *testing.T) {
	tm := newTestMain(t)
	file := filepath.Join(t.TempDir(), "c.jsonl")
	out, _, err := tm.bench("gen", "--entries", "2k", "--out", file, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Out     string `json:"out"`
		Entries int    `json:"entries"`
		Bytes   int64  `json:"bytes"`
		Options struct {
			Seed    uint64 `json:"seed"`
			Entries int    `json:"entries"`
		} `json:"options"`
		Markers []struct {
			Term    string `json:"term"`
			Entries int    `json:"entries"`
		} `json:"markers"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Out != file || rep.Entries != 2000 || rep.Options.Entries != 2000 || rep.Options.Seed != 1 || rep.Bytes != fi.Size() || len(rep.Markers) != 4 {
		t.Errorf("got report %+v for a file of %d bytes", rep, fi.Size())
	}
}

func TestBenchRefusesUnknownSubcommandsAndScenarios(t *testing.T) {
	tm := newTestMain(t)
	for _, args := range [][]string{{"nope"}, {"--scenarios", "ingest,nope"}, {"--scenarios", ","}, {"--size", "50"}, {"--iterations", "0"}} {
		_, errOut, err := tm.bench(args...)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("bench %v: got error %v, want a usage error", args, err)
		}
		if args[0] == "nope" && !strings.Contains(err.Error(), "gen") {
			t.Errorf("bench nope: got %v (stderr %q), want the error to name the gen subcommand", err, errOut)
		}
	}
	out, _, err := tm.bench("--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Subcommands:", "gen", "-scenarios", "-size", "search", "concurrency", "apt-get install sqlite3"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench --help does not mention %q:\n%s", want, out)
		}
	}
}

func TestBenchGenRefusesBadCounts(t *testing.T) {
	tm := newTestMain(t)
	for _, args := range [][]string{
		{"gen", "--entries", "0"},
		{"gen", "--entries", "10x"},
		{"gen", "--entries", "1.5"},
		{"gen", "--tenants", "0"},
		{"gen", "extra"},
	} {
		_, _, err := tm.bench(args...)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("bench %v: got error %v, want a usage error", args, err)
		}
	}
}

func TestParseCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1, true}, {"5000", 5000, true}, {"100k", 100000, true}, {"100K", 100000, true},
		{"1M", 1000000, true}, {"1.5M", 1500000, true}, {"2.5k", 2500, true},
		{"0", 0, false}, {"-5", 0, false}, {"k", 0, false}, {"1.5", 0, false}, {"1e3x", 0, false}, {"NaN", 0, false},
	} {
		got, err := parseCount(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseCount(%q) = %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// benchJSON is the part of the bench report the tests read.
type benchJSON struct {
	Corpus struct {
		Entries        int    `json:"entries"`
		Chats          int    `json:"chats"`
		BigChatEntries int    `json:"big_chat_entries"`
		CachedDatabase bool   `json:"cached_database"`
		Embedded       int    `json:"embedded"`
		Database       string `json:"database"`
	} `json:"corpus"`
	Rows []struct {
		Scenario string  `json:"scenario"`
		Case     string  `json:"case"`
		Hits     *int    `json:"hits"`
		N        int     `json:"n"`
		P50      float64 `json:"p50_ms"`
		Rate     float64 `json:"rate"`
		Ratio    float64 `json:"ratio"`
		Baseline *struct {
			Name string  `json:"name"`
			P50  float64 `json:"p50_ms"`
			Rate float64 `json:"rate"`
		} `json:"baseline"`
		Note string `json:"note"`
	} `json:"results"`
	Gaps []struct {
		What string `json:"what"`
	} `json:"gaps"`
}

func TestBenchRunsEveryScenarioAtASmokeSizeAndCachesItsDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests a small corpus three times")
	}
	tm := newTestMain(t)
	dir := t.TempDir()
	size, chats := 600, 120
	if benchRace {
		size, chats = 200, 40
	}
	sizeArg := strconv.Itoa(size)
	args := []string{"--size", sizeArg, "--db-dir", dir, "--iterations", "2", "--budget", "1ms", "--duration", "30ms", "--quiet", "--json"}
	out, errOut, err := tm.bench(args...)
	if err != nil {
		t.Fatalf("bench: %v\nstderr: %s", err, errOut)
	}
	var rep benchJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	if rep.Corpus.Entries != size || rep.Corpus.Chats != chats || rep.Corpus.BigChatEntries != size || rep.Corpus.CachedDatabase {
		t.Errorf("got corpus %+v, want %d entries in %d chats, a %d-entry big chat, a database built by this run", rep.Corpus, size, chats, size)
	}
	if rep.Corpus.Embedded != chats+1 {
		t.Errorf("embedded %d chats, want all %d (related ranks every chat)", rep.Corpus.Embedded, chats+1)
	}
	seen := map[string]int{}
	for _, r := range rep.Rows {
		seen[r.Scenario]++
		switch {
		case r.Scenario == "ingest" && r.Case == "library (ingest.Ingest)":
			if r.Rate <= 0 || r.Baseline == nil || r.Baseline.Rate <= 0 || r.Ratio <= 0 {
				t.Errorf("library ingest row %+v lacks its rate, the raw baseline or the ratio", r)
			}
			if strings.Contains(r.Note, "differ") {
				t.Errorf("the raw baseline wrote different rows than the library: %s", r.Note)
			}
		case r.Scenario == "search" && r.Case == "rare term (1 in 100k)":
			// One planted in the corpus, one in the big chat.
			if r.Hits == nil || *r.Hits != 2 || r.N != 2 || r.P50 <= 0 {
				t.Errorf("rare-term row %+v: want 2 hits and 2 timed runs", r)
			}
		}
	}
	for _, s := range []string{"ingest", "search", "list", "get", "related", "export", "concurrency"} {
		if seen[s] == 0 {
			t.Errorf("no %s rows in the report", s)
		}
	}
	gaps := map[string]bool{}
	for _, g := range rep.Gaps {
		gaps[g.What] = true
	}
	if !gaps["ingest: annals ingest"] {
		t.Errorf("got gaps %v, want the annals ingest row reported as skipped under go test", rep.Gaps)
	}

	// The second run finds the corpus and the prepared database in the cache.
	out, errOut, err = tm.bench("--size", sizeArg, "--db-dir", dir, "--scenarios", "list", "--iterations", "1", "--quiet", "--json")
	if err != nil {
		t.Fatalf("second bench: %v\nstderr: %s", err, errOut)
	}
	rep = benchJSON{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Corpus.CachedDatabase || len(rep.Rows) == 0 {
		t.Errorf("second run: cached_database %v with %d rows, want the cached database reused", rep.Corpus.CachedDatabase, len(rep.Rows))
	}
}

func TestInlineSQLRendersArgumentsAsLiterals(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		args []any
		want string
		ok   bool
	}{
		{"SELECT ? , ?", []any{"it's", int64(3)}, "SELECT 'it''s' , 3", true},
		{"SELECT '?', ?", []any{1.5}, "SELECT '?', 1.5", true},
		{"SELECT ?", []any{1e18}, "SELECT 1e+18", true},
		{"SELECT ?", []any{2.0}, "SELECT 2.0", true},
		{"SELECT ?", []any{nil}, "SELECT NULL", true},
		{"SELECT $2, $1", []any{"a", 7}, "SELECT 7, 'a'", true},
		{"SELECT ?", nil, "", false},
		{"SELECT 1", []any{1}, "", false},
		{"SELECT ?", []any{struct{}{}}, "", false},
	} {
		got, err := inlineSQL(tc.sql, tc.args)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("inlineSQL(%q, %v) = %q, %v; want %q (ok %v)", tc.sql, tc.args, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseToolTimings(t *testing.T) {
	out := "Run Time: real 0.012 user 0.010000 sys 0.001000\nnoise\nRun Time: real 0.001 user 0.000500 sys 0.000000\n"
	got, err := parseSQLiteTimer(out)
	if err != nil || len(got) != 2 || got[0].wall != 12*time.Millisecond || got[0].cpu != 11*time.Millisecond || got[1].cpu != 500*time.Microsecond {
		t.Errorf("parseSQLiteTimer = %v, %v", got, err)
	}
	groups, err := groupTimes(append(got, got...), 2, 1)
	if err != nil || len(groups) != 1 || groups[0].wall != 13*time.Millisecond {
		t.Errorf("groupTimes = %v, %v; want one group of 13ms (the first group is the warm-up)", groups, err)
	}
	if _, err := groupTimes(got, 2, 1); err == nil {
		t.Error("groupTimes accepted too few timings")
	}
	ps := parsePsqlTiming("Timing is on.\nTime: 1.250 ms\nTime: 1234.500 ms (00:01.235)\n")
	if len(ps) != 2 || ps[0].wall != 1250*time.Microsecond || ps[1].wall != 1234500*time.Microsecond {
		t.Errorf("parsePsqlTiming = %v", ps)
	}
}

func TestDefaultBenchChats(t *testing.T) {
	for _, tc := range []struct{ size, want int }{{600, 120}, {10000, 2000}, {100000, 2000}, {1000000, 10000}, {10000000, 100000}} {
		if got := defaultBenchChats(tc.size); got != tc.want {
			t.Errorf("defaultBenchChats(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}
