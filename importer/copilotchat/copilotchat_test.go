package copilotchat_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixtures follow VS Code's serialized chat sessions (microsoft/vscode,
// src/vs/workbench/contrib/chat/common/chatModel.ts, version 3: requests with message, response
// parts — markdown {value} fragments, inlineReference, thinking, toolInvocationSerialized with
// toolSpecificData or resultDetails, textEditGroup — sessionId, creationDate, customTitle),
// in workspaceStorage/<hash>/chatSessions/, one as the whole JSON document and one as the newer
// mutation log (.jsonl: kind 0 state, kind 1 set, kind 2 append).
func TestCopilotChatSessionKeepsRepliesAndToolCalls(t *testing.T) {
	const id = "copilot-chat:3c2b1a09-8f7e-4d6c-b5a4-938271605f4e"
	path := importertest.Testdata("copilot-chat", "workspaceStorage", "5f3e2d1c0b9a8f7e6d5c4b3a29181716", "chatSessions", "3c2b1a09-8f7e-4d6c-b5a4-938271605f4e.json")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"copilot-chat"}, path)
	if c.Title != "Stork build failure" || c.Attributes["model"] != "copilot/claude-sonnet-4.5" || c.Attributes["workspace_hash"] != "5f3e2d1c0b9a8f7e6d5c4b3a29181716" {
		t.Errorf("chat %q %v", c.Title, c.Attributes)
	}
	if got := importertest.Kinds(es); got[annals.KindUser] != 2 || got[annals.KindAssistant] != 3 || got[annals.KindTool] != 2 || got[annals.KindEvent] != 1 {
		t.Errorf("entries by kind %v", got)
	}
	for _, e := range es {
		switch {
		case e.Tool != nil && e.Tool.Name == "run_in_terminal":
			if e.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(e.Tool.Result, "undefined: nestSize") || !strings.Contains(string(e.Tool.Arguments), "go build") {
				t.Errorf("terminal call %+v", e.Tool)
			}
		case e.Tool != nil:
			if e.Tool.Outcome != annals.OutcomeSucceeded || !strings.Contains(string(e.Tool.Arguments), "nestSize = 3") {
				t.Errorf("edit call %+v", e.Tool)
			}
		case strings.Contains(e.Text, "The build fails"):
			if e.Text != "The build fails because `stork.go` uses `nestSize`, which is not defined." {
				t.Errorf("reply %q, want the fragments joined around the file reference", e.Text)
			}
		}
	}
}

func TestCopilotChatMutationLogIsReplayed(t *testing.T) {
	const id = "copilot-chat:7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"
	path := importertest.Testdata("copilot-chat", "workspaceStorage", "5f3e2d1c0b9a8f7e6d5c4b3a29181716", "chatSessions", "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d.jsonl")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"copilot-chat"}, path)
	if c.Title != "Heron retry loop fixed" || len(es) != 3 || es[1].Tool == nil || es[1].Tool.Result != "ok  heron 0.3s" || es[2].Text != "The retry loop now backs off." {
		for _, e := range es {
			t.Logf("%s %s %q %+v", e.ID, e.Kind, e.Text, e.Tool)
		}
		t.Fatalf("chat %q with %d entries, want the prompt, the test run and the reply", c.Title, len(es))
	}
}
