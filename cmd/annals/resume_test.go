package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumePrintsTheSourceToolsCommand imports a Claude Code session (importer testdata) and
// asks how to continue it: the tool's own command, in the session's folder.
func TestResumePrintsTheSourceToolsCommand(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun("", "import", "claude-code", filepath.Join("..", "..", "importer", "testdata", "claude-code", "titles", "sess-title.jsonl"))
	out := tm.mustRun("", "resume", "claude-code:sess-title")
	if want := "cd /home/dev/zoo && claude --resume sess-title"; strings.TrimSpace(out) != want {
		t.Errorf("resume printed %q, want %q", out, want)
	}
	var h struct {
		Command string `json:"command"`
		Cwd     string `json:"cwd"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "resume", "--json", "sess-title")), &h); err != nil {
		t.Fatal(err)
	}
	if h.Command != "claude --resume sess-title" || h.Cwd != "/home/dev/zoo" {
		t.Errorf("resume --json = %+v", h)
	}
}

func TestResumeOfAChatNoToolContinues(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest", "-")
	out := tm.mustRun("", "resume", "c2")
	if !strings.Contains(out, "c2: no tool command continues this chat") {
		t.Errorf("resume printed %q", out)
	}
}

// TestShowPrintsTheSubagentLink: the parent's Task/Agent call names the sub-agent's chat in the
// transcript `annals show` prints, and the sub-agent's chat names its parent.
func TestShowPrintsTheSubagentLink(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun("", "import", "claude-code", filepath.Join("..", "..", "importer", "testdata", "claude-code", "agents"))
	out := tm.mustRun("", "show", "claude-code:sess-par")
	if !strings.Contains(out, "sub-agent chat: claude-code:sess-par/agent-a7748a49cbfabf1b6") {
		t.Errorf("show of the parent does not name the sub-agent chat:\n%s", out)
	}
	out = tm.mustRun("", "show", "claude-code:sess-par/agent-a7748a49cbfabf1b6")
	if !strings.Contains(out, "Count penguins") || !strings.Contains(out, "parent: claude-code:sess-par") {
		t.Errorf("show of the sub-agent lacks its title or parent:\n%s", out)
	}
}
