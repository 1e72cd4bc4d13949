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

// TestOpenHandsCallsCarryTheirObservationsTime: a call records when its observation arrived
// (annals.MetaResultTime), in both generations, which the web UI turns into its duration.
func TestOpenHandsCallsCarryTheirObservationsTime(t *testing.T) {
	for _, c := range []struct{ id, dir, want string }{
		{"openhands:4f1c2d3e5a6b47c8a9d0e1f2a3b4c5d6", importertest.Testdata("openhands", "conversations", "4f1c2d3e5a6b47c8a9d0e1f2a3b4c5d6"), "2026-03-10T09:00:04Z"},
		{"openhands:9a8b7c6d5e4f", importertest.Testdata("openhands", "sessions", "9a8b7c6d5e4f"), "2025-06-01T10:00:09Z"},
	} {
		_, es, _ := importertest.StoredChat(t, openDB(t), c.id, []string{"openhands"}, c.dir)
		calls := 0
		for _, e := range es {
			if e.Tool == nil {
				continue
			}
			calls++
			if got := importertest.MetaOf(t, e)[annals.MetaResultTime]; got != c.want {
				t.Errorf("%s call %s: result time %v, want %s", c.id, e.ID, got, c.want)
			}
		}
		if calls != 1 {
			t.Errorf("%s: %d calls, want 1", c.id, calls)
		}
	}
}
