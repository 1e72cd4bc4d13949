package bench

import (
	"testing"
	"time"
)

func TestInlineSQLRendersArgumentsAsLiterals(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		args []any
		want string
		ok   bool
	}{
		{"SELECT ? , ?", []any{"it's", int64(3)}, "SELECT 'it''s' , 3", true},
		{"SELECT '?', ?", []any{1.5}, "SELECT '?', 1.5", true},
		{"SELECT ?", []any{1e18}, "SELECT 1e+18", true},
		{"SELECT ?", []any{2.0}, "SELECT 2.0", true},
		{"SELECT ?", []any{nil}, "SELECT NULL", true},
		{"SELECT ?, ?", []any{true, false}, "SELECT TRUE, FALSE", true},
		{"SELECT $2, $1", []any{"a", 7}, "SELECT 7, 'a'", true},
		{"SELECT ?", nil, "", false},
		{"SELECT 1", []any{1}, "", false},
		{"SELECT ?", []any{struct{}{}}, "", false},
		{"SELECT $1::bigint[]", []any{[]int64{3, 14}}, "SELECT '{3,14}'::bigint[]", true},
		{"SELECT $1::text[]", []any{[]string{`a"b`, "it's", `c\d`}}, `SELECT '{"a\"b","it''s","c\\d"}'::text[]`, true},
	} {
		got, err := inlineSQL(tc.sql, tc.args)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("inlineSQL(%q, %v) = %q, %v; want %q (ok %v)", tc.sql, tc.args, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseToolTimingLines(t *testing.T) {
	s, ok, err := parseSQLiteTimerLine("Run Time: real 0.012 user 0.010000 sys 0.001000")
	if err != nil || !ok || s.wall != 12*time.Millisecond || s.cpu != 11*time.Millisecond {
		t.Errorf("parseSQLiteTimerLine = %v, %v, %v", s, ok, err)
	}
	if _, ok, err := parseSQLiteTimerLine("noise"); ok || err != nil {
		t.Errorf("a line that is no timing read as one: %v, %v", ok, err)
	}
	if _, _, err := parseSQLiteTimerLine("Run Time: real x user 0.1 sys 0.1"); err == nil {
		t.Error("a garbled timer line was accepted")
	}
	for line, want := range map[string]time.Duration{"Time: 1.250 ms": 1250 * time.Microsecond, "Time: 1234.500 ms (00:01.235)": 1234500 * time.Microsecond} {
		if s, ok := parsePsqlTimingLine(line); !ok || s.wall != want {
			t.Errorf("parsePsqlTimingLine(%q) = %v, %v; want %v", line, s, ok, want)
		}
	}
	if _, ok := parsePsqlTimingLine("Timing is on."); ok {
		t.Error("psql's banner read as a timing")
	}
}
