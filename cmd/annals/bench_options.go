package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/bench"
)

// benchOptions checks the parsed flags and resolves what they name into bench.Options.
func (m *Main) benchOptions(f *benchFlags, args []string) (bench.Options, error) {
	opts := bench.Options{
		Size: int(f.size), Chats: *f.chats, Seed: *f.seed, Fresh: *f.fresh,
		Iterations: *f.iterations, IngestRuns: *f.ingestRuns, Budget: *f.budget, Duration: *f.duration,
		Postgres: *f.postgres, CPUProfile: *f.cpuprofile, Command: "annals bench " + strings.Join(args, " "),
		Open: m.benchOpen, DisplayLocation: displayLocation, SQLite: sqliteBenchHooks(),
	}
	var err error
	if opts.Scenarios, err = benchScenarioList(*f.scenarios); err != nil {
		return opts, err
	}
	if opts.Size < 100 {
		return opts, usagef("--size must be at least 100 entries, got %d", opts.Size)
	}
	if opts.Chats < 0 || (opts.Chats > 0 && opts.Chats > opts.Size/2) {
		return opts, usagef("--chats must be between 1 and size/2 (%d), got %d", opts.Size/2, opts.Chats)
	}
	if opts.Chats == 0 {
		opts.Chats = bench.DefaultChats(opts.Size)
	}
	if opts.Iterations < 1 || opts.IngestRuns < 1 || opts.Budget <= 0 || opts.Duration <= 0 {
		return opts, usagef("--iterations, --ingest-runs, --budget and --duration must be positive")
	}
	if opts.Dir, err = m.benchDir(*f.dir); err != nil {
		return opts, err
	}
	opts.SQLite3, opts.Psql = lookTool(*f.sqlite3), lookTool(*f.psql)
	if opts.AnnalsBin, err = annalsBinary(*f.annals); err != nil {
		return opts, err
	}
	if !*f.quiet {
		opts.Log = m.Stderr
	}
	return opts, nil
}

// benchScenarioList reads --scenarios: known names, each once, in the order given.
func benchScenarioList(flagValue string) ([]string, error) {
	names := bench.ScenarioNames()
	var out []string
	for _, s := range strings.Split(flagValue, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !slices.Contains(names, s) {
			return nil, usagef("unknown scenario %q (want any of: %s)", s, strings.Join(names, ", "))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, usagef("--scenarios is empty (want any of: %s)", strings.Join(names, ", "))
	}
	return out, nil
}

// benchOpen opens a store through openDB, the one place that picks a backend from a location,
// and takes ownership of it: the harness opens several databases and closes each itself.
func (m *Main) benchOpen(ctx context.Context, location string) (annals.Store, error) {
	s, err := m.openDB(ctx, location, false)
	if err != nil {
		return nil, err
	}
	m.store = nil
	return s, nil
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
