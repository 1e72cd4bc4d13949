package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals/corpus"
)

// benchSubcommand is one subcommand of annals bench.
type benchSubcommand struct{ name, summary string }

// benchSubcommands lists the subcommands of annals bench. Without one, annals bench runs the
// benchmark scenarios (bench_run.go).
func benchSubcommands() []benchSubcommand {
	return []benchSubcommand{
		{"gen", "write a deterministic synthetic corpus in the capture format (JSON Lines)"},
	}
}

func runBench(ctx context.Context, m *Main, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "--help", "-help", "help":
			return runBenchScenarios(ctx, m, []string{"--help"})
		case "gen":
			return runBenchGen(ctx, m, args[1:])
		}
	}
	return runBenchScenarios(ctx, m, args)
}

func benchNames() string {
	subs := benchSubcommands()
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.name
	}
	return strings.Join(names, ", ")
}

// benchGenReport is what bench gen prints with --json.
type benchGenReport struct {
	Out     string        `json:"out"`
	Options corpusOptions `json:"options"`
	corpus.Stats
	Seconds float64 `json:"seconds"`
}

// corpusOptions are the effective generator options, echoed so a benchmark record says exactly
// which corpus it ran on.
type corpusOptions struct {
	Seed    uint64 `json:"seed"`
	Entries int    `json:"entries"`
	Chats   int    `json:"chats,omitempty"`
	Tenants int    `json:"tenants"`
	Users   int    `json:"users"`
	Agents  int    `json:"agents"`
}

func runBenchGen(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("bench gen", "[flags]", "Write a synthetic corpus of agent transcripts in the capture format (docs/FORMAT.md):\nprompts, prose, tool calls with results, code, errors and stack traces, runs with\ntokens and cost, over several tenants, users and agents. The same flags give the same\nbytes. Planted terms make search benchmarks predictable: zqxrare in 1 of 100,000\nentries, zqxscarce in 1 of 1,000, mediumterm in 1 of 100, commonterm in 1 of 10.\nIngest the result with 'annals ingest FILE'.")
	seed := fs.Uint64("seed", 1, "selects the corpus; the same seed and flags give the same bytes")
	entries := countFlag(100000)
	fs.Var(&entries, "entries", "total entries, exactly; accepts a k or M suffix (100k, 1.5M)")
	chats := fs.Int("chats", 0, fmt.Sprintf("number of chats (default: entries/%d, so about %d entries per chat)", corpus.DefaultEntriesPerChat, corpus.DefaultEntriesPerChat))
	tenants := fs.Int("tenants", corpus.DefaultTenants, "number of tenants")
	users := fs.Int("users", corpus.DefaultUsers, "number of users, spread over the tenants")
	agents := fs.Int("agents", corpus.DefaultAgents, "number of agents")
	out := fs.String("out", "-", "output file, or - for standard output")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	quiet := fs.Bool("quiet", false, "no progress display")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench gen takes no arguments, got %q (write to a file with --out FILE)", fs.Arg(0))
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"chats", *chats}, {"tenants", *tenants}, {"users", *users}, {"agents", *agents}} {
		if f.v < 0 || (f.v == 0 && f.name != "chats") {
			return usagef("--%s must be at least 1, got %d", f.name, f.v)
		}
	}
	opts := corpus.Options{Seed: *seed, Entries: int(entries), Chats: *chats, Tenants: *tenants, Users: *users, Agents: *agents}

	// The report goes wherever the corpus does not, so that 'bench gen | annals ingest -' works.
	var (
		w      io.Writer = m.Stdout
		report           = m.Stdout
		name             = "standard output"
		file   *os.File
	)
	if *out == "-" {
		report = m.Stderr
	} else {
		f, err := os.Create(*out)
		if err != nil {
			return fmt.Errorf("cannot write the corpus: %w", err)
		}
		file, w, name = f, f, *out
	}
	var bar *genProgress
	if !*quiet && m.IsTerminal(m.Stderr) {
		bar = &genProgress{w: m.Stderr, total: opts.Entries}
	}
	start := time.Now()
	st, err := corpus.Write(&ctxWriter{ctx: ctx, w: w}, opts, func(n int) {
		if bar != nil {
			bar.update(n)
		}
	})
	elapsed := time.Since(start)
	if bar != nil {
		bar.done()
	}
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(*out) // a half-written corpus would give a benchmark the wrong input
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}

	if *asJSON {
		enc := json.NewEncoder(report)
		return enc.Encode(benchGenReport{
			Out:     name,
			Options: corpusOptions{Seed: *seed, Entries: opts.Entries, Chats: *chats, Tenants: *tenants, Users: *users, Agents: *agents},
			Stats:   st,
			Seconds: math.Round(elapsed.Seconds()*1000) / 1000,
		})
	}
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(st.Entries) / s
	}
	fmt.Fprintf(report, "Wrote %s: %d entries in %d chats (%d lines, %s) in %s (%.0f entries/s)\n",
		name, st.Entries, st.Chats, st.Lines, humanBytes(st.Bytes), elapsed.Round(time.Millisecond), rate)
	fmt.Fprintf(report, "seed %d; %d tenants, %d users, %d agents; %d runs, %d tool calls (%d failed); %d chats to pin\n",
		*seed, *tenants, *users, *agents, st.Runs, st.ToolCalls, st.FailedToolCalls, len(st.Pinned))
	var marks []string
	for _, mc := range st.Markers {
		marks = append(marks, fmt.Sprintf("%s %d", mc.Term, mc.Entries))
	}
	fmt.Fprintf(report, "marker terms (entries): %s\n", strings.Join(marks, ", "))
	return nil
}

// countFlag is a positive count that accepts the suffixes k (thousand) and M (million).
type countFlag int

func (c *countFlag) String() string { return strconv.Itoa(int(*c)) }

// Type names the value in help (pflag.Value).
func (c *countFlag) Type() string { return "count" }

func (c *countFlag) Set(s string) error {
	n, err := parseCount(s)
	if err != nil {
		return err
	}
	*c = countFlag(n)
	return nil
}

// parseCount reads 1500, 100k, 1.5M. Counts must be at least 1.
func parseCount(s string) (int, error) {
	mult := 1.0
	num := s
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, num = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "M"), strings.HasSuffix(s, "m"):
		mult, num = 1e6, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a count such as 5000, 100k or 1.5M, got %q", s)
	}
	n := f * mult
	if n != math.Trunc(n) || n < 1 || n > 1e12 {
		return 0, fmt.Errorf("want a whole count of at least 1, such as 5000, 100k or 1.5M, got %q", s)
	}
	return int(n), nil
}

// ctxWriter stops a long generation when the command is interrupted.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// genProgress redraws one status line on a terminal.
type genProgress struct {
	w     io.Writer
	total int
	last  time.Time
	drawn bool
}

func (p *genProgress) update(n int) {
	if time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\r\033[Kgenerating %3.0f%%  %d of %d entries", 100*float64(n)/float64(max(p.total, 1)), n, p.total)
	p.drawn = true
}

func (p *genProgress) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
