package cline_test

import (
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixture follows a Cline 3.x task with native tool calls (written here from Cline's
// ClineStorageMessage, src/shared/messages: an Anthropic message plus modelInfo {modelId,
// providerId, mode} and metrics {tokens {prompt, completion, cached}, cost}): each call is an
// assistant tool_use block, and its result comes back as user text blocks headed
// "[<tool> for '<arg>'] Result:", not as a tool_result block.
func TestClineNativeToolCallsGetTheirTextResults(t *testing.T) {
	const id = "cline:1767398400000"
	path := importertest.Testdata("cline", "globalStorage", "saoudrizwan.claude-dev", "tasks", "1767398400000", "api_conversation_history.json")
	c, es, runs := importertest.StoredChat(t, openDB(t), id, []string{"cline", "roo-code", "kilo-code"}, path)
	if c.Attributes["model"] != "claude-sonnet-4-5-20250929" || c.AgentID != "cline" {
		t.Errorf("chat attributes %v agent %q, want the messages' model and the cline agent", c.Attributes, c.AgentID)
	}
	if got := importertest.Kinds(es); got[annals.KindUser] != 1 || got[annals.KindAssistant] != 2 || got[annals.KindTool] != 4 || got[annals.KindSystem] != 4 || len(es) != 11 {
		t.Errorf("entries by kind %v (%d), want the task, 2 replies, 4 calls and 4 environment details; no result is a prompt", got, len(es))
	}
	want := map[string]annals.Outcome{"list_files": annals.OutcomeSucceeded, "execute_command": annals.OutcomeSucceeded, "replace_in_file": annals.OutcomeBlocked}
	created := time.UnixMilli(1767398400000)
	for _, e := range es {
		if !e.Time.Equal(created) {
			t.Errorf("entry %s at %v, want the task's time (the messages carry none)", e.ID, e.Time)
		}
		if e.Kind == annals.KindUser && e.Text != "Run the heron tests and fix what fails" {
			t.Errorf("user entry %q, want only the task", e.Text)
		}
		if e.Tool == nil {
			continue
		}
		if e.RunID == "" {
			t.Errorf("call %s has no run", e.Tool.Name)
		}
		if o, ok := want[e.Tool.Name]; ok && e.Tool.Outcome != o {
			t.Errorf("%s (%s) outcome %q result %q, want %q", e.Tool.Name, e.Tool.CallID, e.Tool.Outcome, e.Tool.Result, o)
		}
		if e.Tool.Name == "execute_command" && (!strings.Contains(e.Tool.Result, "--- FAIL: TestWade") || e.Tool.CallID != "toolu_02HeronTest") {
			t.Errorf("execute_command result %q call id %q", e.Tool.Result, e.Tool.CallID)
		}
		if e.Tool.Name == "list_files" && e.Tool.Result != "main.go\nmain_test.go" {
			t.Errorf("list_files result %q", e.Tool.Result)
		}
	}
	if len(runs) != 4 {
		t.Fatalf("%d runs, want one per assistant message", len(runs))
	}
	var in, out int64
	var cost float64
	for _, r := range runs {
		in, out, cost = in+r.InputTokens, out+r.OutputTokens, cost+r.CostUSD
		if r.Model != "claude-sonnet-4-5-20250929" {
			t.Errorf("run %s model %q", r.ID, r.Model)
		}
	}
	if in != 48800 || out != 203 || cost < 0.00939 || cost > 0.00941 {
		t.Errorf("runs total %d in, %d out, $%.4f; want 48800, 203, $0.0094", in, out, cost)
	}
}
