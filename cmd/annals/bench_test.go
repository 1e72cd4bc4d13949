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
	"strings"
	"testing"
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

func TestBenchWithoutASubcommandListsGen(t *testing.T) {
	tm := newTestMain(t)
	for _, args := range [][]string{{}, {"nope"}} {
		_, errOut, err := tm.bench(args...)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("bench %v: got error %v, want a usage error", args, err)
		}
		if !strings.Contains(errOut, "gen ") || !strings.Contains(errOut, "later") {
			t.Errorf("bench %v: got usage %q, want it to list gen and say scenarios come later", args, errOut)
		}
	}
	out, _, err := tm.bench("--help")
	if err != nil || !strings.Contains(out, "Subcommands:") {
		t.Errorf("bench --help: got %v and %q, want the usage on standard output", err, out)
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
