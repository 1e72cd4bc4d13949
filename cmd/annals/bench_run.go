package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
)

// The benchmark harness: annals bench runs named scenarios on a cached synthetic corpus and
// prints each measurement next to a baseline measured in the same run (plain SQL through the
// same driver for ingest, the sqlite3 command-line tool for search), because on a shared,
// noisy machine a ratio means more than an absolute time. Nothing here is imported by a
// library package: the harness drives annals only through its public surfaces (ingest.Ingest,
// annals.Store, history.Service, the annals binary).

// benchScenario is one named scenario.
type benchScenario struct {
	name, summary string
}

// benchScenarios lists the scenarios in the order they run.
func benchScenarios() []benchScenario {
	return []benchScenario{
		{"ingest", "entries/s through the library, the annals binary, HTTP and plain SQL (the raw baseline)"},
		{"search", "p50/p95/p99 of search queries, and the same SQL in the sqlite3 tool (the native baseline)"},
		{"list", "first page and a deep page of the chat list"},
		{"get", "first page of a 10k-entry chat"},
		{"related", "related chats at the candidate cap (every chat embedded)"},
		{"export", "Markdown export of a 10k-entry chat"},
		{"concurrency", "search throughput with 1, 2, 4 and 8 readers while one writer ingests"},
		{"memory", "peak RSS of annals serve during the search scenario"},
	}
}

// benchConfig is the parsed command line of annals bench.
type benchConfig struct {
	scenarios  []string
	size       int
	chats      int
	seed       uint64
	dir        string
	fresh      bool
	asJSON     bool
	quiet      bool
	iterations int
	ingestRuns int
	budget     time.Duration
	duration   time.Duration
	postgres   string
	sqlite3    string // path of the sqlite3 tool; "" skips the native baseline
	psql       string
	annalsBin  string // "" skips the annals ingest row
	cpuprofile string
	args       []string
}

// Targets from the benchmark issue, measured at 1M entries / 10k chats on SQLite. They are
// printed next to the numbers at every size, so a smaller run shows the trend.
const (
	targetIngestRatio   = 0.8
	targetSearchRatio   = 1.25
	targetSearchP50     = 20 * time.Millisecond
	targetSearchP99     = 150 * time.Millisecond
	targetListFirstPage = 5 * time.Millisecond
	targetServeRSS      = 300_000_000 // bytes
)

