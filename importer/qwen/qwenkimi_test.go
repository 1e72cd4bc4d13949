package qwen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

func TestQwenCodeSessionIsStoredWithItsToolsAndSubagent(t *testing.T) {
	main := "qwen-code:" + importertest.QwenSession
	c, es, rs := importertest.StoredChat(t, openDB(t), main, []string{"qwen-code"}, importertest.QwenFixture())
	if c.Title != "Walrus clock off by one" || c.Attributes["cwd"] != "/home/dev/zoo" || c.Attributes["model"] != "qwen3-coder-plus" || c.Attributes["git_branch"] != "main" {
		t.Errorf("chat = %q %v", c.Title, c.Attributes)
	}
	got := importertest.Kinds(es)
	want := map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 3, annals.KindTool: 3, annals.KindSystem: 1, annals.KindEvent: 1}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%d %s entries, want %d (all: %v)", got[k], k, n, got)
		}
	}
	tools := map[string]*annals.ToolCall{}
	for _, e := range es {
		if e.Tool != nil {
			tools[e.Tool.CallID] = e.Tool
		}
		if e.Kind == annals.KindAssistant && strings.Contains(e.Text, "Let me run the test.") && e.Reasoning != "The walrus clock may be off." {
			t.Errorf("reasoning %q, want the thought part", e.Reasoning)
		}
		if e.Kind == annals.KindSystem && !strings.Contains(e.Text, "Hour returns 11") {
			t.Errorf("compaction %q, want the compressed summary", e.Text)
		}
	}
	if tc := tools["call_1"]; tc == nil || tc.Outcome != annals.OutcomeFailed || !strings.Contains(tc.Result, "FAIL: TestWalrus") || !strings.Contains(string(tc.Arguments), "go test ./walrus") {
		t.Errorf("call_1 = %+v, want the failed shell call with its output", tc)
	}
	for _, id := range []string{"call_2", "call_3"} {
		if tc := tools[id]; tc == nil || tc.Outcome != annals.OutcomeSucceeded || tc.Result == "" {
			t.Errorf("%s = %+v, want its result", id, tc)
		}
	}
	if len(rs) != 4 || rs[0].InputTokens != 1200 || rs[0].OutputTokens != 52 {
		t.Errorf("runs %+v, want 4, the first 1200 in and 40+12 out", rs)
	}
	sub, ses, _ := importertest.StoredChat(t, openDB(t), main+"/agent-explore-7f3c", []string{"qwen-code"}, importertest.QwenFixture())
	if sub.Attributes["parent"] != main || sub.Title != "Explore" || len(ses) != 2 {
		t.Errorf("sub-agent %v %q with %d entries, want parent %s, title Explore, 2 entries", sub.Attributes, sub.Title, len(ses), main)
	}
}

// A Qwen Code record cut between a tool call and its result waits for the result: imported
// again once the file grows, the call gets its result and nothing is duplicated.
func TestQwenCodeResultArrivingLaterLandsOnItsCall(t *testing.T) {
	full, err := os.ReadFile(importertest.QwenFixture())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	path := filepath.Join(t.TempDir(), ".qwen", "projects", "p", "chats", importertest.QwenSession+".jsonl")
	importertest.WriteFile(t, path, []byte(strings.Join(lines[:2], "")))
	db := openDB(t)
	im := importertest.NewImporter(db, importertest.ImporterOptionsFor(t, "qwen-code"))
	importertest.ImportAll(t, im, path)
	importertest.WriteFile(t, path, full)
	importertest.ImportAll(t, im, path)
	es := importertest.EntriesOf(t, db, "qwen-code:"+importertest.QwenSession)
	calls := 0
	for _, e := range es {
		if e.Tool != nil && e.Tool.CallID == "call_1" {
			calls++
			if e.Tool.Outcome != annals.OutcomeFailed {
				t.Errorf("call_1 outcome %q, want the result read in the second import", e.Tool.Outcome)
			}
		}
	}
	if calls != 1 || len(es) != 10 {
		t.Errorf("%d call_1 entries, %d entries; want 1 and 10", calls, len(es))
	}
}

