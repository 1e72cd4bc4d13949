package importer_test

import (
	"testing"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/reader"
)

func TestParseTimeGivesNoTimeForOneAnnalsCannotStore(t *testing.T) {
	for _, v := range []any{"0000-01-01 0:00:00", "0001-01-01T00:00:00Z", "2300-01-01T00:00:00Z", float64(1e300)} {
		if got := reader.ParseTime(v); !got.IsZero() {
			t.Errorf("ParseTime(%v) = %v, want no time", v, got)
		}
	}
	if got := reader.ParseTime("2025-03-10T14:00:00Z"); got.Year() != 2025 {
		t.Errorf("an ordinary time: %v", got)
	}
}

func TestReportTotalAddsEveryCount(t *testing.T) {
	r := &importer.Report{Formats: []*importer.FormatReport{
		{Format: "a", Counts: importer.Counts{Files: 1, Unchanged: 2, Chats: 3, Entries: 4, Skipped: 5, Removed: 6, Warnings: 7, Errors: 8}},
		{Format: "b", Counts: importer.Counts{Files: 10, Unchanged: 20, Chats: 30, Entries: 40, Skipped: 50, Removed: 60, Warnings: 70, Errors: 80}},
	}}
	want := importer.Counts{Files: 11, Unchanged: 22, Chats: 33, Entries: 44, Skipped: 55, Removed: 66, Warnings: 77, Errors: 88}
	if got := r.Total(); got != want {
		t.Fatalf("Total = %+v, want %+v", got, want)
	}
}
