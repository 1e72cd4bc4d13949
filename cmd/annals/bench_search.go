package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"os/exec"
	"strconv"
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
}

// benchSearchCases are the queries of the search scenario. The single terms are the corpus's
// planted markers, so their hit counts are known in advance (docs/BENCHMARKS.md).
func benchSearchCases() []searchCase {
	return []searchCase{
		{"rare term (1 in 100k)", corpus.RareTerm, "", true},
		{"scarce term (0.1%)", corpus.ScarceTerm, "", true},
		{"medium term (1%)", corpus.MediumTerm, "", true},
		{"common term (10%)", corpus.CommonTerm, "", true},
		{"two-term AND", corpus.MediumTerm + " " + corpus.CommonTerm, "", false},
		{"phrase", `"most recent call last"`, "", false},
		{"prefix", "invoic*", "", false},
		{"field filter + term", "tool:Bash " + corpus.MediumTerm, "", false},
		{"entry-level, medium term", corpus.MediumTerm, history.ModeEntries, true},
	}
}

// minSamples is the fewest timed runs of a latency case, whatever the budget.
const minSamples = 5

// measure times fn up to --iterations times, stopping early once --budget is spent (after at
// least minSamples runs). The caller runs fn once before, untimed, to warm the caches.
func (b *bench) measure(fn func() error) ([]sample, error) {
	var out []sample
	start := time.Now()
	for i := 0; i < b.cfg.iterations; i++ {
		if len(out) >= min(minSamples, b.cfg.iterations) && time.Since(start) > b.cfg.budget {
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
func (b *bench) searchScenario(ctx context.Context, t *benchTarget) error {
	if t.backend == "sqlite" && b.cfg.sqlite3 == "" {
		b.gap("search: sqlite3 baseline", "the sqlite3 command-line tool is not installed (Debian/Ubuntu: apt-get install sqlite3); the ratio column stays empty")
	}
	if t.backend == "postgres" && b.cfg.psql == "" {
		b.gap("search: psql baseline", "psql is not installed (Debian/Ubuntu: apt-get install postgresql-client)")
	}
	for _, c := range benchSearchCases() {
		if err := ctx.Err(); err != nil {
			return err
		}
		req := &history.Request{Op: history.OpSearch, Scope: string(annals.ScopeGlobal), Query: c.query, Mode: c.mode}
		var mu sync.Mutex
		var stmts []annals.Statement
		traced := annals.NewContextWithStatementTrace(t.ctx, func(s annals.Statement) {
			mu.Lock()
			stmts = append(stmts, s)
			mu.Unlock()
		})
		res, err := t.svc.Search(traced, req)
		if err != nil {
			return fmt.Errorf("search %q: %w", c.query, err)
		}
		samples, err := b.measure(func() error {
			_, err := t.svc.Search(t.ctx, req)
			return err
		})
		if err != nil {
			return fmt.Errorf("search %q: %w", c.query, err)
		}
		row := latencyRow(benchRow{Scenario: "search", Case: c.name, Backend: t.backend, Query: c.query, Hits: intp(res.Total)}, samples)
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
		b.add(row)
	}
	return nil
}

// coarseBaseline is the sqlite3 timer's resolution: it prints wall times to the millisecond, so
// below a few milliseconds the ratio of CPU times (printed to the microsecond) is the one to
// read.
const coarseBaseline = 2.0

// searchTarget evaluates the targets for a search row.
func searchTarget(r benchRow, single bool) (string, *bool) {
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
func (b *bench) nativeBaseline(ctx context.Context, t *benchTarget, stmts []annals.Statement, n int) (*benchBaseline, string) {
	if len(stmts) == 0 {
		if !b.untraced[t.backend] {
			b.untraced[t.backend] = true
			b.gap("search: "+t.backend+" baseline", "the "+t.backend+" store reports no SQL to replay: its search methods do not call annals.TraceStatement")
		}
		return nil, "no SQL traced"
	}
	switch {
	case t.backend == "sqlite" && b.cfg.sqlite3 != "":
		s, err := sqlite3Times(ctx, b.cfg.sqlite3, t.dbPath, stmts, n)
		if err != nil {
			return nil, "sqlite3 baseline failed: " + err.Error()
		}
		return baselineOf("sqlite3", s), ""
	case t.backend == "postgres" && b.cfg.psql != "":
		s, err := psqlTimes(ctx, b.cfg.psql, t.dsn, stmts, n)
		if err != nil {
			return nil, "psql baseline failed: " + err.Error()
		}
		return baselineOf("psql", s), ""
	}
	return nil, ""
}

// sqlite3Times runs the statements n+1 times in one sqlite3 process with .timer on and returns
// the summed time of each repetition but the first (a warm-up, like the library's): a warm
// process against a warm page cache, as the library's pooled connections are. Arguments are
// inlined as SQL literals, since the tool has no way to bind them.
func sqlite3Times(ctx context.Context, tool, dbPath string, stmts []annals.Statement, n int) ([]sample, error) {
	group, err := inlineAll(stmts)
	if err != nil {
		return nil, err
	}
	var script strings.Builder
	script.WriteString(".timer on\n.output /dev/null\n")
	for range n + 1 {
		script.WriteString(group)
	}
	cmd := exec.CommandContext(ctx, tool, "-batch", "-bail", dbPath)
	cmd.Stdin = strings.NewReader(script.String())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, firstLine(errOut.String()))
	}
	times, err := parseSQLiteTimer(out.String())
	if err != nil {
		return nil, err
	}
	return groupTimes(times, len(stmts), n)
}

// parseSQLiteTimer reads the "Run Time: real 0.012 user 0.010000 sys 0.001000" lines of
// .timer on, one per statement.
func parseSQLiteTimer(out string) ([]sample, error) {
	var times []sample
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 8 || f[0] != "Run" || f[1] != "Time:" || f[2] != "real" || f[4] != "user" || f[6] != "sys" {
			continue
		}
		real, err1 := strconv.ParseFloat(f[3], 64)
		user, err2 := strconv.ParseFloat(f[5], 64)
		sys, err3 := strconv.ParseFloat(f[7], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("cannot read the timer line %q", sc.Text())
		}
		times = append(times, sample{wall: seconds(real), cpu: seconds(user + sys)})
	}
	return times, nil
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// groupTimes sums per-statement times into one sample per repetition, dropping the warm-up.
func groupTimes(times []sample, perGroup, n int) ([]sample, error) {
	if len(times) != perGroup*(n+1) {
		return nil, fmt.Errorf("got %d timings, want %d (%d statements x %d runs)", len(times), perGroup*(n+1), perGroup, n+1)
	}
	out := make([]sample, 0, n)
	for g := 1; g <= n; g++ {
		var s sample
		for _, x := range times[g*perGroup : (g+1)*perGroup] {
			s.wall += x.wall
			s.cpu += x.cpu
		}
		out = append(out, s)
	}
	return out, nil
}

// psqlTimes is sqlite3Times for PostgreSQL: psql with \timing on, which prints each statement's
// round trip ("Time: 1.234 ms"); psql reports no CPU time.
func psqlTimes(ctx context.Context, tool, dsn string, stmts []annals.Statement, n int) ([]sample, error) {
	group, err := inlineAll(stmts)
	if err != nil {
		return nil, err
	}
	var script strings.Builder
	script.WriteString("\\timing on\n\\o /dev/null\n")
	for range n + 1 {
		script.WriteString(group)
	}
	cmd := exec.CommandContext(ctx, tool, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", "-")
	cmd.Stdin = strings.NewReader(script.String())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, firstLine(errOut.String()))
	}
	return groupTimes(parsePsqlTiming(out.String()), len(stmts), n)
}

// parsePsqlTiming reads the "Time: 1.234 ms" lines of \timing (longer ones add " (00:01.234)").
func parsePsqlTiming(out string) []sample {
	var times []sample
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 3 && f[0] == "Time:" && f[2] == "ms" {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				times = append(times, sample{wall: time.Duration(math.Round(v * 1e6))})
			}
		}
	}
	return times
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// inlineAll renders statements as one script, arguments inlined, each ending in ";\n".
func inlineAll(stmts []annals.Statement) (string, error) {
	var b strings.Builder
	for _, s := range stmts {
		q, err := inlineSQL(s.SQL, s.Args)
		if err != nil {
			return "", err
		}
		b.WriteString(strings.TrimSpace(q))
		b.WriteString(";\n")
	}
	return b.String(), nil
}

