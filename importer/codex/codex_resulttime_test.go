package codex_test

import (
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestToolResultTimeIsKept: a call carries the time of its output line (annals.MetaResultTime),
// which the web UI turns into the call's duration: the grep at 08:00:05 answered at 08:00:06.
func TestToolResultTimeIsKept(t *testing.T) {
	_, es, _ := importertest.StoredChat(t, openDB(t), "codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000", []string{"codex"},
		importertest.Testdata("codex", "rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"))
	for _, e := range es {
		if e.Kind == annals.KindTool && e.Tool.CallID == "call_grep" {
			if got := importertest.MetaOf(t, e)[annals.MetaResultTime]; got != "2025-06-01T08:00:06Z" {
				t.Errorf("the grep's result time is %v, want 2025-06-01T08:00:06Z", got)
			}
			return
		}
	}
	t.Error("no tool entry for call_grep")
}
