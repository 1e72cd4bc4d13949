package claudecode_test

import (
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestToolResultTimeIsKept: a tool call carries the time of the line holding its result
// (annals.MetaResultTime), which the web UI turns into the call's duration. sess-main.jsonl has
// a Read and a Bash call in one message, answered at 10:00:06 and 10:00:07.
func TestToolResultTimeIsKept(t *testing.T) {
	_, es, _ := importertest.StoredChat(t, openDB(t), "claude-code:sess-main", []string{"claude-code"}, importertest.Testdata("claude-code", "project", "sess-main.jsonl"))
	want := map[string]string{"Read": "2025-05-01T10:00:06Z", "Bash": "2025-05-01T10:00:07Z"}
	for _, e := range es {
		if e.Kind != annals.KindTool || want[e.Tool.Name] == "" {
			continue
		}
		if got := importertest.MetaOf(t, e)[annals.MetaResultTime]; got != want[e.Tool.Name] {
			t.Errorf("%s's result time is %v, want %s", e.Tool.Name, got, want[e.Tool.Name])
		}
		delete(want, e.Tool.Name)
	}
	if len(want) > 0 {
		t.Errorf("no tool entries for %v", want)
	}
}
