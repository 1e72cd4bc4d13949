package gptme_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixture is written as gptme writes its logs (gptme/message.py Message.to_dict: role,
// content, timestamp in local ISO time, pinned, hide, call_id, metadata {model, usage, cost,
// tool}; gptme/config/chat.py's config.toml [chat] table), with the tools' own answers (the
// shell tool's "Ran command: `…`" and "Return code: 1", gptme/tools/shell.py). No public
// conversation.jsonl was found to excerpt.
func TestGptmeConversationPairsToolAnswers(t *testing.T) {
	const id = "gptme:2025-03-01-ten-happy-otters"
	path := importertest.Testdata("gptme", ".local", "share", "gptme", "logs", "2025-03-01-ten-happy-otters", "conversation.jsonl")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"gptme"}, path)
	if c.Title != "Counting lines in notes" || c.AgentID != "gptme" || c.Attributes["cwd"] != "/home/u/notes" ||
		c.Attributes["model"] != "anthropic/claude-sonnet-4-20250514" || c.Attributes["resume_command"] != "gptme --name 2025-03-01-ten-happy-otters" {
		t.Errorf("chat %q agent %q attributes %v", c.Title, c.AgentID, c.Attributes)
	}
	kinds := importertest.Kinds(es)
	if len(es) != 7 || kinds[annals.KindSystem] != 1 || kinds[annals.KindUser] != 1 || kinds[annals.KindAssistant] != 3 || kinds[annals.KindTool] != 2 {
		t.Fatalf("%d entries %v, want the system prompt, a prompt, three replies and two tool answers", len(es), kinds)
	}
	ok, failed := es[3], es[5]
	if ok.Tool.Name != "shell" || ok.Tool.CallID != "toolu_01A" || ok.Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("first answer %+v", ok.Tool)
	}
	if failed.Tool.Name != "shell" || failed.Tool.Outcome != annals.OutcomeFailed {
		t.Errorf("second answer %+v", failed.Tool)
	}
	if want := time.Date(2025, 3, 1, 10, 0, 9, 900000000, time.UTC); !failed.Time.Equal(want) || failed.ID != "L6" {
		t.Errorf("second answer %s at %s, want L6 at %s", failed.ID, failed.Time, want)
	}
	if es[2].InputTokens != 2100 || es[2].OutputTokens != 14 {
		t.Errorf("reply tokens %d/%d", es[2].InputTokens, es[2].OutputTokens)
	}
}

// TestGptmeToolAnswersCarryTheirDuration: each tool answer records how long its tool ran, from
// the reply that asked for it to the answer (annals.MetaDurationMS), which the web UI shows.
func TestGptmeToolAnswersCarryTheirDuration(t *testing.T) {
	path := importertest.Testdata("gptme", ".local", "share", "gptme", "logs", "2025-03-01-ten-happy-otters", "conversation.jsonl")
	_, es, _ := importertest.StoredChat(t, openDB(t), "gptme:2025-03-01-ten-happy-otters", []string{"gptme"}, path)
	for i, want := range map[int]float64{3: 530, 5: 600} {
		if got := importertest.MetaOf(t, es[i])[annals.MetaDurationMS]; got != want {
			t.Errorf("answer %s: duration %v ms, want %v (its reply to its own time)", es[i].ID, got, want)
		}
	}
}
