package clinesession_test

import (
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The session folder is an excerpt of Cline's own fixtures in github.com/cline/cline (commit
// 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4): sdk/packages/core/fixtures/session/
// session.messages.json, a real forked CLI session, cut to its first 13 messages and its last
// two (texts over 300 characters cut, marked in the text), and session.json beside it as the
// manifest. The sub-agent's file is written as the writer writes one
// (sdk/packages/core/src/services/session-artifacts.ts subagentArtifactPaths: <agent
// id>.messages.json in the root session's folder; session-graph.ts makeSubSessionId:
// <root>__<agent id>; the v1 contract sdk/packages/core/docs/messages-contract-v1.md), with a
// failed call (is_error) and redacted thinking.
const (
	root = "1784094124598_rruoq"
	sub  = root + "__agent_1783376880100_k3x9q"
)

func fixture() string {
	return importertest.Testdata("cline-session", ".cline", "data", "sessions", root)
}

func TestClineSessionPairsCallsAndKeepsRunsAndManifest(t *testing.T) {
	c, es, runs := importertest.StoredChat(t, openDB(t), "cline-session:"+root, []string{"cline-session"}, fixture())
	if !strings.HasPrefix(c.Title, "can you update @apps/examples") || !strings.HasSuffix(c.Title, "(fork)") || c.AgentID != "cline" ||
		c.Attributes["cwd"] != "/Users/example/dev/cline" || c.Attributes["model"] != "anthropic/claude-opus-4.8-fast" ||
		c.Attributes["forked_from"] != "cline-session:1784094053271_p8pzo" || c.Attributes["resume_command"] != "cline --id "+root {
		t.Errorf("chat %q agent %q attributes %v", c.Title, c.AgentID, c.Attributes)
	}
	kinds := importertest.Kinds(es)
	// The system prompt; 4 prompts; 7 replies; 4 calls, each with the result the next user
	// message carried (which makes no entry of its own); the attached file as an event.
	if len(es) != 17 || kinds[annals.KindSystem] != 1 || kinds[annals.KindUser] != 4 || kinds[annals.KindAssistant] != 7 || kinds[annals.KindTool] != 4 || kinds[annals.KindEvent] != 1 {
		t.Fatalf("%d entries %v", len(es), kinds)
	}
	names := []string{}
	for _, e := range es {
		if e.Kind != annals.KindTool {
			continue
		}
		names = append(names, e.Tool.Name)
		if e.Tool.Result == "" || e.Tool.Outcome != annals.OutcomeSucceeded || !strings.HasPrefix(e.Tool.CallID, "toolu_") || e.RunID == "" {
			t.Errorf("call %s: %+v run %q", e.ID, e.Tool, e.RunID)
		}
	}
	if strings.Join(names, ",") != "editor,read_files,editor,run_commands" {
		t.Errorf("calls %v", names)
	}
	first, file := es[1], es[2]
	if first.ID != "msg_mr9sjimy_1#0" || first.Kind != annals.KindUser || !first.Time.Equal(time.UnixMilli(1783376868634).UTC()) {
		t.Errorf("first prompt %s %s at %s", first.ID, first.Kind, first.Time)
	}
	if file.Kind != annals.KindEvent || file.Channel != "cline-session/file" || file.Text != "file /Users/example/dev/cline/apps/examples/desktop-app/webview/components/agent-sidebar.tsx" {
		t.Errorf("file block %s %q %q", file.Kind, file.Channel, file.Text)
	}
	if !c.CreatedAt.Equal(first.Time) {
		t.Errorf("created %s, want the first message's time (a fork keeps its parent's messages)", c.CreatedAt)
	}
	if len(runs) != 7 || runs[0].Model != "anthropic/claude-opus-4.8-fast" || runs[0].InputTokens != 34334 || runs[0].OutputTokens != 741 || runs[0].CostUSD == 0 ||
		runs[6].Model != "mistralai/voxtral-small-24b-2507" || runs[6].OutputTokens != 10 {
		t.Fatalf("%d runs: first %+v, last %+v", len(runs), runs[0], runs[len(runs)-1])
	}
}

func TestClineSubAgentIsALinkedChatWithAFailedCall(t *testing.T) {
	c, es, runs := importertest.StoredChat(t, openDB(t), "cline-session:"+sub, []string{"cline-session"}, fixture())
	if c.AgentID != "cline/subagent" || c.Attributes["parent"] != "cline-session:"+root || c.Attributes["subagent"] != "agent_1783376880100_k3x9q" ||
		c.Attributes["resume_command"] != "" || c.Attributes["cwd"] != "/Users/example/dev/cline" {
		t.Errorf("sub-agent agent %q attributes %v", c.AgentID, c.Attributes)
	}
	kinds := importertest.Kinds(es)
	if len(es) != 5 || kinds[annals.KindUser] != 1 || kinds[annals.KindAssistant] != 3 || kinds[annals.KindTool] != 1 {
		t.Fatalf("%d entries %v", len(es), kinds)
	}
	call := es[2]
	if call.Tool.Name != "run_commands" || call.Tool.CallID != "toolu_sub_01" || call.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(call.Tool.Result, "No such file") {
		t.Errorf("call %+v", call.Tool)
	}
	if es[1].Reasoning != "A grep over the webview components should find it." || strings.Contains(string(es[3].Metadata), "ZW5jcnlwdGVk") {
		t.Errorf("reasoning %q, redacted %s", es[1].Reasoning, es[3].Metadata)
	}
	if len(runs) != 2 || runs[1].InputTokens != 1204 || runs[1].CostUSD != 0.0123 {
		t.Fatalf("%d runs %+v", len(runs), runs)
	}
}