func runBenchScenarios(ctx context.Context, m *Main, args []string) error {
	var names []string
	for _, s := range benchScenarios() {
		names = append(names, s.name)
	}
	var about strings.Builder
	about.WriteString("Run benchmark scenarios on a synthetic corpus and print a table (or --json). Each\n")
	about.WriteString("measurement is shown next to a baseline from the same run: ingest against the same\n")
	about.WriteString("rows inserted with plain SQL through the same driver, search against the same SQL run\n")
	about.WriteString("by the sqlite3 command-line tool (apt-get install sqlite3; skipped without it).\n")
	about.WriteString("The corpus and the ingested database are cached per size, chats and seed under --db-dir,\n")
	about.WriteString("so a second run skips generating and ingesting; --fresh rebuilds them.\n\nScenarios:\n")
	for _, s := range benchScenarios() {
		fmt.Fprintf(&about, "  %-12s %s\n", s.name, s.summary)
	}
	about.WriteString("\nSubcommands:\n")
	for _, s := range benchSubcommands() {
		fmt.Fprintf(&about, "  %-12s %s ('annals bench %s --help')\n", s.name, s.summary, s.name)
	}
	about.WriteString("\nNumbers and how to read them: docs/BENCHMARKS.md.")
	fs := m.flagSet("bench", "[flags] | annals bench gen [flags]", about.String())
	scen := fs.String("scenarios", strings.Join(names, ","), "comma-separated scenarios to run")
	size := countFlag(100000)
	fs.Var(&size, "size", "corpus entries: 10k, 100k, 1M (any count; a k or M suffix)")
	chats := fs.Int("chats", 0, "chats in the corpus (default: size/100, at least 2000 where the size allows, so related can reach its candidate cap)")
	seed := fs.Uint64("seed", 1, "corpus seed")
	dir := fs.String("db-dir", "", "directory for the cached corpora and databases and the scratch databases (default $XDG_CACHE_HOME/annals/bench, else the user cache directory)")
	fresh := fs.Bool("fresh", false, "regenerate the corpus and rebuild the database even if cached")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	jsonOut := fs.String("json-out", "", "also write the JSON report to this file (the table still goes to standard output)")
	quiet := fs.Bool("quiet", false, "no progress messages on standard error")
	iterations := fs.Int("iterations", 50, "timed runs per latency case (fewer when --budget runs out first; at least 5)")
	budget := fs.Duration("budget", 3*time.Second, "time budget per latency case")
	duration := fs.Duration("duration", 5*time.Second, "how long each concurrency level runs")
	ingestRuns := fs.Int("ingest-runs", 1, "times the raw baseline and the library ingest each run, alternately; the best rate of each counts")
	postgres := fs.String("postgres", "", "also run the scenarios on this PostgreSQL database (postgres://...); it must be empty or hold this corpus")
	sqlite3Path := fs.String("sqlite3", "sqlite3", "the sqlite3 command-line tool for the native baseline; empty skips it")
	psqlPath := fs.String("psql", "psql", "the psql tool for the PostgreSQL baseline; empty skips it")
	bin := fs.String("annals", "", "annals binary for the 'annals ingest' row (default: this executable)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile per scenario into this directory (go tool pprof)")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unknown bench subcommand %q (want one of: %s, or flags to run the scenarios)", fs.Arg(0), benchNames())
	}
	cfg := &benchConfig{
		size: int(size), chats: *chats, seed: *seed, fresh: *fresh, asJSON: *asJSON, quiet: *quiet,
		iterations: *iterations, ingestRuns: *ingestRuns, budget: *budget, duration: *duration, postgres: *postgres,
		cpuprofile: *cpuprofile, args: args,
	}
	for _, s := range strings.Split(*scen, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !slices.Contains(names, s) {
			return usagef("unknown scenario %q (want any of: %s)", s, strings.Join(names, ", "))
		}
		if !slices.Contains(cfg.scenarios, s) {
			cfg.scenarios = append(cfg.scenarios, s)
		}
	}
	if len(cfg.scenarios) == 0 {
		return usagef("--scenarios is empty (want any of: %s)", strings.Join(names, ", "))
	}
	if cfg.size < 100 {
		return usagef("--size must be at least 100 entries, got %d", cfg.size)
	}
	if cfg.chats < 0 || (cfg.chats > 0 && cfg.chats > cfg.size/2) {
		return usagef("--chats must be between 1 and size/2 (%d), got %d", cfg.size/2, cfg.chats)
	}
	if cfg.chats == 0 {
		cfg.chats = defaultBenchChats(cfg.size)
	}
	if cfg.iterations < 1 || cfg.ingestRuns < 1 || cfg.budget <= 0 || cfg.duration <= 0 {
		return usagef("--iterations, --ingest-runs, --budget and --duration must be positive")
	}
	var err error
	if cfg.dir, err = m.benchDir(*dir); err != nil {
		return err
	}
	cfg.sqlite3 = lookTool(*sqlite3Path)
	cfg.psql = lookTool(*psqlPath)
	if cfg.annalsBin, err = annalsBinary(*bin); err != nil {
		return err
	}

	b := &bench{m: m, cfg: cfg, start: time.Now(), untraced: map[string]bool{}}
	if !cfg.quiet {
		b.log = m.Stderr
	} else {
		b.log = io.Discard
	}
	rep, err := b.run(ctx)
	if err != nil {
		return err
	}
	if *jsonOut != "" {
		raw, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, append(raw, '\n'), 0o644); err != nil {
			return fmt.Errorf("cannot write the report: %w", err)
		}
	}
	if cfg.asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return writeBenchReport(m.Stdout, rep)
}

// defaultBenchChats is size/100 (the 1M entries in 10k chats), raised to 2000 chats
// where each still gets 5 entries, so that related reaches its candidate cap of 2000 at 100k too.
func defaultBenchChats(size int) int {
	return max(size/100, min(annals.DefaultCandidateCap, size/5), 1)
}

