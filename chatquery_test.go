package annals

import (
	"strings"
	"testing"
	"time"
)

func TestParseBoundsChecksStatusThenFromThenTo(t *testing.T) {
	var q ChatQuery
	if err := q.ParseBounds("completed", "2026-02-01", "2026-02-01"); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	if q.Status == nil || *q.Status != StatusCompleted || q.From == nil || !q.From.Equal(day) ||
		q.To == nil || !q.To.After(day.Add(24*time.Hour-time.Second)) || !q.To.Before(day.Add(24*time.Hour)) {
		t.Fatalf("ParseBounds = status %v, from %v, to %v; want completed and the whole of 2026-02-01", q.Status, q.From, q.To)
	}
	for _, c := range []struct{ status, from, to, want string }{
		{"bogus", "yesterday", "never", "unknown status"},
		{"", "yesterday", "never", "from"},
		{"", "", "never", "to"},
	} {
		var q ChatQuery
		err := q.ParseBounds(c.status, c.from, c.to)
		if ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseBounds(%q, %q, %q) = %v, want invalid naming %q", c.status, c.from, c.to, err, c.want)
		}
	}
	var empty ChatQuery
	if err := empty.ParseBounds("", "", ""); err != nil || empty.Status != nil || empty.From != nil || empty.To != nil {
		t.Fatalf("empty texts set %+v, %v", empty, err)
	}
}
