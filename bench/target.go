package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
)

// target is one backend with its bench database open.
type target struct {
	backend string // sqlite or postgres
	store   annals.Store
	svc     *history.Service
	ctx     context.Context // carries the admin principal
	// dbPath is the SQLite file (for the sqlite3 baseline), dsn the PostgreSQL database.
	dbPath, dsn string
	close       func() error
}

// sqliteTarget opens the SQLite database at path as a target, when called.
func (b *runner) sqliteTarget(path string) func(ctx context.Context) (*target, error) {
	return func(ctx context.Context) (*target, error) {
		store, err := b.opts.Open(ctx, path)
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

// principal is an admin allowed every scope: the scenarios search the whole corpus (scope
// global), the widest and so the slowest case.
func principal() *annals.Principal {
	return &annals.Principal{TenantID: "bench", UserID: "bench", Role: annals.RoleAdmin, Scopes: annals.Scopes}
}

func newTarget(ctx context.Context, backend string, store annals.Store) (*target, error) {
	emb, err := embed.NewHashing(0)
	if err != nil {
		store.Close()
		return nil, err
	}
	return &target{
		backend: backend,
		store:   store,
		svc:     history.New(history.Config{Store: store, Embedder: emb}),
		ctx:     annals.NewContextWithPrincipal(ctx, principal()),
		close:   store.Close,
	}, nil
}

// runReadScenarios runs every selected scenario but ingest on one backend.
func (b *runner) runReadScenarios(ctx context.Context, openTarget func(context.Context) (*target, error), scratch string) error {
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
		{"cold", func() error { return b.coldScenario(ctx, t, scratch) }},
		{"quality", func() error { return b.qualityScenario(t) }},
		{"list", func() error { return b.listScenario(ctx, t) }},
		{"get", func() error { return b.getScenario(ctx, t) }},
		{"related", func() error { return b.relatedScenario(ctx, t) }},
		{"export", func() error { return b.exportScenario(ctx, t) }},
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

// profiled runs fn under a CPU profile written to CPUProfile/<name>.pprof, when asked for.
func (b *runner) profiled(name string, fn func() error) error {
	if b.opts.CPUProfile == "" {
		return fn()
	}
	if err := os.MkdirAll(b.opts.CPUProfile, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(b.opts.CPUProfile, name+".pprof"))
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

// displayLocation renders a PostgreSQL location for the report through the caller's
// DisplayLocation, which knows how to hide its password.
func (b *runner) displayLocation(location string) string {
	if b.opts.DisplayLocation == nil {
		return "the PostgreSQL database"
	}
	return b.opts.DisplayLocation(location)
}

// runPostgres runs the scenarios on the PostgreSQL database given by Options.Postgres. The
// store opens through Options.Open like any other location; when it cannot, the report says so.
func (b *runner) runPostgres(ctx context.Context, scratch string) error {
	store, err := b.opts.Open(ctx, b.opts.Postgres)
	if err != nil {
		b.gap("postgres", fmt.Sprintf("cannot open %s: %s", b.displayLocation(b.opts.Postgres), annals.ErrorMessage(err)))
		return nil
	}
	t, err := newTarget(ctx, "postgres", store)
	if err != nil {
		return err
	}
	t.dsn = b.opts.Postgres
	ready, err := b.ensurePostgres(ctx, t)
	if err != nil {
		t.close()
		return err
	}
	if !ready {
		t.close()
		return nil
	}
	return b.runReadScenarios(ctx, func(context.Context) (*target, error) { return t, nil }, scratch)
}
