package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bench runs 'annals bench args...' through the command table, as the binary does.
func (tm *testMain) bench(args ...string) (string, string, error) {
	tm.tb.Helper()
	return tm.run("", append([]string{"bench"}, args...)...)
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
	Command string `json:"command"`
	Corpus  struct {
		Entries        int  `json:"entries"`
		Chats          int  `json:"chats"`
		CachedDatabase bool `json:"cached_database"`
	} `json:"corpus"`
	Rows []struct {
		Scenario string    `json:"scenario"`
		Case     string    `json:"case"`
		Rate     float64   `json:"rate"`
		P50      float64   `json:"p50_ms"`
		Baseline *struct{} `json:"baseline"`
	} `json:"results"`
	Gaps []struct {
		What string `json:"what"`
	} `json:"gaps"`
}

// The scenarios themselves are tested in package bench; this checks the wiring: the flags reach
// the run, the scenarios chosen are the ones run, and both report forms come out.
func TestBenchCommandRunsTheChosenScenariosAndWritesBothReports(t *testing.T) {
	tm := newTestMain(t)
	dir := t.TempDir()
	jsonOut := filepath.Join(t.TempDir(), "report.json")
	args := []string{"--size", "300", "--scenarios", "ingest,list", "--db-dir", dir, "--iterations", "2", "--budget", "1ms", "--quiet", "--json", "--json-out", jsonOut}
	out, errOut, err := tm.bench(args...)
	if err != nil {
		t.Fatalf("bench: %v\nstderr: %s", err, errOut)
	}
	if errOut != "" {
		t.Errorf("--quiet run wrote to stderr: %q", errOut)
	}
	var rep benchJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	if rep.Command != "annals bench "+strings.Join(args, " ") || rep.Corpus.Entries != 300 || rep.Corpus.Chats != 60 || rep.Corpus.CachedDatabase {
		t.Errorf("got command %q and corpus %+v, want the command line echoed and 300 entries in the default 60 chats", rep.Command, rep.Corpus)
	}
	seen := map[string]int{}
	for _, r := range rep.Rows {
		seen[r.Scenario]++
		if r.Scenario == "ingest" && r.Case == "library (ingest.Ingest)" && (r.Rate <= 0 || r.Baseline == nil) {
			t.Errorf("library ingest row %+v lacks its rate or the raw baseline", r)
		}
	}
	if seen["ingest"] < 3 || seen["list"] != 3 || len(seen) != 2 {
		t.Errorf("got rows per scenario %v, want ingest and the 3 list rows only", seen)
	}
	saved, err := os.ReadFile(jsonOut)
	if err != nil || string(saved) != out {
		t.Errorf("--json-out holds %d bytes (%v), want the same report as standard output (%d bytes)", len(saved), err, len(out))
	}

	// The table, from the cached database.
	out, errOut, err = tm.bench("--size", "300", "--scenarios", "list", "--db-dir", dir, "--iterations", "1", "--quiet")
	if err != nil {
		t.Fatalf("second bench: %v\nstderr: %s", err, errOut)
	}
	for _, want := range []string{"annals bench: 300 entries in 60 chats (seed 1)", "SCENARIO", "first page (50), all tenants", "Targets (issues 7 and 16"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\ningest ") {
		t.Errorf("a list-only run reports ingest:\n%s", out)
	}
}
