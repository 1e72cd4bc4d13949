package openhands_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixtures follow OpenHands' two event stores: the agent SDK's
// conversations/<id>/events/event-<n>-<id>.json with base_state.json (OpenHands/software-agent-sdk,
// openhands/sdk/event: MessageEvent, ActionEvent with tool_call, ObservationEvent, ...), and the
// 0.x server's sessions/<id>/events/<n>.json with metadata.json (All-Hands-AI/OpenHands,
// frontend/src/types/core/base.ts: actions with args, observations with cause and extras).
func TestOpenHandsConversationsOfBothGenerations(t *testing.T) {
	c, es, _ := importertest.StoredChat(t, openDB(t), "openhands:4f1c2d3e5a6b47c8a9d0e1f2a3b4c5d6", []string{"openhands"}, importertest.Testdata("openhands", "conversations", "4f1c2d3e5a6b47c8a9d0e1f2a3b4c5d6"))
	if got := importertest.Kinds(es); got[annals.KindUser] != 1 || got[annals.KindAssistant] != 2 || got[annals.KindTool] != 1 || got[annals.KindSystem] != 1 || got[annals.KindEvent] != 1 {
		t.Errorf("SDK conversation entries by kind %v", got)
	}
	for _, e := range es {
		if e.Tool != nil && (e.Tool.Name != "execute_bash" || e.Tool.Result != "42 puffin.py" || e.Tool.Outcome != annals.OutcomeSucceeded || !strings.Contains(string(e.Tool.Arguments), "wc -l")) {
			t.Errorf("call %+v", e.Tool)
		}
	}
	if c.CreatedAt.IsZero() {
		t.Error("chat without a time")
	}
	c, es, _ = importertest.StoredChat(t, openDB(t), "openhands:9a8b7c6d5e4f", []string{"openhands"}, importertest.Testdata("openhands", "sessions", "9a8b7c6d5e4f"))
	if c.Title != "Fix the gannet test" || c.Attributes["repository"] != "acme/gannet" {
		t.Errorf("legacy chat %q %v", c.Title, c.Attributes)
	}
	if got := importertest.Kinds(es); got[annals.KindUser] != 1 || got[annals.KindAssistant] != 2 || got[annals.KindTool] != 1 || got[annals.KindEvent] != 1 {
		t.Errorf("legacy entries by kind %v", got)
	}
	for _, e := range es {
		if e.Tool != nil && (e.Tool.Name != "run" || e.Tool.Outcome != annals.OutcomeFailed || e.Tool.Result != "1 failed: test_dive") {
			t.Errorf("legacy call %+v, want the failed pytest run", e.Tool)
		}
	}
}
