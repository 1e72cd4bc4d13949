package claudecode_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/importer/reader"
)

// TestSubagentsAttachToTheirParent imports a Claude Code 2.1 project folder of the real layout
// (<session>.jsonl, <session>/subagents/agent-<id>.jsonl with agent-<id>.meta.json, and a
// workflow run's <session>/subagents/workflows/<run>/agent-<id>.jsonl, whose lines here name
// no sessionId): each sub-agent is a chat under its parent, titled by its description, and the
// parent's Task/Agent calls point at them.
func TestSubagentsAttachToTheirParent(t *testing.T) {
	db := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code")}), importertest.Testdata("claude-code", "agents"))
	ctx := context.Background()
	children := map[string]struct{ title, typ, call string }{
		"claude-code:sess-par/agent-a7748a49cbfabf1b6": {"Count penguins", "Explore", "toolu_A"},
		"claude-code:sess-par/agent-a6c4897b1da27eafe": {"Puffin census", "general-purpose", "toolu_B"},
	}
	for id, want := range children {
		c, err := db.FindChatByID(ctx, id)
		if err != nil {
			t.Errorf("sub-agent chat %s: %v", id, err)
			continue
		}
		a := c.Attributes
		if a["parent"] != "claude-code:sess-par" || a["agent_type"] != want.typ || a["parent_tool_use"] != want.call {
			t.Errorf("%s attributes %v, want parent claude-code:sess-par, agent_type %s, parent_tool_use %s", id, a, want.typ, want.call)
		}
		if c.Title != want.title || a[reader.DerivedTitleAttr] != want.title {
			t.Errorf("%s title %q (derived %q), want the meta file's description %q", id, c.Title, a[reader.DerivedTitleAttr], want.title)
		}
	}
	es, err := db.FindEntries(ctx, annals.EntryFilter{ChatID: "claude-code:sess-par"})
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]string{}
	for _, e := range es {
		if e.Tool != nil {
			linked[e.Tool.CallID] = e.Text
			if !strings.Contains(string(e.Metadata), `"subagent_chat"`) {
				t.Errorf("call %s metadata %s, want subagent_chat", e.Tool.CallID, e.Metadata)
			}
		}
	}
	for id, want := range children {
		if got := linked[want.call]; got != "sub-agent chat: "+id {
			t.Errorf("call %s text %q, want it to name %s", want.call, got, id)
		}
	}
	chats, _, err := db.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{AllTenants: true}, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chats {
		if strings.Contains(c.ID, "agent-agent-") || strings.HasPrefix(c.ID, "claude-code:agent-") {
			t.Errorf("a sub-agent chat named by its file instead of its session: %s", c.ID)
		}
	}
}

// TestInlineSideChainLinesOfOneAgentAreOneChat: a session file whose side-chain lines carry
// an agentId, where the agent starts over (a second line with no parent): one chat.
func TestInlineSideChainLinesOfOneAgentAreOneChat(t *testing.T) {
	db := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code")}), importertest.Testdata("claude-code", "agents", "-home-dev-zoo", "sess-inline.jsonl"))
	s := importertest.TakeSnapshot(t, db)
	var ids []string
	for _, c := range s.Chats {
		ids = append(ids, c.ID)
	}
	const agent = "claude-code:sess-inline/agent-ag-seal"
	if len(s.Chats) != 2 || len(s.Entries[agent]) != 4 {
		t.Fatalf("chats %v, %d entries in %s; want the session and one agent chat with all 4 lines", ids, len(s.Entries[agent]), agent)
	}
	for _, c := range s.Chats {
		if c.ID == agent && (c.Attributes["parent"] != "claude-code:sess-inline" || c.Attributes["subagent"] != "ag-seal") {
			t.Errorf("agent chat attributes %v", c.Attributes)
		}
	}
}

// TestWorkflowJournalIsNotASession: a workflow run's journal.jsonl sits beside its agents in
// ~/.claude/projects; it is not a transcript, and must not become a chat.
func TestWorkflowJournalIsNotASession(t *testing.T) {
	home := t.TempDir()
	src := importertest.Testdata("claude-code", "agents", "-home-dev-zoo")
	dst := filepath.Join(home, ".claude", "projects", "-home-dev-zoo")
	if err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		importertest.CopyFile(t, p, filepath.Join(dst, rel))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dst, "sess-par", "subagents", "workflows", "wf_57c6a296-6f2")
	importertest.WriteFile(t, filepath.Join(run, "journal.jsonl"), []byte(`{"type":"started","key":"census","agentId":"a6c4897b1da27eafe","label":"census","phase":"count"}`+"\n"+
		`{"type":"result","key":"census","agentId":"a6c4897b1da27eafe","result":"9 puffins."}`+"\n"))
	im := importertest.NewImporter(openDB(t), importer.Options{Formats: importertest.FormatsNamed(t, "claude-code")})
	cands, _ := im.Discover(home)
	var agents int
	for _, c := range cands {
		if filepath.Base(c.Path) == "journal.jsonl" {
			t.Errorf("the workflow journal %s was taken for a session", c.Path)
		}
		if strings.HasPrefix(filepath.Base(c.Path), "agent-") {
			agents++
		}
	}
	if agents != 2 {
		t.Errorf("%d sub-agent transcripts found, want 2", agents)
	}
}
