package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/annals-dev/annals/bench"
	"github.com/spf13/pflag"
)

// The wiring of 'annals bench': its flags, their checks and what only the command knows (the
// cache directory from the environment, the tools on PATH, this executable, how a database
// location opens) become bench.Options; package bench runs the scenarios and writes the report.

// benchSubcommand is one subcommand of annals bench.
type benchSubcommand struct{ name, summary string }

// benchSubcommands lists the subcommands of annals bench. Without one, annals bench runs the
// benchmark scenarios.
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

// benchAbout is the help text of annals bench.
func benchAbout() string {
	var about strings.Builder
	about.WriteString("Run benchmark scenarios on a synthetic corpus and print a table (or --json). Each\n")
	about.WriteString("measurement is shown next to baselines from the same run: ingest against the same\n")
	about.WriteString("rows inserted with plain SQL through the same driver; search (and on PostgreSQL the\n")
	about.WriteString("list and related) against the SQL the store ran, replayed through the same driver and\n")
	about.WriteString("in the database's own client (sqlite3 or psql: apt-get install sqlite3 postgresql-client;\n")
	about.WriteString("skipped without it), sampled in turn with annals. A row states p95 from 20 samples and\n")
	about.WriteString("p99 from 100, never from fewer.\n")
	about.WriteString("The corpus and the ingested database are cached per size, chats and seed under --db-dir,\n")
	about.WriteString("so a second run skips generating and ingesting; --fresh rebuilds them.\n\nScenarios:\n")
	for _, s := range bench.Scenarios() {
		fmt.Fprintf(&about, "  %-12s %s\n", s.Name, s.Summary)
	}
	about.WriteString("\nSubcommands:\n")
	for _, s := range benchSubcommands() {
		fmt.Fprintf(&about, "  %-12s %s ('annals bench %s --help')\n", s.name, s.summary, s.name)
	}
	about.WriteString("\nNumbers and how to read them: docs/BENCHMARKS.md.")
	return about.String()
}

// benchFlags are the flags of annals bench once defined; parse fills them.
type benchFlags struct {
	scenarios, dir, jsonOut, postgres, sqlite3, psql, annals, cpuprofile *string
	size                                                                 countFlag
	chats, iterations, ingestRuns                                        *int
	seed                                                                 *uint64
	fresh, asJSON, quiet                                                 *bool
	budget, duration                                                     *time.Duration
}

func defineBenchFlags(fs *pflag.FlagSet) *benchFlags {
	f := &benchFlags{size: countFlag(100000)}
	f.scenarios = fs.String("scenarios", strings.Join(bench.ScenarioNames(), ","), "comma-separated scenarios to run")
	fs.Var(&f.size, "size", "corpus entries: 10k, 100k, 1M (any count; a k or M suffix)")
	f.chats = fs.Int("chats", 0, "chats in the corpus (default: size/100, at least 2000 where the size allows, so related can reach its candidate cap)")
	f.seed = fs.Uint64("seed", 1, "corpus seed")
	f.dir = fs.String("db-dir", "", "directory for the cached corpora and databases and the scratch databases (default $XDG_CACHE_HOME/annals/bench, else the user cache directory)")
	f.fresh = fs.Bool("fresh", false, "regenerate the corpus and rebuild the database even if cached")
	f.asJSON = fs.Bool("json", false, "print the report as JSON")
	f.jsonOut = fs.String("json-out", "", "also write the JSON report to this file (the table still goes to standard output)")
	f.quiet = fs.Bool("quiet", false, "no progress messages on standard error")
	f.iterations = fs.Int("iterations", 100, "most timed rounds per latency case, each sampling annals and every baseline once (p99 needs 100)")
	f.budget = fs.Duration("budget", 15*time.Second, "time per latency case after which no new round starts, once it has min(20, --iterations) rounds")
	f.duration = fs.Duration("duration", 5*time.Second, "how long each concurrency level runs")
	f.ingestRuns = fs.Int("ingest-runs", 2, "times the raw baseline, the library and the annals binary each ingest, alternately; the best rate of each counts")
	f.postgres = fs.String("postgres", "", "also run the scenarios on this PostgreSQL database (postgres://...); it must be empty or hold this corpus")
	f.sqlite3 = fs.String("sqlite3", "sqlite3", "the sqlite3 command-line tool for the native baseline; empty skips it")
	f.psql = fs.String("psql", "psql", "the psql tool for the PostgreSQL baseline; empty skips it")
	f.annals = fs.String("annals", "", "annals binary for the 'annals ingest' row (default: this executable)")
	f.cpuprofile = fs.String("cpuprofile", "", "write a CPU profile per scenario into this directory (go tool pprof)")
	return f
}

func runBenchScenarios(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("bench", "[flags] | annals bench gen [flags]", benchAbout())
	f := defineBenchFlags(fs)
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unknown bench subcommand %q (want one of: %s, or flags to run the scenarios)", fs.Arg(0), benchNames())
	}
	opts, err := m.benchOptions(f, args)
	if err != nil {
		return err
	}
	rep, err := bench.Run(ctx, opts)
	if err != nil {
		return err
	}
	if *f.jsonOut != "" {
		var buf bytes.Buffer
		if err := rep.WriteJSON(&buf); err != nil {
			return err
		}
		if err := os.WriteFile(*f.jsonOut, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("cannot write the report: %w", err)
		}
	}
	if *f.asJSON {
		return rep.WriteJSON(m.Stdout)
	}
	return rep.WriteText(m.Stdout)
}
