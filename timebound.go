package annals

import (
	"strings"
	"time"
)

// TimeBoundText describes the forms a time bound may take, for error messages.
const TimeBoundText = "a date such as 2026-01-31 (the whole day, UTC) or an RFC 3339 time such as 2026-01-31T15:04:05Z"

// ParseDateOrTime reads a time bound as people write it: an RFC 3339 time (offsets honoured,
// fractions allowed), or a date alone, which stands for the whole day in UTC: its first instant,
// or with end its last, so that "to 2026-03-14" still holds that day's evening. Surrounding
// spaces are ignored. It is the one parser every transport's from/to and the search language's
// after:/before: use.
func ParseDateOrTime(s string, end bool) (time.Time, error) {
	return ParseDateOrTimeIn(s, end, time.UTC)
}

// ParseDateOrTimeIn is ParseDateOrTime with a date alone standing for the whole day in loc (the
// usage report counts days in the caller's zone).
func ParseDateOrTimeIn(s string, end bool, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		if end {
			d = d.AddDate(0, 0, 1).Add(-time.Nanosecond)
		}
		return d, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

// ParseTimeBound parses an optional from/to filter: "" is no bound; otherwise ParseDateOrTime
// (end set for an upper bound), refused with the accepted forms when it does not parse and when
// it lies outside the stored range (a wrapped bound would match everything).
func ParseTimeBound(field, s string, end bool) (*time.Time, error) {
	return ParseTimeBoundIn(field, s, end, time.UTC)
}

// ParseTimeBoundIn is ParseTimeBound with a date alone read as a day in loc.
func ParseTimeBoundIn(field, s string, end bool, loc *time.Location) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := ParseDateOrTimeIn(s, end, loc)
	if err != nil {
		return nil, Errorf(EINVALID, "%s %q is not a time (want %s)", field, s, TimeBoundText)
	}
	if err := ValidateBound(field, t); err != nil {
		return nil, err
	}
	return &t, nil
}
