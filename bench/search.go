package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/history"
)

// searchCase is one query of the search scenario.
type searchCase struct {
	name, query, mode string
	// single marks a single-term query: the p50 and p99 targets apply to it.
	single bool
	// tenant runs the query as a member of one tenant (the newest chat's), scope tenant: what
	// the owner narrowing saves against the same query over every tenant.
	tenant bool
}

// searchCases are the queries of the search scenario. The single terms are the corpus's
// planted markers, so their hit counts are known in advance (docs/BENCHMARKS.md).
func searchCases() []searchCase {
	return []searchCase{
		{"rare term (1 in 100k)", corpus.RareTerm, "", true, false},
		{"scarce term (0.1%)", corpus.ScarceTerm, "", true, false},
		{"medium term (1%)", corpus.MediumTerm, "", true, false},
		{"common term (10%)", corpus.CommonTerm, "", true, false},
		{"two-term AND", corpus.MediumTerm + " " + corpus.CommonTerm, "", false, false},
		{"phrase", `"most recent call last"`, "", false, false},
		{"prefix", "invoic*", "", false, false},
		{"field filter + term", "tool:Bash " + corpus.MediumTerm, "", false, false},
		{"entry-level, medium term", corpus.MediumTerm, history.ModeEntries, true, false},
		{"scarce term, one tenant", corpus.ScarceTerm, "", true, true},
		{"common term, one tenant", corpus.CommonTerm, "", true, true},
	}
}

// minSamples is the fewest timed runs of a latency case, whatever the budget.
const minSamples = 5

// measure times fn up to Options.Iterations times, stopping early once Options.Budget is spent
// (after at least minSamples runs). The caller runs fn once before, untimed, to warm the caches.
func (b *runner) measure(fn func() error) ([]sample, error) {
	var out []sample
	start := time.Now()
	for i := 0; i < b.opts.Iterations; i++ {
		if len(out) >= min(minSamples, b.opts.Iterations) && time.Since(start) > b.opts.Budget {
			break
		}
		c0, t0 := processCPU(), time.Now()
		if err := fn(); err != nil {
			return nil, err
		}
		out = append(out, sample{wall: time.Since(t0), cpu: processCPU() - c0})
	}
	return out, nil
}

// searchScenario times history.Service.Search end to end (parse, compile, SQL, scan) for each
// case, and replays the SQL the store ran in the native client of the same database.
func (b *runner) searchScenario(ctx context.Context, t *target) error {
	if t.backend == "sqlite" && b.opts.SQLite3 == "" {
		b.gap("search: sqlite3 baseline", "the sqlite3 command-line tool is not installed (Debian/Ubuntu: apt-get install sqlite3); the ratio column stays empty")
	}
	if t.backend == "postgres" && b.opts.Psql == "" {
		b.gap("search: psql baseline", "psql is not installed (Debian/Ubuntu: apt-get install postgresql-client)")
	}
	for _, c := range searchCases() {
		if err := ctx.Err(); err != nil {
			return err
		}
		row, err := b.searchCase(ctx, t, c)
		if err != nil {
			return fmt.Errorf("search %q: %w", c.query, err)
		}
		b.add(row)
	}
	return nil
}

