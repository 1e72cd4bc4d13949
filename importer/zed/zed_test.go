package zed_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// The database is built by importertest.ZedDB as Zed's ThreadsDatabase writes one (its schema,
// zstd-compressed DbThread 0.3.0 JSON, a sub-agent's parent_id, an older plain-JSON row); see
// importertest/zed.go for the sources in Zed's repository.
func zedDB(t *testing.T) string {
	p := filepath.Join(t.TempDir(), ".local", "share", "zed", "threads", "threads.db")
	importertest.WriteFile(t, p, nil)
	importertest.ZedDB(t, p)
	return p
}

func TestZedThreadPairsResultsAndKeepsUsage(t *testing.T) {
	c, es, runs := importertest.StoredChat(t, openDB(t), "zed:d1f0b6a2-7c3e-4f5a-9b8c-1d2e3f4a5b6c", []string{"zed"}, zedDB(t))
	if c.Title != "Fix the flaky parser test" || c.AgentID != "zed" || c.Attributes["cwd"] != "/home/u/src/demo" || c.Attributes["model"] != "claude-sonnet-4" ||
		c.Attributes["resume_command"] != "" {
		t.Errorf("chat %q agent %q attributes %v", c.Title, c.AgentID, c.Attributes)
	}
	kinds := importertest.Kinds(es)
	// 2 prompts, the file mention and the Resume as events, 3 replies with text (the reply
	// holding only a call makes none of its own), 2 calls.
	if len(es) != 9 || kinds[annals.KindUser] != 2 || kinds[annals.KindEvent] != 2 || kinds[annals.KindAssistant] != 3 || kinds[annals.KindTool] != 2 {
		t.Fatalf("%d entries %v", len(es), kinds)
	}
	prompt, mention, reply, read, term := es[0], es[1], es[2], es[3], es[4]
	if prompt.ID != "5f2c0a4e-1b7d-4c1e-9a0f-3d2b1c0e9f11" || prompt.Text != "Why does parser_test fail on CI? See " || mention.Text != "file /home/u/src/demo/src/parser.rs" {
		t.Errorf("prompt %s %q, mention %q", prompt.ID, prompt.Text, mention.Text)
	}
	if reply.Reasoning != "Read the parser first." || reply.Text != "Let me read the parser." {
		t.Errorf("reply %q reasoning %q", reply.Text, reply.Reasoning)
	}
	if read.Tool.Name != "read_file" || read.Tool.CallID != "toolu_01" || read.Tool.Outcome != annals.OutcomeSucceeded || read.Tool.Result != "fn parse() { todo!() }" {
		t.Errorf("read %+v", read.Tool)
	}
	if term.Tool.Name != "terminal" || term.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(term.Tool.Result, "FAILED") || !strings.Contains(string(term.Tool.Arguments), "cargo test parser") {
		t.Errorf("terminal %+v", term.Tool)
	}
	if es[6].Channel != "zed/resume" || es[8].Text != "Done: parse() now returns the tokens." || strings.Contains(string(es[8].Metadata), "ZW5jcnlwdGVk") {
		t.Errorf("resume %q, last %q %s", es[6].Channel, es[8].Text, es[8].Metadata)
	}
	created, updated := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC), time.Date(2026, 5, 4, 10, 12, 30, 0, time.UTC)
	if !c.CreatedAt.Equal(created) || !es[0].Time.Equal(created) || !es[8].Time.Equal(updated) {
		t.Errorf("created %s, first %s, last %s", c.CreatedAt, es[0].Time, es[8].Time)
	}
	if len(runs) != 2 || runs[0].InputTokens != 2600 || runs[0].OutputTokens != 300 || runs[1].InputTokens != 1200 || runs[0].Model != "claude-sonnet-4" {
		t.Fatalf("runs %+v", runs)
	}
	// The first request read 500 prompt tokens from the cache and wrote 100 to it.
	if runs[0].CacheReadTokens != 500 || runs[0].CacheCreationTokens != 100 || runs[1].CacheReadTokens != 0 {
		t.Errorf("cache read/written %d/%d and %d, want 500/100 and 0", runs[0].CacheReadTokens, runs[0].CacheCreationTokens, runs[1].CacheReadTokens)
	}
	if read.RunID != runs[0].ID || es[8].RunID != runs[1].ID {
		t.Errorf("read in run %q, last reply in run %q", read.RunID, es[8].RunID)
	}
}

func TestZedSubAgentAndPlainThreads(t *testing.T) {
	db := openDB(t)
	path := zedDB(t)
	c, es, _ := importertest.StoredChat(t, db, "zed:e2a1c7b3-8d4f-4a6b-8c9d-2e3f4a5b6c7d", []string{"zed"}, path)
	if c.Attributes["parent"] != "zed:d1f0b6a2-7c3e-4f5a-9b8c-1d2e3f4a5b6c" || c.AgentID != "zed" || len(es) != 2 || es[1].Tool == nil || es[1].Tool.Outcome != "" || es[1].Tool.Result != "" {
		t.Errorf("sub-agent %v agent %q, %d entries", c.Attributes, c.AgentID, len(es))
	}
	plain, pes := importertest.EntriesOf(t, db, "zed:f3b2d8c4-9e5a-4b7c-9d0e-3f4a5b6c7d8e"), 0
	for _, e := range plain {
		if e.Text == "hello" || e.Text == "Hi! How can I help?" {
			pes++
		}
	}
	if len(plain) != 2 || pes != 2 {
		t.Errorf("plain-JSON thread: %d entries", len(plain))
	}
}

// TestOnlyZedClaimsItsDatabase offers the database to every reader: only Zed's may claim it
// (other tools' databases have a threads table too).
func TestOnlyZedClaimsItsDatabase(t *testing.T) {
	path := zedDB(t)
	head := importertest.Head(t, path)
	var claims []string
	for _, f := range importer.Formats() {
		if f.Detect(path, head) {
			claims = append(claims, f.Name())
		}
	}
	if strings.Join(claims, ",") != "zed" {
		t.Errorf("claimed by %v, want zed alone", claims)
	}
}
