package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals/bench"
	"github.com/annals-dev/annals/corpus"
)

// benchGenAbout is the help text of annals bench gen.
const benchGenAbout = "Write a synthetic corpus of agent transcripts in the capture format (docs/FORMAT.md):\nprompts, prose, tool calls with results, code, errors and stack traces, runs with\ntokens and cost, over several tenants, users and agents. The same flags give the same\nbytes. Planted terms make search benchmarks predictable: zqxrare in 1 of 100,000\nentries, zqxscarce in 1 of 1,000, mediumterm in 1 of 100, commonterm in 1 of 10.\nIngest the result with 'annals ingest FILE'."

func runBenchGen(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("bench gen", "[flags]", benchGenAbout)
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
	opts := bench.GenOptions{
		Corpus: corpus.Options{Seed: *seed, Entries: int(entries), Chats: *chats, Tenants: *tenants, Users: *users, Agents: *agents},
		Out:    *out, Stdout: m.Stdout,
	}
	// The report goes wherever the corpus does not, so that 'bench gen | annals ingest -' works.
	report := m.Stdout
	if *out == "-" {
		report = m.Stderr
	}
	var bar *genProgress
	if !*quiet && m.IsTerminal(m.Stderr) {
		bar = &genProgress{w: m.Stderr, total: opts.Corpus.Entries}
		opts.Progress = bar.update
	}
	rep, err := bench.Generate(ctx, opts)
	if bar != nil {
		bar.done()
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(report).Encode(rep)
	}
	return rep.WriteText(report)
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