// searchCase runs one case: once traced (the warm-up, which also records the SQL to replay),
// then timed, then the replay.
func (b *runner) searchCase(ctx context.Context, t *target, c searchCase) (Row, error) {
	req := &history.Request{Op: history.OpSearch, Scope: string(annals.ScopeGlobal), Query: c.query, Mode: c.mode}
	ctx0 := t.ctx
	if c.tenant {
		res, err := t.svc.List(t.ctx, &history.Request{Op: history.OpList, Scope: string(annals.ScopeGlobal), Limit: 1})
		if err != nil || len(res.Chats) == 0 {
			return Row{}, fmt.Errorf("the newest chat's tenant: %w", err)
		}
		ctx0 = annals.NewContextWithPrincipal(t.ctx, &annals.Principal{TenantID: res.Chats[0].TenantID, Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeTenant}})
		req.Scope = string(annals.ScopeTenant)
	}
	var mu sync.Mutex
	var stmts []annals.Statement
	traced := annals.NewContextWithStatementTrace(ctx0, func(s annals.Statement) {
		mu.Lock()
		stmts = append(stmts, s)
		mu.Unlock()
	})
	res, err := t.svc.Search(traced, req)
	if err != nil {
		return Row{}, err
	}
	samples, err := b.measure(func() error {
		_, err := t.svc.Search(ctx0, req)
		return err
	})
	if err != nil {
		return Row{}, err
	}
	row := latencyRow(Row{Scenario: "search", Case: c.name, Backend: t.backend, Query: c.query, Hits: intp(res.Total)}, samples)
	if c.mode == history.ModeEntries {
		row.Note = "matching entries"
	}
	base, note := b.nativeBaseline(ctx, t, stmts, len(samples))
	if note != "" {
		row.Note = joinNote(row.Note, note)
	}
	if base != nil {
		row.Baseline = base
		row.Ratio = ratio(row.P50, base.P50)
		row.CPURatio = ratio(row.CPU50, base.CPU50)
	}
	row.Target, row.Met = searchTarget(row, c.single)
	return row, nil
}

// coarseBaseline is the sqlite3 timer's resolution: it prints wall times to the millisecond, so
// below a few milliseconds the ratio of CPU times (printed to the microsecond) is the one to
// read.
const coarseBaseline = 2.0

// searchTarget evaluates the targets for a search row.
func searchTarget(r Row, single bool) (string, *bool) {
	ok := true
	var parts []string
	if single {
		parts = append(parts, fmt.Sprintf("p50<%d p99<%d", targetSearchP50.Milliseconds(), targetSearchP99.Milliseconds()))
		ok = r.P50 < ms(targetSearchP50) && r.P99 < ms(targetSearchP99)
	}
	if r.Baseline != nil && r.Ratio > 0 {
		parts = append(parts, fmt.Sprintf("<=%.2fx", targetSearchRatio))
		rt := r.Ratio
		if r.Baseline.P50 < coarseBaseline && r.CPURatio > 0 {
			rt = r.CPURatio
		}
		ok = ok && rt <= targetSearchRatio
	}
	if len(parts) == 0 {
		return "", nil
	}
	return strings.Join(parts, " "), boolp(ok)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// nativeBaseline replays statements in the database's own command-line client n times and
// returns their timing, or a note saying why it could not.
func (b *runner) nativeBaseline(ctx context.Context, t *target, stmts []annals.Statement, n int) (*Baseline, string) {
	if len(stmts) == 0 {
		if !b.untraced[t.backend] {
			b.untraced[t.backend] = true
			b.gap("search: "+t.backend+" baseline", "the "+t.backend+" store reports no SQL to replay: its search methods do not call annals.TraceStatement")
		}
		return nil, "no SQL traced"
	}
	switch {
	case t.backend == "sqlite" && b.opts.SQLite3 != "":
		s, err := sqlite3Times(ctx, b.opts.SQLite3, t.dbPath, stmts, n)
		if err == nil {
			return baselineOf("sqlite3", s), ""
		}
		// An older tool than the driver's SQLite may not read the schema: the same SQL through
		// the same driver is then the baseline, and the note says why.
		d, derr := driverTimes(ctx, t.dbPath, stmts, n)
		if derr != nil {
			return nil, "sqlite3 baseline failed: " + err.Error() + "; the same-driver replay too: " + derr.Error()
		}
		return baselineOf("same driver", d), "sqlite3 could not replay (" + err.Error() + "): BASE is the same SQL through the same driver"
	case t.backend == "postgres" && b.opts.Psql != "":
		s, err := psqlTimes(ctx, b.opts.Psql, t.dsn, stmts, n)
		if err != nil {
			return nil, "psql baseline failed: " + err.Error()
		}
		return baselineOf("psql", s), ""
	}
	return nil, ""
}
