package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// runFail runs one command line as main does: Run, Close, then Fail on an error. It returns
// what went to standard error and the exit code (0 on success).
func (tm *testMain) runFail(args ...string) (string, int) {
	tm.tb.Helper()
	var out, errOut bytes.Buffer
	m := NewMain()
	m.Stdin = strings.NewReader("")
	m.Stdout, m.Stderr = &out, &errOut
	m.Getenv = func(k string) string { return tm.env[k] }
	m.HomeDir = func() (string, error) { return tm.home, nil }
	m.IsTerminal = func(io.Writer) bool { return false }
	err := m.Run(context.Background(), args)
	m.Close()
	if err == nil {
		return errOut.String(), 0
	}
	code := m.Fail(err)
	return errOut.String(), code
}

// TestUsageMistakesExitTwo proves the mistakes docs/CLI.md calls usage mistakes exit 2, locally
// and through --server: bad filters, times, fields, limits and queries the service refuses.
func TestUsageMistakesExitTwo(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	mistakes := [][]string{
		{"list", "--status", "bogus"},
		{"list", "--limit", "-1"},
		{"list", "--scope", "bogus"},
		{"search", "--from", "yesterday", "x"},
		{"search", "--in", "bogus", "x"},
		{"search", "--limit", "-1", "x"},
		{"search", "--sort", "bogus", "x"},
		{"search", "-"},
		{"search", "before:bogus", "x"},
		{"search", "--entries", "--in", "title", "x"},
	}
	for _, args := range mistakes {
		if stderr, code := tm.runFail(args...); code != exitUsage || !strings.HasPrefix(stderr, "annals: ") {
			t.Errorf("annals %s: exit %d, stderr %q; want exit 2 and one line", strings.Join(args, " "), code, stderr)
		}
	}
	s := startServe(t, tm)
	for _, args := range mistakes {
		if _, code := tm.runFail(append([]string{"--server", s.url}, args...)...); code != exitUsage {
			t.Errorf("annals --server %s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}

// TestCompletionNeedsAKnownShell proves completion without a shell, or with one it does not
// know, is a usage mistake naming the shells.
func TestCompletionNeedsAKnownShell(t *testing.T) {
	tm := newTestMain(t)
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}} {
		stderr, code := tm.runFail(args...)
		if code != exitUsage || !strings.Contains(stderr, "bash, zsh, fish or powershell") {
			t.Errorf("annals %s: exit %d, stderr %q; want exit 2 naming the shells", strings.Join(args, " "), code, stderr)
		}
	}
	if _, code := tm.runFail("completion", "zsh"); code != 0 {
		t.Errorf("completion zsh: exit %d", code)
	}
}

// TestJSONErrorsAreJSON proves a command line with --json gets its error as JSON on standard
// error: the code, the message and the exit code.
func TestJSONErrorsAreJSON(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	for _, c := range []struct {
		args     []string
		code     string
		exitCode int
		message  string
	}{
		{[]string{"list", "--json", "--status", "bogus"}, "usage", 2, `unknown status "bogus"`},
		{[]string{"show", "--json", "nope"}, "not_found", 3, `chat "nope" not found`},
		{[]string{"search", "x", "--json", "--bogus"}, "usage", 2, "unknown flag: --bogus"},
	} {
		stderr, code := tm.runFail(c.args...)
		var got struct {
			Error struct {
				Code     string `json:"code"`
				Message  string `json:"message"`
				ExitCode int    `json:"exit_code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(stderr), &got); err != nil {
			t.Errorf("annals %s: stderr is not JSON: %q", strings.Join(c.args, " "), stderr)
			continue
		}
		if got.Error.Code != c.code || got.Error.ExitCode != c.exitCode || code != c.exitCode || !strings.Contains(got.Error.Message, c.message) {
			t.Errorf("annals %s: exit %d, error %+v; want code %s, exit %d, a message with %q", strings.Join(c.args, " "), code, got.Error, c.code, c.exitCode, c.message)
		}
	}
	// After "--" a --json is an argument, not the flag.
	if stderr, _ := tm.runFail("rename", "nope", "--", "--json"); !strings.HasPrefix(stderr, "annals: ") {
		t.Errorf("rename nope -- --json: stderr %q, want a line for people", stderr)
	}
}
