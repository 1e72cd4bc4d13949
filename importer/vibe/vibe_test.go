package vibe_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The session is written as Mistral Vibe's SessionLogger writes one
// (vibe/core/session/session_logger.py: messages.jsonl of LLMMessage.model_dump(exclude_none),
// meta.json of SessionMetadata plus title, config, system_prompt), with the messages of Vibe's
// own resumed-session test (tests/snapshots/test_ui_snapshot_session_resume.py) and a failed
// call in the <tool_error> form agent_loop.py writes.
func TestVibeSessionKeepsItsMetaTitleAndID(t *testing.T) {
	const id = "mistral-vibe:3f2a9c1e-7b4d-4e8a-a1c2-d3e4f5a6b7c8"
	path := importertest.Testdata("mistral-vibe", ".vibe", "logs", "session", "session_20260312_091500_3f2a9c1e", "messages.jsonl")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"mistral-vibe"}, path)
	if c.Title != "Read test.txt" || c.AgentID != "mistral-vibe" || c.Attributes["cwd"] != "/home/u/demo" || c.Attributes["git_branch"] != "main" ||
		c.Attributes["model"] != "devstral-2" || c.Attributes["resume_command"] != "vibe --resume 3f2a9c1e-7b4d-4e8a-a1c2-d3e4f5a6b7c8" {
		t.Errorf("chat %q agent %q attributes %v", c.Title, c.AgentID, c.Attributes)
	}
	kinds := importertest.Kinds(es)
	if len(es) != 7 || kinds[annals.KindSystem] != 1 || kinds[annals.KindUser] != 1 || kinds[annals.KindAssistant] != 3 || kinds[annals.KindTool] != 2 {
		t.Fatalf("%d entries %v", len(es), kinds)
	}
	read, bash := es[3], es[5]
	if read.Tool.Name != "read" || read.Tool.CallID != "tool_call_1" || read.Tool.Outcome != annals.OutcomeSucceeded || read.Tool.Result == "" {
		t.Errorf("read %+v", read.Tool)
	}
	if bash.Tool.Name != "bash" || bash.Tool.Outcome != annals.OutcomeFailed {
		t.Errorf("bash %+v", bash.Tool)
	}
	if es[2].Reasoning != "The user wants test.txt read." || es[1].ID != "8d0f5e0e-6a51-4b8e-9d39-1f0c2b7e4a10" {
		t.Errorf("reasoning %q, prompt id %s", es[2].Reasoning, es[1].ID)
	}
	if !es[1].Time.Equal(time.Date(2026, 3, 12, 9, 15, 0, 412731000, time.UTC)) || !es[6].Time.Equal(time.Date(2026, 3, 12, 9, 16, 42, 118204000, time.UTC)) {
		t.Errorf("first at %s, last at %s: want start_time and end_time", es[1].Time, es[6].Time)
	}
}
