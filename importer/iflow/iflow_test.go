package iflow_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixture is an excerpt of a real iFlow CLI session (4 records, glm-4.7), as Engram's iFlow
// format reference (github.com/bbingz/engram, docs/sessions/iflow.md) records it from a live
// ~/.iflow store: Claude Code's envelope with a "session-" session id, a tool_result holding
// Gemini CLI's functionResponse, and the assistant's second record repeating the first's
// tool_use block (which made a second, resultless call when Claude Code's reader took the file).
func TestIFlowSessionPairsItsCallOnce(t *testing.T) {
	const id = "iflow:session-041101e6-2a7f-4dfd-90b0-57888a353f6a"
	path := importertest.Testdata("iflow", ".iflow", "projects", "-Users-u-zoo", "session-041101e6-2a7f-4dfd-90b0-57888a353f6a.jsonl")
	c, es, runs := importertest.StoredChat(t, openDB(t), id, []string{"iflow"}, path)
	if c.AgentID != "iflow" || c.Attributes["cwd"] != "/Users/u/zoo" || c.Attributes["model"] != "glm-4.7" || c.Attributes["resume_command"] != "" {
		t.Errorf("chat agent %q attributes %v", c.AgentID, c.Attributes)
	}
	kinds := importertest.Kinds(es)
	if len(es) != 3 || kinds[annals.KindUser] != 1 || kinds[annals.KindTool] != 1 || kinds[annals.KindAssistant] != 1 {
		t.Fatalf("%d entries %v, want the prompt, one call and the answer", len(es), kinds)
	}
	call := es[1]
	if call.Tool.Name != "list_directory" || call.Tool.CallID != "list_directory-1" || call.Tool.Outcome != annals.OutcomeSucceeded || call.Tool.Result != "a.go\nb.go" {
		t.Errorf("call %+v", call.Tool)
	}
	if want := time.Date(2026, 2, 27, 9, 10, 5, 0, time.UTC); !call.Time.Equal(want) || es[0].ID != "f1#0" {
		t.Errorf("call at %s, first entry %s", call.Time, es[0].ID)
	}
	if len(runs) != 2 || runs[0].InputTokens != 1200 || runs[1].OutputTokens != 12 {
		t.Errorf("runs %+v", runs)
	}
}