// The Kimi CLI fixture is written from Kimi CLI's context file (MoonshotAI/kimi-cli,
// src/kimi_cli/soul/context.py and session.py; messages are kosong's Message,
// MoonshotAI/kosong src/kosong/message.py): one JSON message per line, {role, content,
// tool_calls, tool_call_id}, content a string or text/think parts, plus the _system_prompt,
// _checkpoint and _usage lines; ~/.kimi/sessions/<work dir hash>/<session>/context.jsonl with
// wire.jsonl and state.json (custom_title) beside it.
func TestKimiCLISessionIsStoredWithItsTools(t *testing.T) {
	const id = "kimi-cli:2d5e8f0a-1b3c-4d5e-8f9a-0b1c2d3e4f50"
	dir := importertest.Testdata("kimi-cli", "sessions", "4b9d3c1e8f7a6b5c4d3e2f1a0b9c8d7e", "2d5e8f0a-1b3c-4d5e-8f9a-0b1c2d3e4f50")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"kimi-cli"}, filepath.Join(dir, "context.jsonl"))
	if c.Title != "Otter files" || c.Attributes["cwd"] != "/home/u/otter" {
		t.Errorf("title %q, cwd %q: want the custom title from state.json and the work directory from kimi.json", c.Title, c.Attributes["cwd"])
	}
	want := map[annals.EntryKind]int{annals.KindSystem: 2, annals.KindUser: 2, annals.KindAssistant: 3, annals.KindTool: 2}
	got := importertest.Kinds(es)
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%d %s entries, want %d (all: %v)", got[k], k, n, got)
		}
	}
	for _, e := range es {
		switch {
		case e.Tool != nil && e.Tool.Name == "Shell":
			if e.Tool.Outcome != annals.OutcomeSucceeded || !strings.Contains(e.Tool.Result, "otter.go\nREADME.md") || !strings.Contains(string(e.Tool.Arguments), `"ls"`) {
				t.Errorf("Shell = %+v", e.Tool)
			}
		case e.Tool != nil && e.Tool.Name == "ReadFile":
			if e.Tool.Outcome != annals.OutcomeFailed {
				t.Errorf("ReadFile = %+v, want failed", e.Tool)
			}
		case e.Kind == annals.KindAssistant && e.Text == "Let me look." && e.Reasoning != "I should run ls in the work directory.":
			t.Errorf("reasoning %q", e.Reasoning)
		}
	}
}

// When the user reverts to a checkpoint, Kimi rewrites context.jsonl (cut at the checkpoint,
// then the new turn) and keeps the old file as context_1.jsonl. Imported again, the chat keeps
// every entry it had and gains the new turn's, and the rotated file is a chat of its own that
// points to the session: nothing of either history is lost.
func TestKimiCLIRevertKeepsBothHistories(t *testing.T) {
	src := importertest.Testdata("kimi-cli", "sessions", "4b9d3c1e8f7a6b5c4d3e2f1a0b9c8d7e", "2d5e8f0a-1b3c-4d5e-8f9a-0b1c2d3e4f50", "context.jsonl")
	full, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), ".kimi", "sessions", "h", "s1")
	path := filepath.Join(dir, "context.jsonl")
	importertest.WriteFile(t, path, full)
	db := openDB(t)
	im := importertest.NewImporter(db, importertest.ImporterOptionsFor(t, "kimi-cli"))
	importertest.ImportAll(t, im, dir)
	before := importertest.EntriesOf(t, db, "kimi-cli:s1")
	lines := strings.SplitAfter(string(full), "\n")
	cut := strings.Join(lines[:8], "") // up to the _checkpoint 1 line
	importertest.WriteFile(t, filepath.Join(dir, "context_1.jsonl"), full)
	importertest.WriteFile(t, path, []byte(cut+`{"role":"user","content":"List the tests instead"}`+"\n"+`{"role":"assistant","content":"There is otter_test.go."}`+"\n"))
	importertest.ImportAll(t, im, dir)
	after := importertest.EntriesOf(t, db, "kimi-cli:s1")
	if len(after) != len(before)+2 {
		t.Errorf("%d entries after the revert, want the %d kept and the 2 new", len(after), len(before))
	}
	for i, e := range before {
		if after[i].ID != e.ID || after[i].Text != e.Text {
			t.Errorf("entry %d changed: %s %q, was %s %q", i+1, after[i].ID, after[i].Text, e.ID, e.Text)
		}
	}
	rot, err := db.FindChatByID(t.Context(), "kimi-cli:s1/context_1")
	if err != nil || rot.Attributes["parent"] != "kimi-cli:s1" || len(importertest.EntriesOf(t, db, rot.ID)) != len(before) {
		t.Errorf("rotated context chat %+v (%v)", rot, err)
	}
}
