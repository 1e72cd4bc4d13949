package copilotlegacy_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// No pre-1.0 session file is public; the fixture follows the shape the readers of those files
// record (a prompt-analysis tool's ingest test: {sessionId, startTime, chatMessages} with OpenAI
// messages and str_replace_editor calls; a usage analyzer's legacy parser: timeline events of
// type tool_call_completed with toolTitle, arguments and result.log).
func TestCopilotLegacySessionTakesOutcomesFromItsTimeline(t *testing.T) {
	const id = "copilot-cli-legacy:4c3b2a19-8d7e-4f6a-b5c4-d3e2f1a0b9c8"
	path := importertest.Testdata("copilot-cli-legacy", ".copilot", "history-session-state", "session_4c3b2a19-8d7e-4f6a-b5c4-d3e2f1a0b9c8_1759957816398.json")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"copilot-cli-legacy"}, path)
	if c.AgentID != "copilot-cli" || !c.CreatedAt.Equal(time.Date(2025, 10, 8, 21, 10, 16, 398000000, time.UTC)) {
		t.Errorf("chat agent %q created %s", c.AgentID, c.CreatedAt)
	}
	kinds := importertest.Kinds(es)
	if len(es) != 4 || kinds[annals.KindUser] != 1 || kinds[annals.KindAssistant] != 2 || kinds[annals.KindTool] != 1 {
		t.Fatalf("%d entries %v", len(es), kinds)
	}
	call := es[2]
	if call.ID != "m2#1" || call.Tool.Name != "str_replace_editor" || call.Tool.CallID != "toolu_vrtx_01Hk3" || call.Tool.Outcome != annals.OutcomeFailed || call.Tool.Result == "" {
		t.Errorf("call %s %+v", call.ID, call.Tool)
	}
	if !es[3].Time.Equal(time.Date(2025, 10, 8, 21, 10, 21, 550000000, time.UTC)) || !es[1].Time.Equal(time.Date(2025, 10, 8, 21, 10, 18, 120000000, time.UTC)) {
		t.Errorf("replies at %s and %s, want the timeline's copilot events", es[1].Time, es[3].Time)
	}
}
