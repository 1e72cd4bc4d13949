package hermes_test

import (
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The session is an excerpt of a real Hermes Agent archival log committed to a fork of
// NousResearch/hermes-agent (.orbiracle-sidecar/sessions/session_cron_1f5dc1b5d0f2_20260421_083011.json,
// commit 178f93b48ca4bf5912b961b51794a54e34362829): its header and all four messages, with the
// system prompt, the tool list, the encrypted reasoning and the tool's output cut short.
func TestHermesSessionKeepsItsFailedCall(t *testing.T) {
	const id = "hermes:cron_1f5dc1b5d0f2_20260421_083011"
	path := importertest.Testdata("hermes", ".hermes", "sessions", "session_cron_1f5dc1b5d0f2_20260421_083011.json")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"hermes"}, path)
	if c.AgentID != "hermes" || c.Attributes["model"] != "gpt-5.4" || c.Attributes["hermes_platform"] != "cron" ||
		c.Attributes["resume_command"] != "hermes --resume cron_1f5dc1b5d0f2_20260421_083011" {
		t.Errorf("chat agent %q attributes %v", c.AgentID, c.Attributes)
	}
	if want := time.Date(2026, 4, 21, 8, 30, 11, 258159000, time.UTC); !c.CreatedAt.Equal(want) {
		t.Errorf("created %s, want the session_start", c.CreatedAt)
	}
	kinds := importertest.Kinds(es)
	if len(es) != 5 || kinds[annals.KindSystem] != 1 || kinds[annals.KindUser] != 1 || kinds[annals.KindAssistant] != 2 || kinds[annals.KindTool] != 1 {
		t.Fatalf("%d entries %v, want the system prompt, the prompt, two replies and one call", len(es), kinds)
	}
	call := es[3]
	if call.ID != "m1#1" || call.Tool.Name != "terminal" || call.Tool.CallID != "call_z06n6z0JeN1YZpgNn2JGhEaE" || call.Tool.Outcome != annals.OutcomeFailed ||
		!strings.Contains(call.Tool.Result, "GH013") || !strings.Contains(string(call.Tool.Arguments), "zeroclaw_git_autobackup") {
		t.Errorf("call %s %+v", call.ID, call.Tool)
	}
	if !strings.HasPrefix(es[2].Reasoning, "**Determining relevant skills**") || strings.Contains(string(es[2].Metadata), "gAAAA") || importertest.MetaOf(t, es[2])["encrypted_reasoning"] != true {
		t.Errorf("reasoning %q, metadata %s", es[2].Reasoning, es[2].Metadata)
	}
	if last := es[4]; !last.Time.Equal(time.Date(2026, 4, 21, 8, 30, 59, 46786000, time.UTC)) {
		t.Errorf("last reply at %s, want last_updated", last.Time)
	}
}

// The trajectory is the example of Hermes Agent's trajectory format documentation
// (website/docs/developer-guide/trajectory-format.md), as agent/trajectory.py appends it.
func TestHermesTrajectoryPairsCallAndResponse(t *testing.T) {
	const id = "hermes-trajectory:trajectory_samples-1"
	path := importertest.Testdata("hermes", ".hermes", "trajectories", "trajectory_samples.jsonl")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"hermes-trajectory"}, path)
	if c.AgentID != "hermes" || c.Attributes["model"] != "anthropic/claude-sonnet-4.6" {
		t.Errorf("chat agent %q attributes %v", c.AgentID, c.Attributes)
	}
	kinds := importertest.Kinds(es)
	if len(es) != 5 || kinds[annals.KindTool] != 1 || kinds[annals.KindAssistant] != 2 {
		t.Fatalf("%d entries %v", len(es), kinds)
	}
	call := es[3]
	if call.Tool.Name != "terminal" || call.Tool.CallID != "call_abc123" || call.Tool.Result != "Python 3.11.6" || call.Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("call %+v", call.Tool)
	}
	if es[4].Text != "Python 3.11.6 is installed on this system." || es[4].Reasoning != "Got the version. I can now answer the user." {
		t.Errorf("answer %q reasoning %q", es[4].Text, es[4].Reasoning)
	}
}