// benchDir resolves --db-dir: the flag, else $XDG_CACHE_HOME/annals/bench, else the user cache
// directory. Cached data is disposable, so a cache directory is the right home for it.
func (m *Main) benchDir(flagValue string) (string, error) {
	if flagValue != "" {
		return filepath.Abs(flagValue)
	}
	if v := m.Getenv("XDG_CACHE_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "annals", "bench"), nil
	}
	home, err := m.HomeDir()
	if err == nil && home != "" {
		return filepath.Join(home, ".cache", "annals", "bench"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", usagef("cannot find a cache directory for the benchmark data; pass --db-dir DIR")
	}
	return filepath.Join(d, "annals", "bench"), nil
}

// lookTool returns the path of a command-line tool, or "" when it is not installed.
func lookTool(name string) string {
	if name == "" {
		return ""
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// annalsBinary is the binary the 'annals ingest' row runs. A test binary (package main's tests)
// cannot stand in for annals, so the row is skipped there unless --annals names one.
func annalsBinary(flagValue string) (string, error) {
	if flagValue != "" {
		p, err := exec.LookPath(flagValue)
		if err != nil {
			return "", usagef("--annals %q: %v", flagValue, err)
		}
		return filepath.Abs(p)
	}
	exe, err := os.Executable()
	if err != nil || strings.HasSuffix(filepath.Base(exe), ".test") {
		return "", nil
	}
	return exe, nil
}

// bench is one run of the harness.
type bench struct {
	m     *Main
	cfg   *benchConfig
	log   io.Writer
	start time.Time
	rep   *benchReport
	data  *benchData
	// untraced records the backends whose stores report no SQL, so the gap is said once.
	untraced map[string]bool
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "bench: "+format+"\n", args...)
}

func (b *bench) wants(s string) bool { return slices.Contains(b.cfg.scenarios, s) }

// run prepares the data and runs every selected scenario on SQLite, then on PostgreSQL when a
// DSN is given.
func (b *bench) run(ctx context.Context) (*benchReport, error) {
	b.rep = &benchReport{
		Date:    b.start.UTC().Format(time.RFC3339),
		Command: "annals bench " + strings.Join(b.cfg.args, " "),
		Machine: machineInfo(b.cfg.dir),
		Build:   buildInfo(ctx, b.cfg.sqlite3, b.cfg.psql),
		Targets: "issue 7, at 1M entries / 10k chats on SQLite: ingest >= 0.8x raw; search <= 1.25x sqlite3; single-term p50 < 20 ms, p99 < 150 ms; first list page < 5 ms; serve peak RSS < 300 MB",
	}
	if err := os.MkdirAll(b.cfg.dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the benchmark directory: %w", err)
	}
	data, err := b.prepareCorpus(ctx)
	if err != nil {
		return nil, err
	}
	b.data = data
	b.rep.Corpus = data.report()
	scratch, err := os.MkdirTemp(data.dir, "scratch-")
	if err != nil {
		return nil, fmt.Errorf("cannot create a scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)

	if b.wants("ingest") {
		if err := b.profiled("sqlite-ingest", func() error { return b.ingestScenario(ctx, scratch) }); err != nil {
			return nil, err
		}
	}
	if b.needsDatabase() {
		if err := b.ensureDatabase(ctx, ""); err != nil {
			return nil, err
		}
		b.rep.Corpus = data.report()
		if err := b.runReadScenarios(ctx, sqliteTarget(b, data.dbPath), scratch); err != nil {
			return nil, err
		}
	}
	if b.cfg.postgres != "" {
		if err := b.runPostgres(ctx, scratch); err != nil {
			return nil, err
		}
	}
	b.rep.Seconds = roundTo(time.Since(b.start).Seconds(), 1)
	b.rep.Machine.LoadAfter = loadAverage()
	return b.rep, nil
}

func (b *bench) needsDatabase() bool {
	for _, s := range b.cfg.scenarios {
		if s != "ingest" {
			return true
		}
	}
	return false
}

// benchTarget is one backend with its bench database open.
type benchTarget struct {
	backend string // sqlite or postgres
	store   annals.Store
	svc     *history.Service
	ctx     context.Context // carries the admin principal
	// dbPath is the SQLite file (for the sqlite3 baseline), dsn the PostgreSQL database.
	dbPath, dsn string
	close       func() error
}

func sqliteTarget(b *bench, path string) func(ctx context.Context) (*benchTarget, error) {
	return func(ctx context.Context) (*benchTarget, error) {
		store, err := b.open(ctx, path)
		if err != nil {
			return nil, err
		}
		t, err := newTarget(ctx, "sqlite", store)
		if err != nil {
			return nil, err
		}
		t.dbPath = path
		return t, nil
	}
}

// open opens a store through openDB, the one place that picks a backend from a location, and
// takes ownership of it: the harness opens several databases and closes each itself.
func (b *bench) open(ctx context.Context, location string) (annals.Store, error) {
	s, err := b.m.openDB(ctx, location, false)
	if err != nil {
		return nil, err
	}
	b.m.store = nil
	return s, nil
}

// benchPrincipal is an admin allowed every scope: the scenarios search the whole corpus
// (scope global), the widest and so the slowest case.
func benchPrincipal() *annals.Principal {
	return &annals.Principal{TenantID: "bench", UserID: "bench", Role: annals.RoleAdmin, Scopes: annals.Scopes}
}

func newTarget(ctx context.Context, backend string, store annals.Store) (*benchTarget, error) {
	emb, err := embed.NewHashing(0)
	if err != nil {
		store.Close()
		return nil, err
	}
	return &benchTarget{
		backend: backend,
		store:   store,
		svc:     history.New(history.Config{Store: store, Embedder: emb}),
		ctx:     annals.NewContextWithPrincipal(ctx, benchPrincipal()),
		close:   store.Close,
	}, nil
}

// runReadScenarios runs every selected scenario but ingest on one backend.
func (b *bench) runReadScenarios(ctx context.Context, openTarget func(context.Context) (*benchTarget, error), scratch string) error {
	t, err := openTarget(ctx)
	if err != nil {
		return err
	}
	defer t.close()
	steps := []struct {
		name string
		fn   func() error
	}{
		{"search", func() error { return b.searchScenario(ctx, t) }},
		{"list", func() error { return b.listScenario(t) }},
		{"get", func() error { return b.getScenario(t) }},
		{"related", func() error { return b.relatedScenario(t) }},
		{"export", func() error { return b.exportScenario(t) }},
		{"concurrency", func() error { return b.concurrencyScenario(ctx, t, scratch) }},
		{"memory", func() error { return b.memoryScenario(ctx, t, scratch) }},
	}
	for _, s := range steps {
		if !b.wants(s.name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := b.profiled(t.backend+"-"+s.name, s.fn); err != nil {
			return fmt.Errorf("%s scenario on %s: %w", s.name, t.backend, err)
		}
	}
	return nil
}

// profiled runs fn under a CPU profile written to --cpuprofile/<name>.pprof, when asked for.
func (b *bench) profiled(name string, fn func() error) error {
	if b.cfg.cpuprofile == "" {
		return fn()
	}
	if err := os.MkdirAll(b.cfg.cpuprofile, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(b.cfg.cpuprofile, name+".pprof"))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	return fn()
}

// runPostgres runs the scenarios on the PostgreSQL database given by --postgres. The store is
// opened through openDB like any other location, so the harness needs no change when the
// backend lands; until then openDB refuses the DSN and the report says so.
func (b *bench) runPostgres(ctx context.Context, scratch string) error {
	store, err := b.open(ctx, b.cfg.postgres)
	if err != nil {
		b.gap("postgres", fmt.Sprintf("cannot open %s: %s", displayLocation(b.cfg.postgres), annals.ErrorMessage(err)))
		return nil
	}
	t, err := newTarget(ctx, "postgres", store)
	if err != nil {
		return err
	}
	t.dsn = b.cfg.postgres
	ready, err := b.ensurePostgres(ctx, t)
	if err != nil {
		t.close()
		return err
	}
	if !ready {
		t.close()
		return nil
	}
	return b.runReadScenarios(ctx, func(context.Context) (*benchTarget, error) { return t, nil }, scratch)
}

// gap records a scenario (or part of one) that could not run, with the reason.
func (b *bench) gap(what, why string) {
	b.rep.Gaps = append(b.rep.Gaps, benchGap{What: what, Why: why})
	b.logf("skipped %s: %s", what, why)
}

func (b *bench) add(r benchRow) {
	b.rep.Rows = append(b.rep.Rows, r)
	if r.Unit != "" {
		b.logf("%s %s %s: %s %s", r.Backend, r.Scenario, r.Case, groupThousands(r.Rate), r.Unit)
	} else {
		b.logf("%s %s %s: p50 %s p99 %s", r.Backend, r.Scenario, r.Case, fmtMS(r.P50), fmtMS(r.P99))
	}
}
