package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestDeleteAsksOnATerminal proves delete, where a person answers, shows the chat the id
// resolved to (its full id and title) and deletes only on "y"; --yes deletes without asking;
// where nobody can answer, delete without --yes is refused as before.
func TestDeleteAsksOnATerminal(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(`{"type":"chat","id":"claude-code:7f3c2a10-5b1e-4c3a","title":"Keep me \u001b[31mplease"}
{"type":"chat","id":"codex:0197aaaa-bbbb","title":"Throwaway"}
`, "ingest")
	ask := func(answer string, args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		m := NewMain()
		m.Stdin, m.Stdout, m.Stderr = strings.NewReader(answer), &out, &errOut
		m.Getenv = func(k string) string { return tm.env[k] }
		m.HomeDir = func() (string, error) { return tm.home, nil }
		m.IsTerminal = func(io.Writer) bool { return true }
		m.Interactive = func() bool { return true }
		err := m.Run(context.Background(), args)
		m.Close()
		return out.String(), errOut.String(), err
	}
	out, errOut, err := ask("n\n", "delete", "7f3c")
	if err == nil || exitCode(err) != exitError || out != "" {
		t.Errorf("answering n: %v (exit %d), stdout %q", err, exitCode(err), out)
	}
	if !strings.Contains(errOut, "claude-code:7f3c2a10-5b1e-4c3a") || !strings.Contains(errOut, `Keep me \x1b[31mplease`) || !strings.Contains(errOut, "[y/N]") {
		t.Errorf("the question does not show the resolved chat safely: %q", errOut)
	}
	if c := chatJSON(t, tm, "claude-code:7f3c2a10-5b1e-4c3a"); c["id"] == nil {
		t.Fatal("answering n deleted the chat")
	}
	if out, _, err := ask("y\n", "delete", "codex:0197"); err != nil || out != "deleted codex:0197aaaa-bbbb\n" {
		t.Errorf("answering y: %v, %q", err, out)
	}
	if out, errOut, err := ask("", "delete", "--yes", "claude-code:7f3c"); err != nil || strings.Contains(errOut, "[y/N]") || !strings.HasPrefix(out, "deleted claude-code:7f3c2a10-5b1e-4c3a") {
		t.Errorf("--yes on a terminal: %v, stdout %q, stderr %q", err, out, errOut)
	}
	tm.mustRun(`{"type":"chat","id":"c9","title":"x"}`+"\n", "ingest")
	if _, _, err := tm.run("y\n", "delete", "c9"); exitCode(err) != exitUsage || !strings.Contains(err.Error(), "--yes") {
		t.Errorf("delete without a terminal or --yes: %v", err)
	}
}