// inlineSQL replaces the placeholders of sql (SQLite's ? or PostgreSQL's $n) outside quoted
// text with args rendered as literals.
func inlineSQL(sql string, args []any) (string, error) {
	var b strings.Builder
	next := 0
	used := 0
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch c {
		case '\'', '"':
			j := i + 1
			for j < len(sql) && sql[j] != c {
				j++
			}
			b.WriteString(sql[i:min(j+1, len(sql))])
			i = j
			continue
		case '?':
			if next >= len(args) {
				return "", fmt.Errorf("statement has more placeholders than its %d arguments", len(args))
			}
			lit, err := sqlLiteral(args[next])
			if err != nil {
				return "", err
			}
			b.WriteString(lit)
			next++
			used = max(used, next)
			continue
		case '$':
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			if j > i+1 {
				k, _ := strconv.Atoi(sql[i+1 : j])
				if k < 1 || k > len(args) {
					return "", fmt.Errorf("placeholder $%d has no argument (%d given)", k, len(args))
				}
				lit, err := sqlLiteral(args[k-1])
				if err != nil {
					return "", err
				}
				b.WriteString(lit)
				used = max(used, k)
				i = j - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	if used != len(args) {
		return "", fmt.Errorf("statement uses %d of its %d arguments", used, len(args))
	}
	return b.String(), nil
}

// sqlLiteral renders a bound argument as a SQL literal of the same type.
func sqlLiteral(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'", nil
	case []byte:
		return "X'" + hex.EncodeToString(x) + "'", nil
	case bool:
		if x {
			return "1", nil
		}
		return "0", nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") { // keep it a REAL, as the bound value was
			s += ".0"
		}
		return s, nil
	case time.Time:
		return "'" + x.UTC().Format(time.RFC3339Nano) + "'", nil
	}
	return "", fmt.Errorf("cannot render an argument of type %T as SQL", v)
}
