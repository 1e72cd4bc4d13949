package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chatJSON reads one chat as the CLI stores it.
func chatJSON(t *testing.T, tm *testMain, id string) map[string]any {
	t.Helper()
	var shown struct {
		Chat map[string]any `json:"chat"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "show", "--json", id)), &shown); err != nil {
		t.Fatal(err)
	}
	return shown.Chat
}

// TestFlagsWorkInEveryPosition runs the command lines a new user types, with flags after the
// arguments, and checks what was stored: no flag becomes a tag or part of a title.
func TestFlagsWorkInEveryPosition(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest", "-")

	tm.mustRun("", "tag", "c1", "alpha", "beta", "--description", "set after the tags")
	c := chatJSON(t, tm, "c1")
	if tags, _ := json.Marshal(c["tags"]); string(tags) != `["alpha","beta"]` || c["description"] != "set after the tags" {
		t.Errorf("tag with a trailing flag stored tags %s, description %q", tags, c["description"])
	}
	out := tm.mustRun("", "rename", "c1", "New", "title", "--json")
	if c := chatJSON(t, tm, "c1"); c["title"] != "New title" || !json.Valid([]byte(out)) {
		t.Errorf("rename with a trailing --json stored title %q and printed %q", c["title"], out)
	}
	tm.mustRun("", "--db", tm.env["ANNALS_DB"], "pin", "c1")
	if out := tm.mustRun("", "search", "deploy", "--json"); !strings.Contains(out, `"query":"deploy"`) {
		t.Errorf("search with a trailing --json searched for something else: %.200s", out)
	}
	if out := tm.mustRun("", "show", "c1", "--json"); !json.Valid([]byte(out)) {
		t.Errorf("show ID --json did not print JSON: %.200s", out)
	}
	// "--" ends the flags: what follows is text, even when it looks like a flag.
	tm.mustRun("", "rename", "c2", "--", "--not-a-flag", "-x")
	if c := chatJSON(t, tm, "c2"); c["title"] != "--not-a-flag -x" {
		t.Errorf("rename after -- stored %q", c["title"])
	}
	tm.mustRun("", "tag", "--description=before", "c2", "--", "--json")
	if c := chatJSON(t, tm, "c2"); c["description"] != "before" || c["tags"].([]any)[0] != "--json" {
		t.Errorf("tag with -- stored %v", c)
	}
}

func TestABadFlagIsOneLineAndAUsageError(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest", "-")
	out, errOut, err := tm.run("", "tag", "c1", "x", "--bogus")
	var ue *usageError
	if !errors.As(err, &ue) || exitCode(err) != exitUsage {
		t.Fatalf("err %v (exit %d), want a usage error (exit 2)", err, exitCode(err))
	}
	if msg := err.Error(); strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "--bogus") || !strings.Contains(msg, "annals tag --help") {
		t.Errorf("message %q: want one line naming the flag and pointing at --help", msg)
	}
	if out != "" || errOut != "" {
		t.Errorf("a bad flag printed usage: stdout %q, stderr %q", out, errOut)
	}
	if c := chatJSON(t, tm, "c1"); c["tags"].([]any)[0] != "ops" {
		t.Errorf("a refused command changed the tags: %v", c["tags"])
	}
}

func TestVersionFlagAndCompletionScripts(t *testing.T) {
	tm := newTestMain(t)
	if out := tm.mustRun("", "--version"); !strings.HasPrefix(out, "annals ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version printed %q", out)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		if out := tm.mustRun("", "completion", shell); !strings.Contains(out, "annals") || len(out) < 500 {
			t.Errorf("completion %s printed %d bytes", shell, len(out))
		}
	}
}

func TestCompletionOffersChatIDsTagsAndFlags(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest", "-")
	tm.mustRun("", "tag", "c2", "release", "ops")
	if out := tm.mustRun("", "__complete", "show", "c"); !strings.Contains(out, "c1\tDeploy the emag.ro shop") || !strings.Contains(out, "c2\t") {
		t.Errorf("chat id completion: %q", out)
	}
	if out := tm.mustRun("", "__complete", "tag", "c1", "re"); !strings.Contains(out, "release") || strings.Contains(out, "ops") {
		t.Errorf("tag completion: %q", out)
	}
	if out := tm.mustRun("", "__complete", "list", "--ta"); !strings.Contains(out, "--tag") {
		t.Errorf("flag completion: %q", out)
	}
}

// TestChatIDsResolveByPrefixAndSourceID proves a by-id command takes a unique prefix or the
// source tool's own session id, lists the chats an ambiguous prefix matches, and exits 3 for
// an id that matches none.
func TestChatIDsResolveByPrefixAndSourceID(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(`{"type":"chat","id":"claude-code:7f3c2a10-1111-2222","title":"from claude"}
{"type":"chat","id":"claude-code:7f3c2a10-1111-2222/sidechain-ab","title":"its sub-agent"}
{"type":"chat","id":"claude-code:7f3d9999-0000","title":"another"}
{"type":"chat","id":"codex:abc","title":"from codex"}
`, "ingest", "-")
	if out := tm.mustRun("", "show", "7f3c2a10-1111-2222"); !strings.Contains(out, "from claude") {
		t.Errorf("show by the source's own id: %q", out)
	}
	if out := tm.mustRun("", "show", "7f3c"); !strings.Contains(out, "from claude") {
		t.Errorf("show by a prefix of the source id that its sub-agent shares: %q", out)
	}
	if out := tm.mustRun("", "show", "7f3c2a10-1111-2222/sidechain"); !strings.Contains(out, "its sub-agent") {
		t.Errorf("show by a prefix of the sub-agent's id: %q", out)
	}
	tm.mustRun("", "rename", "codex:a", "renamed", "by", "prefix")
	if c := chatJSON(t, tm, "codex:abc"); c["title"] != "renamed by prefix" {
		t.Errorf("rename by a prefix of the full id stored %q on codex:abc", c["title"])
	}
	_, _, err := tm.run("", "pin", "7f3")
	if err == nil || exitCode(err) != exitUsage || !strings.Contains(err.Error(), "claude-code:7f3c2a10-1111-2222") || !strings.Contains(err.Error(), "claude-code:7f3d9999-0000") {
		t.Errorf("an ambiguous prefix: %v (exit %d), want the matches listed", err, exitCode(err))
	}
	_, _, err = tm.run("", "show", "nothing-like-it")
	if exitCode(err) != exitNotFound {
		t.Errorf("an id that matches nothing: %v, exit %d, want %d", err, exitCode(err), exitNotFound)
	}
}

// TestShowPutsTheTranscriptFirst proves show reads like a conversation: the messages come
// before the runs, and a chat with no known cost does not claim "$0.0000".
func TestShowPutsTheTranscriptFirst(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest", "-")
	out := tm.mustRun("", "show", "c1")
	msg, runs := strings.Index(out, "deploy it please"), strings.Index(out, "Runs:")
	if msg < 0 || runs < 0 || msg > runs || !strings.Contains(out[runs:], "run r1: completed") {
		t.Errorf("show c1: the transcript should come before the runs:\n%s", out)
	}
	if !strings.Contains(out, "cost $0.5000") {
		t.Errorf("show c1 lost its known cost:\n%s", out)
	}
	if out := tm.mustRun("", "show", "c2"); strings.Contains(out, "$0.0000") || strings.Contains(out, "Runs:") {
		t.Errorf("show c2 (no runs, no cost):\n%s", out)
	}
}

// TestShowGivesEachRunsCacheAndContext: show prints the part of a run's input read from and
// written to the prompt cache and its context's size, as the web UI's run boundary does, and
// --json carries them on the run.
func TestShowGivesEachRunsCacheAndContext(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(`{"type":"chat","id":"cc","title":"cached"}
{"type":"entry","chat_id":"cc","id":"m1","kind":"user","text":"hello"}
{"type":"run","chat_id":"cc","id":"r1","status":"completed","model":"m-1","input_tokens":1000,"cache_read_tokens":600,"cache_creation_tokens":300,"context_tokens":1200,"output_tokens":20}
{"type":"run","chat_id":"cc","id":"r2","status":"completed","model":"m-1","input_tokens":10,"output_tokens":2}
`, "ingest", "-")
	out := tm.mustRun("", "show", "cc")
	if !strings.Contains(out, "run r1: completed · m-1 · 1000 in (600 cache read, 300 cache write) / 20 out · context 1200") {
		t.Errorf("show cc: want r1's cache and context on its line:\n%s", out)
	}
	if !strings.Contains(out, "run r2: completed · m-1 · 10 in / 2 out\n") {
		t.Errorf("show cc: a run whose source gave no cache or context says none:\n%s", out)
	}
	var shown struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "show", "--json", "cc")), &shown); err != nil {
		t.Fatal(err)
	}
	if len(shown.Runs) != 2 || shown.Runs[0]["cache_read_tokens"] != 600.0 || shown.Runs[0]["cache_creation_tokens"] != 300.0 ||
		shown.Runs[0]["context_tokens"] != 1200.0 {
		t.Errorf("show --json cc: runs %v, want r1's cache and context", shown.Runs)
	}
}

// TestShowPagesOnATerminal runs show as on a terminal with a pager that marks what it was
// given: the transcript goes through it, escaped; --no-pager prints straight.
func TestShowPagesOnATerminal(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(hostileChat, "ingest", "-")
	pager := filepath.Join(t.TempDir(), "pager.sh")
	if err := os.WriteFile(pager, []byte("#!/bin/sh\necho PAGED\ncat\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		var out, errOut bytes.Buffer
		m := NewMain()
		m.Stdin = strings.NewReader("")
		m.Stdout, m.Stderr = &out, &errOut
		m.Getenv = func(k string) string {
			if k == "ANNALS_PAGER" {
				return pager
			}
			return tm.env[k]
		}
		m.HomeDir = func() (string, error) { return tm.home, nil }
		m.IsTerminal = func(io.Writer) bool { return true }
		if err := m.Run(context.Background(), args); err != nil {
			t.Fatalf("%v: %v (%s)", args, err, errOut.String())
		}
		m.Close()
		return out.String()
	}
	if out := run("show", "evil"); !strings.HasPrefix(out, "PAGED\n") || !strings.Contains(out, "needle") || strings.Contains(out, "\x1b") {
		t.Errorf("show through the pager: %q", out)
	}
	if out := run("show", "--no-pager", "evil"); strings.Contains(out, "PAGED") || !strings.Contains(out, "needle") {
		t.Errorf("show --no-pager: %q", out)
	}
}
