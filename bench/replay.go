package bench

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
	"time"

	"github.com/annals-dev/annals"
)

// Replaying a search's SQL in the database's own command-line client (sqlite3, psql) is the
// native baseline: the same statements, traced through annals.NewContextWithStatementTrace,
// without the library around them.

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
