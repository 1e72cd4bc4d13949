package amp_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixture follows Amp's thread files, ~/.local/share/amp/threads/T-<uuid>.json (as
// documented by the tools that read them, e.g. noamsto/houston docs/AMP_AGENT_SUPPORT.md: id,
// title, agentMode, created, env.initial.trees, messages with role, messageId, content blocks,
// state and usage; tool results as {type: tool_result, toolUseID, run: {status, result}}).
func TestAmpThreadKeepsItsToolRunsAndOutcomes(t *testing.T) {
	const id = "amp:T-019b9d03-62e3-772f-9780-3e637f90eaec"
	path := importertest.Testdata("amp", ".local", "share", "amp", "threads", "T-019b9d03-62e3-772f-9780-3e637f90eaec.json")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"amp"}, path)
	if c.Title != "Speed up the kestrel build" || c.Attributes["cwd"] != "/home/u/kestrel" || c.Attributes["model"] != "claude-sonnet-4-5-20250929" || c.Attributes["repository"] != "https://github.com/acme/kestrel" {
		t.Errorf("chat %q %v", c.Title, c.Attributes)
	}
	if got := importertest.Kinds(es); got[annals.KindUser] != 1 || got[annals.KindAssistant] != 3 || got[annals.KindTool] != 2 || len(es) != 6 {
		t.Errorf("entries by kind %v", got)
	}
	for _, e := range es {
		switch {
		case e.Tool != nil && e.Tool.Name == "Read":
			if e.Tool.Outcome != annals.OutcomeSucceeded || !strings.Contains(e.Tool.Result, "go build -a") {
				t.Errorf("Read %+v", e.Tool)
			}
		case e.Tool != nil && e.Tool.Name == "Bash":
			if e.Tool.Outcome != annals.OutcomeBlocked {
				t.Errorf("Bash %+v, want blocked (rejected by the user)", e.Tool)
			}
		}
	}
}
