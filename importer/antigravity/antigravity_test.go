package antigravity_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The first four lines are Engram's Antigravity CLI fixture (github.com/bbingz/engram,
// tests/fixtures/antigravity-cli/transcript.jsonl), the step shape of
// ~/.gemini/antigravity-cli/brain/<id>/logs/transcript*.jsonl; a failed RUN_COMMAND step and a
// closing reply were added in the same shape.
func TestAntigravityPairsStepsWithTheirCalls(t *testing.T) {
	const id = "antigravity:e93ee5f8-3c1a-4b7e-9d2f-6a5b4c3d2e1f"
	path := importertest.Testdata("antigravity", ".gemini", "antigravity-cli", "brain", "e93ee5f8-3c1a-4b7e-9d2f-6a5b4c3d2e1f", "logs", "transcript.jsonl")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"antigravity"}, path)
	if c.AgentID != "antigravity" || !c.CreatedAt.Equal(time.Date(2026, 5, 20, 3, 0, 0, 0, time.UTC)) {
		t.Errorf("chat agent %q created %s", c.AgentID, c.CreatedAt)
	}
	kinds := importertest.Kinds(es)
	if len(es) != 6 || kinds[annals.KindUser] != 1 || kinds[annals.KindAssistant] != 3 || kinds[annals.KindTool] != 2 {
		t.Fatalf("%d entries %v", len(es), kinds)
	}
	read, run := es[2], es[4]
	if read.Tool.Name != "Read" || read.Tool.Result != "file contents omitted" || read.Tool.Outcome != annals.OutcomeSucceeded || es[1].Reasoning != "Inspecting the transcript shape" {
		t.Errorf("read %+v, reasoning %q", read.Tool, es[1].Reasoning)
	}
	if run.ID != "s3#1" || run.Tool.Outcome != annals.OutcomeFailed || run.Tool.Result != "npm ERR! missing script: test" {
		t.Errorf("run %s %+v", run.ID, run.Tool)
	}
}
