package bench

import (
	"context"
	"sync"

	"github.com/annals-dev/annals"
)

// A traced operation is measured against two baselines, sampled in turn with it: the same SQL
// through the same driver (the library's own overhead), and the same SQL in the database's own
// client, sqlite3 or psql (the native cost). See Row.OwnRatio and Row.DriverGap.

// traced is what one warm-up call of an operation leaves: the SQL it ran.
type traced struct {
	mu    sync.Mutex
	stmts []annals.Statement
}

// context returns ctx carrying a trace that records every statement into t.
func (t *traced) context(ctx context.Context) context.Context {
	return annals.NewContextWithStatementTrace(ctx, func(s annals.Statement) {
		t.mu.Lock()
		t.stmts = append(t.stmts, s)
		t.mu.Unlock()
	})
}

// measureTraced runs fn under the caller's context as (which carries the principal) once
// traced, the warm-up, then samples it interleaved with the baselines of the SQL it ran, and
// returns row with its percentiles, the baselines, their ratios and a note on any baseline that
// could not run.
func (b *runner) measureTraced(ctx context.Context, t *target, as context.Context, row Row, fn func(context.Context) error) (Row, []annals.Statement, error) {
	var tr traced
	if err := fn(tr.context(as)); err != nil {
		return row, nil, err
	}
	sides := []*side{timedSide("annals", func() error { return fn(as) })}
	var driver, tool *side
	var notes []string
	if len(tr.stmts) > 0 {
		driver, tool, notes = b.baselineSides(ctx, t, tr.stmts)
	}
	for _, s := range []*side{driver, tool} {
		if s != nil {
			sides = append(sides, s)
		}
	}
	samples, err := interleave(ctx, b.sampling(), sides)
	if err != nil {
		return row, nil, err
	}
	row.Backend = t.backend
	row = latencyRow(row, samples[0])
	k := 1
	if driver != nil {
		row.Driver = baselineOf(driver.name, samples[k])
		row.OwnRatio = ratio(row.P50, row.Driver.P50)
		k++
	}
	if tool != nil {
		row.Baseline = baselineOf(tool.name, samples[k])
		row.Ratio = ratio(row.P50, row.Baseline.P50)
		row.CPURatio = ratio(row.CPU50, row.Baseline.CPU50)
		if row.Driver != nil {
			row.DriverGap = ratio(row.Driver.P50, row.Baseline.P50)
		}
	}
	for _, n := range notes {
		row.Note = joinNote(row.Note, n)
	}
	return row, tr.stmts, nil
}

// baselineSides starts the two baselines of stmts on t's database, each warmed once. One that
// cannot start is left out with a note saying why (a sqlite3 older than the driver's SQLite may
// not read the schema).
func (b *runner) baselineSides(ctx context.Context, t *target, stmts []annals.Statement) (driver, tool *side, notes []string) {
	// Warmed here rather than by interleave, so that a replay that fails leaves a note, not
	// an error.
	driver, err := driverSide(ctx, b.opts.SQLite, t, stmts)
	if err == nil {
		if err = driver.warm(ctx); err != nil {
			driver.close()
			driver = nil
		} else {
			driver.warm = nil
		}
	}
	if err != nil {
		notes = append(notes, "same-driver replay failed: "+err.Error())
	}
	var path string
	var d toolDialect
	switch {
	case t.backend == "sqlite" && b.opts.SQLite3 != "":
		path, d = b.opts.SQLite3, sqlite3Dialect(t.dbPath)
	case t.backend == "postgres" && b.opts.Psql != "":
		path, d = b.opts.Psql, psqlDialect(t.dsn)
	default:
		return driver, nil, notes
	}
	tool, err = toolSide(ctx, path, d, stmts)
	if err != nil {
		// Said once in full among the gaps; a schema the tool cannot read fails every case.
		what := "search: " + d.name + " baseline"
		if !b.untraced[what] {
			b.untraced[what] = true
			b.gap(what, d.name+" could not replay the store's SQL ("+err.Error()+"): no native baseline exists for this schema with this client, so the NATIVE column stays empty where it fails and the same SQL through the same driver, prepared once (DRIVER), is the only baseline")
		}
		notes = append(notes, d.name+" could not replay (see Not measured)")
	}
	return driver, tool, notes
}
