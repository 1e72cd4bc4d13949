package bench

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// Replaying a search's SQL in the database's own command-line client (sqlite3, psql) is the
// native baseline: the same statements, traced through annals.NewContextWithStatementTrace,
// without the library around them.

// parseSQLiteTimerLine reads a "Run Time: real 0.012 user 0.010000 sys 0.001000" line of
// .timer on; ok is false for any other line.
func parseSQLiteTimerLine(line string) (s sample, ok bool, err error) {
	f := strings.Fields(line)
	if len(f) != 8 || f[0] != "Run" || f[1] != "Time:" || f[2] != "real" || f[4] != "user" || f[6] != "sys" {
		return sample{}, false, nil
	}
	real, err1 := strconv.ParseFloat(f[3], 64)
	user, err2 := strconv.ParseFloat(f[5], 64)
	sys, err3 := strconv.ParseFloat(f[7], 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return sample{}, false, fmt.Errorf("cannot read the timer line %q", line)
	}
	return sample{wall: seconds(real), cpu: seconds(user + sys)}, true, nil
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// parsePsqlTimingLine reads a "Time: 1.234 ms" line of \timing (longer ones add
// " (00:01.234)"); psql reports no CPU time.
func parsePsqlTimingLine(line string) (sample, bool) {
	f := strings.Fields(line)
	if len(f) >= 3 && f[0] == "Time:" && f[2] == "ms" {
		if v, err := strconv.ParseFloat(f[1], 64); err == nil {
			return sample{wall: time.Duration(math.Round(v * 1e6))}, true
		}
	}
	return sample{}, false
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
		// TRUE and FALSE are literals of both SQLite (as 1 and 0) and PostgreSQL (boolean).
		if x {
			return "TRUE", nil
		}
		return "FALSE", nil
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
	case []int64:
		parts := make([]string, len(x))
		for i, v := range x {
			parts[i] = strconv.FormatInt(v, 10)
		}
		return "'{" + strings.Join(parts, ",") + "}'", nil
	case []string:
		// A PostgreSQL array literal, each element double-quoted; the statement's cast (or
		// its column) gives it its type.
		parts := make([]string, len(x))
		for i, v := range x {
			parts[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
		}
		return "'{" + strings.ReplaceAll(strings.Join(parts, ","), "'", "''") + "}'", nil
	}
	return "", fmt.Errorf("cannot render an argument of type %T as SQL", v)
}
