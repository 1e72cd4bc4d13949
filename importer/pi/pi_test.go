package pi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixture is an excerpt of Pi's own test fixture packages/coding-agent/test/fixtures/
// before-compaction.jsonl in github.com/badlogic/pi-mono (commit
// 66ba63050d8a2c7220c706ecc773bcc680849116), a real session of Pi's author: its first 25 lines,
// with texts, thinking, tool arguments and one result's details over 1,500 characters cut
// (marked in the text) and thinking signatures shortened.
func TestPiSessionPairsCallsAndKeepsRuns(t *testing.T) {
	const id = "pi:ffae836b-9420-4060-ac13-7745215f90ff"
	path := importertest.Testdata("pi", ".pi", "agent", "sessions", "--Users-badlogic-workspaces-pi-mono--", "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl")
	c, es, runs := importertest.StoredChat(t, openDB(t), id, []string{"pi"}, path)
	if c.AgentID != "pi" || c.Attributes["cwd"] != "/Users/badlogic/workspaces/pi-mono" || c.Attributes["model"] != "claude-opus-4-5" ||
		c.Attributes["resume_command"] != "pi --session ffae836b-9420-4060-ac13-7745215f90ff" {
		t.Errorf("chat agent %q attributes %v", c.AgentID, c.Attributes)
	}
	kinds := importertest.Kinds(es)
	// 6 prompts; 9 assistant messages, of which the one holding only tool calls makes no entry
	// of its own; 5 calls, each with its result; 4 thinking-level changes.
	if kinds[annals.KindUser] != 6 || kinds[annals.KindAssistant] != 8 || kinds[annals.KindTool] != 5 || kinds[annals.KindEvent] != 4 || len(es) != 23 {
		t.Fatalf("%d entries %v", len(es), kinds)
	}
	for _, e := range es {
		if e.Kind == annals.KindTool && (e.Tool.Result == "" || e.Tool.Outcome != annals.OutcomeSucceeded || e.Tool.CallID == "") {
			t.Errorf("call %s without its result: %+v", e.ID, e.Tool)
		}
	}
	if !c.CreatedAt.Equal(time.Date(2025, 12, 8, 22, 41, 5, 306000000, time.UTC)) || es[0].ID != "L2" || !strings.HasPrefix(es[0].Text, "alright, read @packages") {
		t.Errorf("created %s, first entry %s %q", c.CreatedAt, es[0].ID, es[0].Text)
	}
	if len(runs) != 9 || runs[0].InputTokens != 2775 || runs[0].CostUSD == 0 {
		t.Fatalf("%d runs, first %+v", len(runs), runs[0])
	}
	cancelled := 0
	for _, r := range runs {
		if r.Status == annals.StatusCancelled {
			cancelled++
		}
	}
	if cancelled != 1 {
		t.Errorf("%d cancelled runs, want the aborted reply's", cancelled)
	}
}
