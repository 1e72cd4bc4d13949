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
		{"SELECT $2, $1", []any{"a", 7}, "SELECT 7, 'a'", true},
		{"SELECT ?", nil, "", false},
		{"SELECT 1", []any{1}, "", false},
		{"SELECT ?", []any{struct{}{}}, "", false},
	} {
		got, err := inlineSQL(tc.sql, tc.args)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("inlineSQL(%q, %v) = %q, %v; want %q (ok %v)", tc.sql, tc.args, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseToolTimings(t *testing.T) {
	out := "Run Time: real 0.012 user 0.010000 sys 0.001000\nnoise\nRun Time: real 0.001 user 0.000500 sys 0.000000\n"
	got, err := parseSQLiteTimer(out)
	if err != nil || len(got) != 2 || got[0].wall != 12*time.Millisecond || got[0].cpu != 11*time.Millisecond || got[1].cpu != 500*time.Microsecond {
		t.Errorf("parseSQLiteTimer = %v, %v", got, err)
	}
	groups, err := groupTimes(append(got, got...), 2, 1)
	if err != nil || len(groups) != 1 || groups[0].wall != 13*time.Millisecond {
		t.Errorf("groupTimes = %v, %v; want one group of 13ms (the first group is the warm-up)", groups, err)
	}
	if _, err := groupTimes(got, 2, 1); err == nil {
		t.Error("groupTimes accepted too few timings")
	}
	ps := parsePsqlTiming("Timing is on.\nTime: 1.250 ms\nTime: 1234.500 ms (00:01.235)\n")
	if len(ps) != 2 || ps[0].wall != 1250*time.Microsecond || ps[1].wall != 1234500*time.Microsecond {
		t.Errorf("parsePsqlTiming = %v", ps)
	}
}
