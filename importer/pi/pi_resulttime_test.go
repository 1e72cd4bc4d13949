package pi_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestToolResultTimeIsKept: each call carries the time of the toolResult message that answered
// it (annals.MetaResultTime), which the web UI turns into the call's duration.
func TestToolResultTimeIsKept(t *testing.T) {
	const id = "pi:ffae836b-9420-4060-ac13-7745215f90ff"
	path := importertest.Testdata("pi", ".pi", "agent", "sessions", "--Users-badlogic-workspaces-pi-mono--", "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl")
	_, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"pi"}, path)
	calls := 0
	for _, e := range es {
		if e.Kind != annals.KindTool {
			continue
		}
		calls++
		at, _ := importertest.MetaOf(t, e)[annals.MetaResultTime].(string)
		done, err := time.Parse(time.RFC3339Nano, at)
		if err != nil || done.Before(e.Time) {
			t.Errorf("call %s (%s at %s): result time %q, want a time at or after the call", e.ID, e.Tool.Name, e.Time, at)
		}
	}
	if calls != 5 {
		t.Errorf("%d calls, want 5", calls)
	}
}
