package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// Without a terminal, 'annals' alone prints the usage (now naming browse) and fails as a usage
// mistake, as before the browser; 'annals browse' says it needs a terminal.
func TestBrowseNeedsATerminal(t *testing.T) {
	tm := newTestMain(t)
	errOut, code := tm.runFail()
	if code != exitUsage || !strings.Contains(errOut, "Usage: annals <command>") || !strings.Contains(errOut, "  browse ") || !strings.Contains(errOut, "no command given") {
		t.Errorf("annals alone: exit %d, stderr %q", code, errOut)
	}
	errOut, code = tm.runFail("browse")
	if code != exitUsage || !strings.Contains(errOut, "browse needs a terminal") {
		t.Errorf("annals browse without a terminal: exit %d, stderr %q", code, errOut)
	}
}

// The smoke test of .ci/run in a real terminal: tmux runs annals browse, types a query, opens the
// chat, pins it and quits; the pin is stored (.ci/tui-smoke.sh).
func TestBrowseInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	bin := filepath.Join(t.TempDir(), "annals")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command("bash", ".ci/tui-smoke.sh", bin)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "TMUX=") // a tmux of its own, even when run inside one
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the tmux smoke test failed: %v\n%s", err, out)
	}
}

// w opens /chats/ID of the web UI of the server browse talks to, once it answers; without one
// the browser says so.
func TestBrowseFindsTheWebUIOfARunningServer(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest", "-")
	s := startServe(t, tm)
	tm.env["ANNALS_SERVER"] = s.url
	m := NewMain()
	m.Getenv = func(k string) string { return tm.env[k] }
	find := m.webURL()
	got, err := find(context.Background(), "claude-code:s1/agent-a")
	if err != nil || got != s.url+"/chats/claude-code:s1%2Fagent-a" {
		t.Errorf("webURL = %q, %v", got, err)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := find(context.Background(), "c1"); err == nil || !strings.Contains(err.Error(), "no annals server answers at "+s.url) {
		t.Errorf("webURL with the server stopped: %v", err)
	}
}

// The resume command the user confirmed in the browser runs after it, in a shell in the chat's
// folder, and its line is shown made safe first.
func TestBrowseRunsTheConfirmedResumeCommand(t *testing.T) {
	dir := t.TempDir()
	var out, errOut strings.Builder
	m := NewMain()
	m.Stdin, m.Stdout, m.Stderr = strings.NewReader(""), &out, &errOut
	h := &annals.ResumeHandle{Command: "pwd; echo resumed \x1b[2J", Cwd: dir}
	if err := m.runResume(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `running: cd `+dir+` && pwd; echo resumed \x1b[2J`) || !strings.Contains(out.String(), dir+"\nresumed") {
		t.Errorf("runResume printed %q", out.String())
	}
	h.Command = "exit 3"
	if err := m.runResume(context.Background(), h); err == nil || !strings.Contains(err.Error(), "the resume command failed") {
		t.Errorf("a failing resume command: %v", err)
	}
}
