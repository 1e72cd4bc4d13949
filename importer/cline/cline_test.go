package cline_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixtures follow the task folders of Cline (saoudrizwan.claude-dev) and Roo Code
// (rooveterinaryinc.roo-cline) in VS Code's global storage: tasks/<task id>/
// api_conversation_history.json, the Anthropic Messages array the extension sends (Cline's
// Task.getSavedApiConversationHistory reads it as Anthropic.MessageParam[]), with the
// <task> and <environment_details> blocks the extensions inject, Cline's XML tool calls and
// "[tool for 'x'] Result:" replies, and Roo Code's native tool_use/tool_result blocks with ts;
// ui_messages.json and task_metadata.json (model_usage) beside them.
func TestClineTaskKeepsItsXMLToolCallsAndResults(t *testing.T) {
	const id = "cline:1767225600000"
	path := importertest.Testdata("cline", "globalStorage", "saoudrizwan.claude-dev", "tasks", "1767225600000", "api_conversation_history.json")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"cline", "roo-code", "kilo-code"}, path)
	if c.Attributes["cwd"] != "/home/u/otter" || c.Attributes["model"] != "claude-sonnet-4-5" || c.Title != "Add a test for the otter parser" {
		t.Errorf("chat %q %v", c.Title, c.Attributes)
	}
	if got := importertest.Kinds(es); got[annals.KindUser] != 1 || got[annals.KindAssistant] != 2 || got[annals.KindTool] != 3 || got[annals.KindSystem] != 3 {
		t.Errorf("entries by kind %v, want the task, 2 replies, 3 calls and 3 environment details", got)
	}
	tools := map[string]*annals.ToolCall{}
	for _, e := range es {
		if e.Tool != nil {
			tools[e.Tool.Name] = e.Tool
		}
		if e.Kind == annals.KindUser && e.Text != "Add a test for the otter parser" {
			t.Errorf("user entry %q, want the unwrapped task", e.Text)
		}
	}
	if r := tools["read_file"]; r == nil || r.Outcome != annals.OutcomeSucceeded || !strings.Contains(r.Result, "func Parse") || !strings.Contains(string(r.Arguments), `"path":"otter.go"`) {
		t.Errorf("read_file = %+v", r)
	}
	if w := tools["write_to_file"]; w == nil || w.Outcome != annals.OutcomeBlocked {
		t.Errorf("write_to_file = %+v, want blocked (the user denied it)", w)
	}
	if a := tools["attempt_completion"]; a == nil || !strings.Contains(string(a.Arguments), "not written") {
		t.Errorf("attempt_completion = %+v", a)
	}
}

func TestRooCodeTaskKeepsItsNativeToolCalls(t *testing.T) {
	const id = "roo-code:0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	path := importertest.Testdata("cline", "globalStorage", "rooveterinaryinc.roo-cline", "tasks", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "api_conversation_history.json")
	if f := importertest.Format(t, "cline"); f.Detect(path, importertest.Head(t, path)) {
		t.Error("cline claims a Roo Code task")
	}
	_, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"cline", "roo-code", "kilo-code"}, path)
	if len(es) != 5 || es[3].Tool == nil || es[3].Tool.Outcome != annals.OutcomeFailed || !strings.Contains(es[3].Tool.Result, "No rule to make target") {
		for _, e := range es {
			t.Logf("%s %s %q %+v", e.ID, e.Kind, e.Text, e.Tool)
		}
		t.Fatalf("%d entries, want task, context, reply, the failed make call and the answer", len(es))
	}
	if es[3].Time.UnixMilli() != 1767312003000 {
		t.Errorf("call time %v, want the message's ts", es[3].Time)
	}
}
