package sqlite_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// TestUsageOfARangeReadsOnlyItsRuns: the usage report of a range of days (an admin's, over every
// tenant) finds the runs that started in it by the runs_by_start index instead of reading every
// run.
func TestUsageOfARangeReadsOnlyItsRuns(t *testing.T) {
	db := MustOpenDB(t)
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	plan, err := db.UsageBucketsPlanForTest(context.Background(), annals.UsageFilter{Owner: annals.Owner{AllTenants: true}, From: from, To: from.AddDate(0, 0, 7)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "runs_by_start") {
		t.Errorf("the usage of a week is planned as %q; want the runs found by runs_by_start", plan)
	}
}
