package codex_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestForkedCodexRolloutDropsTheReplayedParentHistory imports a forked rollout of the shape
// Codex writes (the child's session_meta with forked_from_id, then the parent's session_meta,
// turns, messages and token counts copied in with the fork's timestamps, then the fork's own
// turn; turn ids are UUIDv7, as in Codex): only the fork's own messages and tokens are stored.
func TestForkedCodexRolloutDropsTheReplayedParentHistory(t *testing.T) {
	const child = "codex:019b8db4-e040-7bbb-8111-222333444555"
	c, es, rs := importertest.StoredChat(t, openDB(t), child, []string{"codex"}, importertest.Testdata("codex", "rollout-2026-01-05T10-30-00-019b8db4-e040-7bbb-8111-222333444555.jsonl"))
	if c.Attributes["forked_from"] != "019b8d62-7a80-7aaa-8111-222333444555" {
		t.Errorf("attributes %v, want forked_from the parent thread", c.Attributes)
	}
	var users, assistants []string
	replayed := 0
	for _, e := range es {
		switch {
		case e.Kind == annals.KindUser:
			users = append(users, e.Text)
		case e.Kind == annals.KindAssistant:
			assistants = append(assistants, e.Text)
		case e.Channel == "codex/replayed_history":
			replayed++
			if !strings.Contains(string(e.Metadata), `"replayed_lines":9`) {
				t.Errorf("replay note %s, want the 9 copied lines counted", e.Metadata)
			}
		case e.Channel == "codex/session_meta":
			t.Errorf("the parent's copied session_meta was stored as an event")
		}
	}
	if strings.Join(users, "|") != "Now make it pear trees instead" {
		t.Errorf("user messages %q, want only the fork's own prompt (not the parent's replayed one)", users)
	}
	if strings.Join(assistants, "|") != "Twelve rows of pear trees, then.|Worker: count the pear saplings" {
		t.Errorf("assistant messages %q, want the fork's reply and the agent_message item as text", assistants)
	}
	if replayed != 1 {
		t.Errorf("%d replay notes, want 1", replayed)
	}
	if len(rs) != 1 || rs[0].InputTokens != 600 || rs[0].OutputTokens != 20 {
		for _, r := range rs {
			t.Logf("run %s %d/%d", r.ID, r.InputTokens, r.OutputTokens)
		}
		t.Errorf("%d runs, want the fork's one turn with 600/20 tokens (the parent's copied count not added)", len(rs))
	}
}

// TestCodexExecStreamIsRead imports the event stream of `codex exec --json`, in the shape of
// the example in openai/codex docs/exec.md: the command, the reasoning and the agent_message
// are entries, and turn.completed's usage is the turn's tokens.
func TestCodexExecStreamIsRead(t *testing.T) {
	const id = "codex:0199a213-81c0-7800-8aa1-bbab2a035a53/exec"
	c, es, rs := importertest.StoredChat(t, openDB(t), id, importer.Names(importer.Formats()), importertest.Testdata("codex", "codex-exec.jsonl"))
	if c.Attributes["source"] != "codex" || c.Attributes["session_id"] != "0199a213-81c0-7800-8aa1-bbab2a035a53" {
		t.Errorf("attributes %v", c.Attributes)
	}
	if len(es) != 3 {
		t.Fatalf("%d entries, want command, reasoning, message", len(es))
	}
	if es[0].Kind != annals.KindTool || es[0].Tool.Result != "docs\nsdk\nexamples\n" || es[0].Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("entry 1 %+v %+v, want the command with its output", es[0], es[0].Tool)
	}
	if es[1].Reasoning != "**Summarizing the layout**" {
		t.Errorf("entry 2 reasoning %q", es[1].Reasoning)
	}
	if es[2].Kind != annals.KindAssistant || es[2].Text != "Repo contains docs, sdk, and examples directories." {
		t.Errorf("entry 3 %s %q, want the agent_message as assistant text", es[2].Kind, es[2].Text)
	}
	for _, r := range rs {
		t.Logf("run %+v", *r)
	}
	if len(rs) != 1 || rs[0].InputTokens != 24763 || rs[0].OutputTokens != 122 || rs[0].Status != annals.StatusCompleted {
		t.Errorf("runs %+v, want one completed turn with turn.completed's usage", rs)
	}
}
