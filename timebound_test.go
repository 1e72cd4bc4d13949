package annals_test

import (
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// TestTimeBoundTakesADateAsTheWholeDay proves a date alone is its day in UTC: the first instant
// for a lower bound, the last for an upper one, and that RFC 3339 times pass unchanged.
func TestTimeBoundTakesADateAsTheWholeDay(t *testing.T) {
	day := time.Date(2025, 3, 14, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		end  bool
		want time.Time
	}{
		{"2025-03-14", false, day},
		{"2025-03-14", true, day.Add(24*time.Hour - time.Nanosecond)},
		{" 2025-03-14\n", true, day.Add(24*time.Hour - time.Nanosecond)},
		{"2025-03-14T15:04:05Z", true, time.Date(2025, 3, 14, 15, 4, 5, 0, time.UTC)},
		{"2025-03-14T15:04:05.5+02:00", false, time.Date(2025, 3, 14, 13, 4, 5, 5e8, time.UTC)},
	} {
		got, err := annals.ParseTimeBound("from", tc.in, tc.end)
		if err != nil || got == nil || !got.Equal(tc.want) {
			t.Errorf("ParseTimeBound(%q, end=%v) = %v, %v; want %v", tc.in, tc.end, got, err, tc.want)
		}
	}
	if got, err := annals.ParseTimeBound("from", "", false); got != nil || err != nil {
		t.Errorf("empty bound = %v, %v; want no bound", got, err)
	}
	for _, bad := range []string{"yesterday", "2025-3-14", "14/03/2025", "0001-01-01T00:00:00Z", "2300-01-01"} {
		_, err := annals.ParseTimeBound("to", bad, true)
		if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(annals.ErrorMessage(err), "to ") {
			t.Errorf("ParseTimeBound(%q) = %v; want invalid naming the field", bad, err)
		}
	}
}
