package cron

import (
	"strings"
	"testing"
	"time"
)

func TestNext(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04 Mon", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct{ expr, from, want string }{
		{"0 4 * * *", "2026-03-01 12:00 Sun", "2026-03-02 04:00 Mon"},
		{"0 4 * * *", "2026-03-01 03:59 Sun", "2026-03-01 04:00 Sun"},
		{"0 4 * * *", "2026-03-01 04:00 Sun", "2026-03-02 04:00 Mon"}, // strictly after
		{"*/15 * * * *", "2026-03-01 12:07 Sun", "2026-03-01 12:15 Sun"},
		{"5-10/2 9-17 * * MON-FRI", "2026-03-06 17:10 Fri", "2026-03-09 09:05 Mon"},
		{"0 0 29 2 *", "2026-03-01 00:00 Sun", "2028-02-29 00:00 Tue"},
		{"0 0 1 * 1", "2026-03-01 12:00 Sun", "2026-03-02 00:00 Mon"}, // either day rule: a Monday
		{"0 0 * * 7", "2026-03-02 00:00 Mon", "2026-03-08 00:00 Sun"}, // 7 is Sunday
		{"30 2 * jan,Dec *", "2026-03-01 00:00 Sun", "2026-12-01 02:30 Tue"},
		{"@hourly", "2026-03-01 12:30 Sun", "2026-03-01 13:00 Sun"},
		{"@weekly", "2026-03-01 12:30 Sun", "2026-03-08 00:00 Sun"},
		{"0 23 31 12 *", "2026-12-31 23:00 Thu", "2027-12-31 23:00 Fri"},
	} {
		s, err := Parse(tc.expr)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.expr, err)
			continue
		}
		if got := s.Next(at(tc.from)); !got.Equal(at(tc.want)) {
			t.Errorf("%q after %s: %s, want %s", tc.expr, tc.from, got.Format("2006-01-02 15:04 Mon"), tc.want)
		}
	}
}

// TestNextInALocation: the hours are the location's, across a daylight-saving change.
func TestNextInALocation(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	s, _ := Parse("0 4 * * *")
	got := s.Next(time.Date(2026, 3, 28, 12, 0, 0, 0, loc)) // the clocks go forward on the 29th
	if want := time.Date(2026, 3, 29, 4, 0, 0, 0, loc); !got.Equal(want) {
		t.Fatalf("next = %v, want %v", got, want)
	}
	s, _ = Parse("30 * * * *")
	india, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Skip(err)
	}
	if got := s.Next(time.Date(2026, 3, 1, 10, 40, 0, 0, india)); !got.Equal(time.Date(2026, 3, 1, 11, 30, 0, 0, india)) {
		t.Fatalf("next in +05:30 = %v", got)
	}
}

func TestParseErrorsNameTheFieldAndWhatIsAllowed(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"0 25 * * *", `the hour field "25": 25 is out of range (allowed: 0-23`},
		{"61 * * * *", `the minute field "61"`},
		{"0 4 * * MOO", `the day of week field "MOO": "MOO" is not a number (allowed: 0-7 or SUN-SAT`},
		{"0 4 0 * *", `the day of month field "0": 0 is out of range (allowed: 1-31`},
		{"0 4 * 13 *", `the month field "13": 13 is out of range (allowed: 1-12 or JAN-DEC`},
		{"*/0 * * * *", `step "0" is not a number from 1 to 59`},
		{"0 10-2 * * *", "the range 10-2 runs backwards"},
		{"0 4 * *", "has 4 fields; want 5: minute hour day-of-month month day-of-week"},
		{"", "has 0 fields"},
		{"@often", `unknown macro "@often"`},
		{"0 0 30 2 *", "never fires"},
		{"0 0 ,1 * *", "an empty value"},
	} {
		_, err := Parse(tc.expr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", tc.expr, err, tc.want)
		}
	}
}
