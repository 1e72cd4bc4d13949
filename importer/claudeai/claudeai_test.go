package claudeai_test

import (
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The export is rebuilt from a real claude.ai conversation archived verbatim (its export
// metadata, message metadata, thinking, and the tool_use and tool_result blocks as exported,
// "verbatim JSON") in a public notes repository; the thinking's and the reply's block times,
// which that archive does not show, and a token_budget block (which real exports interleave
// around tool calls, as chatfs's tests record) were added, and long texts cut (marked).
func TestClaudeAIExportPairsToolUseInOneMessage(t *testing.T) {
	const id = "claude-ai:729dfd2a-69e3-414d-85c0-532d6be923f1"
	path := importertest.Testdata("claude-ai", "Downloads", "data-2026-04-02-batch-0000", "conversations.json")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"claude-ai"}, path)
	if c.Title != "Government scandal disclosure and media silence" || c.AgentID != "claude-ai" || !strings.HasPrefix(c.Summary, "**Conversation Overview**") ||
		!c.CreatedAt.Equal(time.Date(2026, 4, 2, 0, 41, 23, 975234000, time.UTC)) {
		t.Errorf("chat %q agent %q summary %q created %s", c.Title, c.AgentID, c.Summary, c.CreatedAt)
	}
	kinds := importertest.Kinds(es)
	if len(es) != 5 || kinds[annals.KindUser] != 1 || kinds[annals.KindAssistant] != 3 || kinds[annals.KindTool] != 1 {
		t.Fatalf("%d entries %v, want the prompt, two thoughts, one call and the reply", len(es), kinds)
	}
	call := es[2]
	if call.Tool.Name != "view" || call.Tool.CallID != "toolu_01XhF1tBH5AFfqjfBX34LEdF" || call.Tool.Outcome != annals.OutcomeSucceeded ||
		!strings.Contains(call.Tool.Result, "name: phrasing-refining") || !call.Time.Equal(time.Date(2026, 4, 2, 0, 41, 26, 922310000, time.UTC)) {
		t.Errorf("call %s at %s: %+v", call.ID, call.Time, call.Tool)
	}
	if es[1].Reasoning != "Let me read the phrasing-refining skill first." || !strings.HasPrefix(es[4].Text, "The sentence's meaning") || es[4].ID != "019d4ba3-4415-7410-a45b-60f8b5d58e35#5" {
		t.Errorf("thought %q, reply %s %q", es[1].Reasoning, es[4].ID, es[4].Text)
	}
}
