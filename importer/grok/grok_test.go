package grok_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// No Grok Build session is public; the fixture is written from the format as the tools that read
// it describe their live captures (codecast's Grok parser, v1.0.5 sessions: ACP envelopes with
// unix-second timestamps, _meta.promptIndex, tool_call_update content wrappers, turn_completed
// usage with modelUsage, rewind markers that leave the superseded lines in place).
func TestGrokSessionJoinsChunksAndHonoursRewind(t *testing.T) {
	const id = "grok:019f179d-0888-76b1-9325-5a91ace595df"
	path := importertest.Testdata("grok", ".grok", "sessions", "%2Fhome%2Fu%2Fdemo", "019f179d-0888-76b1-9325-5a91ace595df", "updates.jsonl")
	c, es, runs := importertest.StoredChat(t, openDB(t), id, []string{"grok"}, path)
	if c.Title != "Count the Go files" || c.AgentID != "grok" || c.Attributes["cwd"] != "/home/u/demo" || c.Attributes["model"] != "grok-4.5-build" {
		t.Errorf("chat %q agent %q attributes %v", c.Title, c.AgentID, c.Attributes)
	}
	kinds := importertest.Kinds(es)
	// Prompt, thought, call, reply; the rewound "Delete them all" turn is gone; its replacement
	// prompt, a failed call and the turn's agent_result.
	if len(es) != 7 || kinds[annals.KindUser] != 2 || kinds[annals.KindTool] != 2 || kinds[annals.KindAssistant] != 3 {
		for _, e := range es {
			t.Logf("%s %s %q", e.ID, e.Kind, e.Text)
		}
		t.Fatalf("%d entries %v", len(es), kinds)
	}
	if es[0].Text != "How many Go files are in this repo?" || es[3].Text != "There are 42 Go files." || es[1].Reasoning != "I should count them with find." {
		t.Errorf("joined chunks: %q, %q, %q", es[0].Text, es[3].Text, es[1].Reasoning)
	}
	ok, failed := es[2], es[5]
	if ok.Tool.Name != "run_terminal_cmd" || ok.Tool.Result != "42\n" || ok.Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("first call %+v", ok.Tool)
	}
	if failed.Tool.CallID != "call_8Rz" || failed.Tool.Outcome != annals.OutcomeFailed || es[4].Text != "Which one is largest?" || es[6].Text != "main.go is the largest, at 12 KB." {
		t.Errorf("second turn: %q, %+v, %q", es[4].Text, failed.Tool, es[6].Text)
	}
	if want := time.Unix(1789120803, 0).UTC(); !ok.Time.Equal(want) {
		t.Errorf("call at %s, want %s", ok.Time, want)
	}
	if len(runs) != 2 || runs[0].InputTokens != 165026 || runs[0].Model != "grok-4.5-build" || runs[1].OutputTokens != 410 {
		t.Errorf("runs %+v", runs)
	}
}
