package continuedev_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixture follows Continue's PersistedSessionInfo and ChatHistoryItem
// (continuedev/continue, core/index.d.ts: sessionId, title, workspaceDirectory, history of
// {message, contextItems, toolCallState, reasoning}; ChatMessage roles user, thinking,
// assistant with toolCalls, tool with toolCallId), in ~/.continue/sessions/<id>.json with the
// sessions.json index (dateCreated in milliseconds) beside it.
func TestContinueSessionKeepsItsToolCallAndReasoning(t *testing.T) {
	const id = "continue:8e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
	path := importertest.Testdata("continue", ".continue", "sessions", "8e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b.json")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"continue"}, path)
	if c.Title != "Crane test timeout" || c.Attributes["cwd"] != "/home/u/crane" || c.CreatedAt.UnixMilli() != 1767400000000 {
		t.Errorf("chat %q %v %v", c.Title, c.Attributes, c.CreatedAt)
	}
	if got := importertest.Kinds(es); got[annals.KindUser] != 1 || got[annals.KindAssistant] != 3 || got[annals.KindTool] != 1 || len(es) != 5 {
		t.Errorf("entries by kind %v, want prompt, thinking, 2 replies and one call (its tool message on it)", got)
	}
	for _, e := range es {
		if e.Tool != nil && (e.Tool.Name != "read_file" || e.Tool.Outcome != annals.OutcomeSucceeded || !strings.Contains(e.Tool.Result, "<-done")) {
			t.Errorf("read_file %+v", e.Tool)
		}
		if strings.Contains(e.Text, "never closed") && e.Reasoning != "close(done) is missing" {
			t.Errorf("reply reasoning %q", e.Reasoning)
		}
	}
}
