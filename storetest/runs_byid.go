package storetest

import (
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// testRunsByID: FindRunsByID answers the chat's runs among the ids, oldest first, whole (as
// FindRuns has them), and leaves out ids of no run and of another chat's runs.
func testRunsByID(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	mustCreateChat(t, s, NewChat("c2", "tenant-a"))
	for i, id := range []string{"r-a", "r-b", "r-c", "r-d"} {
		r := NewRun(id, "c1", annals.StatusCompleted, runStart.Add(time.Duration(i)*time.Minute))
		r.Model, r.InputTokens, r.OutputTokens, r.CostUSD = "model-"+id, int64(10*(i+1)), 5, 0.25
		mustRecordRun(t, s, r)
	}
	mustRecordRun(t, s, NewRun("r-other", "c2", annals.StatusCompleted, runStart))
	all := map[string]*annals.Run{}
	for _, r := range mustRuns(t, s, "c1") {
		all[r.ID] = r
	}

	got, err := s.FindRunsByID(t.Context(), "c1", []string{"r-d", "r-b", "r-other", "r-none"})
	if err != nil {
		t.Fatalf("FindRunsByID: %v", err)
	}
	ids := make([]string, len(got))
	for i, r := range got {
		ids[i] = r.ID
		if d := diffRun(r, all[r.ID]); len(d) > 0 {
			t.Errorf("FindRunsByID's %s differs from FindRuns's: %q", r.ID, d)
		}
	}
	wantIDs(t, "FindRunsByID(r-d, r-b, r-other, r-none)", ids, []string{"r-b", "r-d"})

	for _, c := range []struct {
		chat string
		ids  []string
	}{{"c1", nil}, {"absent", []string{"r-a"}}} {
		got, err := s.FindRunsByID(t.Context(), c.chat, c.ids)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("FindRunsByID(%s, %v) = %v, %v; want an empty slice", c.chat, c.ids, got, err)
		}
	}
}
