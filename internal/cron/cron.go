// Package cron parses standard five-field cron expressions (minute, hour, day of month, month,
// day of week) and computes their next time, for the scheduled recap (digest.schedule). It is
// the classic Vixie cron language: numbers, *, ranges a-b, steps */n and a-b/n, lists a,b,c,
// month names JAN-DEC, day names SUN-SAT (0 and 7 are Sunday), and the macros @hourly,
// @daily (@midnight), @weekly, @monthly, @yearly (@annually). When both the day of month and
// the day of week are restricted, a day matching either one fires (as cron does). Times are
// computed in the location of the time given to Next. Standard library only.
package cron

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed expression: one bit per allowed value of each field.
type Schedule struct {
	minute, hour, dom, month, dow uint64
	// domStar and dowStar record a field written as * (or */n...), for cron's either-day rule.
	domStar, dowStar bool
	expr             string
}

// field describes one of the five fields.
type field struct {
	name     string
	min, max int
	names    []string // names[i] is the value min+i
}

var fields = [5]field{
	{name: "minute", min: 0, max: 59},
	{name: "hour", min: 0, max: 23},
	{name: "day of month", min: 1, max: 31},
	{name: "month", min: 1, max: 12, names: []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
	{name: "day of week", min: 0, max: 7, names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}},
}

var macros = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// Error is a bad expression: which field, what was written, what is allowed.
type Error struct {
	Field   string // the field's name, or "" for the expression as a whole
	Value   string
	Problem string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Problem
	}
	f := fieldByName(e.Field)
	allowed := fmt.Sprintf("%d-%d", f.min, f.max)
	if len(f.names) > 0 {
		allowed += fmt.Sprintf(" or %s-%s", f.names[0], f.names[len(f.names)-1])
	}
	return fmt.Sprintf("the %s field %q: %s (allowed: %s, *, a-b ranges, /n steps, comma lists)", e.Field, e.Value, e.Problem, allowed)
}

func fieldByName(name string) field {
	for _, f := range fields {
		if f.name == name {
			return f
		}
	}
	return field{}
}

// Parse parses a five-field expression or a macro.
func Parse(expr string) (*Schedule, error) {
	text := strings.TrimSpace(expr)
	if m, ok := macros[strings.ToLower(text)]; ok {
		text = m
	} else if strings.HasPrefix(text, "@") {
		return nil, &Error{Problem: fmt.Sprintf("unknown macro %q (allowed: @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually)", text)}
	}
	parts := strings.Fields(text)
	if len(parts) != 5 {
		return nil, &Error{Problem: fmt.Sprintf("%q has %d fields; want 5: minute hour day-of-month month day-of-week (e.g. \"0 4 * * *\": every day at 04:00)", expr, len(parts))}
	}
	s := &Schedule{expr: expr}
	targets := []*uint64{&s.minute, &s.hour, &s.dom, &s.month, &s.dow}
	for i, p := range parts {
		bits, star, err := parseField(fields[i], p)
		if err != nil {
			return nil, err
		}
		*targets[i] = bits
		switch i {
		case 2:
			s.domStar = star
		case 4:
			s.dowStar = star
		}
	}
	if s.dow&(1<<7) != 0 { // 7 is Sunday too
		s.dow |= 1
	}
	if s.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return nil, &Error{Problem: fmt.Sprintf("%q never fires (no such day in any month)", expr)}
	}
	return s, nil
}

// parseField parses one field's comma list into its bits; star says it starts with *.
func parseField(f field, text string) (uint64, bool, error) {
	var bits uint64
	for item := range strings.SplitSeq(text, ",") {
		bad := func(problem string) error { return &Error{Field: f.name, Value: text, Problem: problem} }
		rng, stepText, hasStep := strings.Cut(item, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 || n > f.max {
				return 0, false, bad(fmt.Sprintf("step %q is not a number from 1 to %d", stepText, f.max))
			}
			step = n
		}
		lo, hi := f.min, f.max
		switch {
		case rng == "*":
		case rng == "":
			return 0, false, bad("an empty value")
		default:
			a, b, isRange := strings.Cut(rng, "-")
			var err error
			if lo, err = value(f, a); err != nil {
				return 0, false, bad(err.Error())
			}
			hi = lo
			if isRange {
				if hi, err = value(f, b); err != nil {
					return 0, false, bad(err.Error())
				}
				if hi < lo {
					return 0, false, bad(fmt.Sprintf("the range %s runs backwards", rng))
				}
			} else if hasStep {
				hi = f.max // a/n: from a to the end
			}
		}
		for v := lo; v <= hi; v += step {
			bits |= 1 << uint(v)
		}
	}
	return bits, strings.HasPrefix(text, "*"), nil
}

// value reads one number or name of field f.
func value(f field, s string) (int, error) {
	for i, n := range f.names {
		if strings.EqualFold(s, n) {
			return f.min + i, nil
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if v < f.min || v > f.max {
		return 0, fmt.Errorf("%d is out of range", v)
	}
	return v, nil
}

// String is the expression as written.
func (s *Schedule) String() string { return s.expr }

// Next returns the first time after t (to the minute, in t's location) that the schedule
// fires, or the zero time when it fires in none of the next five years.
func (s *Schedule) Next(t time.Time) time.Time {
	loc := t.Location()
	t = t.Truncate(time.Minute).Add(time.Minute)
	end := t.AddDate(5, 0, 0)
	for t.Before(end) {
		switch {
		case s.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
		case s.hour&(1<<uint(t.Hour())) == 0:
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, loc)
		case s.minute&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

// dayMatches is cron's day rule: both day fields must match when either is *, else either.
func (s *Schedule) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}
