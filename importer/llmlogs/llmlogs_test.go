package llmlogs_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

func TestLLMLegacyResponsesBecomeChats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	importertest.LlmLegacyDB(t, path)
	if !importertest.SrcFormat(t, "llm").Detect(path, []byte("SQLite format 3\x00")) {
		t.Fatal("a legacy logs.db is not detected")
	}
	p := importertest.SrcParse(t, "llm", path)
	if len(p.Chats) != 2 {
		t.Fatalf("got %d chats, want 2 (a conversation, and a response without one)", len(p.Chats))
	}
	c := importertest.SrcChat(t, p, "llm:c1")
	if c.Title != "What is in config.yaml?" || c.Attributes["model"] != "gpt-4o-mini" {
		t.Errorf("chat: got %+v", c)
	}
	es := p.Entries["llm:c1"]
	var order []string
	for _, e := range es {
		order = append(order, e.ID)
	}
	if got, want := strings.Join(order, " "), "r1#system r1#prompt r1#attachment0 r1#call0 r2#call0 r3#response"; got != want {
		t.Errorf("order:\n got %s\nwant %s", got, want)
	}
	if e := importertest.SrcEntry(t, es, "r1#prompt"); !strings.Contains(e.Text, "port: 8080") || !strings.HasSuffix(e.Text, "What is in config.yaml?") {
		t.Errorf("prompt with its fragment: got %q", e.Text)
	}
	if e := importertest.SrcEntry(t, es, "r1#attachment0"); e.Kind != annals.KindEvent || !strings.Contains(e.Text, "/tmp/shot.png") || strings.Contains(string(e.Metadata), "PNG") {
		t.Errorf("attachment: got %+v %s", e, e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "r1#call0"); e.Tool.Name != "read_file" || e.Tool.Result != "port: 8080" || e.Tool.Outcome != annals.OutcomeSucceeded || e.RunID != "llm:r1" {
		t.Errorf("call with its result from the next response: got %+v run %q", e.Tool, e.RunID)
	}
	if e := importertest.SrcEntry(t, es, "r2#call0"); e.Tool.Outcome != annals.OutcomeFailed || e.Tool.Result != "PermissionError: denied" {
		t.Errorf("call whose tool raised: got %+v", e.Tool)
	}
	if e := importertest.SrcEntry(t, es, "r3#response"); e.Text != "The port is 8080." || e.Reasoning != "The file said 8080." {
		t.Errorf("response: got %q / %q", e.Text, e.Reasoning)
	}
	runs := importertest.SrcRuns(p)
	if r := runs["llm:r1"]; r == nil || r.Model != "gpt-4o-mini-2024-07-18" || r.InputTokens != 90 || r.OutputTokens != 17 || r.EndedAt == nil || r.EndedAt.Sub(r.StartedAt).Milliseconds() != 1200 {
		t.Errorf("run r1: got %+v", r)
	}
	if len(runs) != 4 {
		t.Errorf("got %d runs, want one per response (4)", len(runs))
	}
	if es := p.Entries["llm:r4"]; len(es) != 2 || es[1].Text != "A standalone answer" {
		t.Errorf("standalone response: got %d entries", len(es))
	}
	importertest.SrcIdempotent(t, "llm", path)
}

func TestLLMThreadsFollowTheMessageChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	importertest.LlmStoreDB(t, path)
	p := importertest.SrcParse(t, "llm", path)
	if len(p.Chats) != 2 {
		t.Fatalf("got %d chats, want 2 (the legacy conversation is read from its thread only)", len(p.Chats))
	}
	es := p.Entries["llm:c9"]
	var order []string
	for _, e := range es {
		order = append(order, e.ID)
	}
	if got, want := strings.Join(order, " "), "b2:m1#0 b2:m2#0 b2:m2#1 b2:m4#0"; got != want {
		t.Errorf("thread order:\n got %s\nwant %s", got, want)
	}
	if e := importertest.SrcEntry(t, es, "b2:m1#0"); e.Text != "func main() {}\nReview main.go" || e.RunID != "llm:T1" {
		t.Errorf("text_ref resolved with its fragment: got %q run %q", e.Text, e.RunID)
	}
	if e := importertest.SrcEntry(t, es, "b2:m2#0"); e.Reasoning != "Looking for bugs." || importertest.SrcMeta(t, e)["encrypted_reasoning"] != true {
		t.Errorf("reasoning: got %q %s", e.Reasoning, e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "b2:m2#1"); e.Tool.Name != "run_vet" || e.Tool.Outcome != annals.OutcomeFailed || e.Tool.Result != "vet crashed" {
		t.Errorf("tool call with its failed result: got %+v", e.Tool)
	}
	importertest.SrcNoSecret(t, p, "RSECRET", "PMSECRET")
	if strings.Contains(importertest.SrcText(p), "old answer") {
		t.Error("the legacy rows of a conversation that has a thread were imported too")
	}
	fork := importertest.SrcChat(t, p, "llm:t2")
	if fork.Attributes["parent"] != "llm:c9" {
		t.Errorf("fork parent: got %q", fork.Attributes["parent"])
	}
	fes := p.Entries["llm:t2"]
	if len(fes) != 6 || fes[3].Text != "Rather explain it." || fes[3].RunID != "llm:T3" || fes[0].RunID != "" {
		t.Errorf("fork transcript: want the shared prefix (without the other thread's runs) and its own turn, got %d entries", len(fes))
	}
	if e := importertest.SrcEntry(t, fes, "b2:m6#1"); e.Kind != annals.KindEvent || e.Channel != "llm/citation" || !strings.Contains(string(e.Metadata), "go.dev") {
		t.Errorf("unknown part type: got %+v %s", e, e.Metadata)
	}
	runs := importertest.SrcRuns(p)
	if r := runs["llm:T1"]; r == nil || r.ChatID != "llm:c9" || r.Model != "o4-2026" || r.InputTokens != 100 {
		t.Errorf("turn run: got %+v", r)
	}
	if r := runs["llm:T3"]; r == nil || r.ChatID != "llm:t2" {
		t.Errorf("fork turn run: got %+v", r)
	}
	importertest.SrcIdempotent(t, "llm", path)
}

func TestLLMCorpus(t *testing.T) {
	t.Run("legacy", func(t *testing.T) {
		p := importertest.SrcParse(t, "llm", importertest.SrcCorpusPath(t, "llm-logsdb/constructed__logs-legacy-v0.27-schema.db"))
		if len(p.Chats) != 1 {
			t.Fatalf("got %d chats", len(p.Chats))
		}
		es := p.Entries["llm:01jv4k7c5p0d2a9m8x3n6q1w7e"]
		importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindTool: 2, annals.KindAssistant: 1})
		importertest.SrcToolsLinked(t, es)
		importertest.SrcWantText(t, p, "Can the country of Crumpet have dragons?", "123124", "can_have_dragons", "YES")
		if len(importertest.SrcRuns(p)) != 3 {
			t.Errorf("got %d runs, want 3", len(importertest.SrcRuns(p)))
		}
	})
	t.Run("v0.32", func(t *testing.T) {
		p := importertest.SrcParse(t, "llm", importertest.SrcCorpusPath(t, "llm-logsdb/constructed__logs-v0.32-schema.db"))
		if len(p.Chats) != 4 {
			t.Fatalf("got %d chats, want 4 (3 threads, 1 legacy conversation)", len(p.Chats))
		}
		importertest.SrcWantKinds(t, p.Entries["llm:01kf2rw8jhv1x9c2m4p6q8s0tv"], map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 2})
		importertest.SrcWantKinds(t, p.Entries["llm:01kf2rx0aa1b2c3d4e5f6g7h8j"], map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 2})
		loop := p.Entries["llm:01kf2s1m2n3p4q5r6s7t8v9w0x"]
		importertest.SrcWantKinds(t, loop, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 2, annals.KindTool: 1})
		importertest.SrcToolsLinked(t, loop)
		if e := importertest.SrcEntry(t, loop, "b2:5f97a052a2b154fb7d14213a06b6a1d4#1"); e.Tool.Result != "2869461" {
			t.Errorf("multiply result: got %+v", e.Tool)
		}
		if importertest.SrcChat(t, p, "llm:01kf2rx0aa1b2c3d4e5f6g7h8j").Attributes["parent"] != "llm:01kf2rw8jhv1x9c2m4p6q8s0tv" {
			t.Error("the fork does not point to its origin")
		}
		importertest.SrcWantText(t, p, "Steven. Steven Seagull.", "Wallace. It pairs nicely with Percy.", "1231 multiplied by 2331 is 2,869,461.", "YES")
	})
}

// FuzzLLMPart feeds arbitrary type, text and payload into one part of a thread.
func FuzzLLMPart(f *testing.F) {
	f.Add("text", "hello", `{"text_ref":[{"fragment":1},{"literal":"x"}]}`)
	f.Add("tool_call", "", `{"name":"n","arguments":"{\"a\":1}","tool_call_id":"c"}`)
	f.Add("tool_result", "", `{"output":{"x":[1]},"tool_call_id":"c","exception":7}`)
	f.Add("reasoning", "", `{"redacted":true,"encrypted_content":"zz"}`)
	f.Add("attachment", "", `{"attachment_id":"nope"}`)
	f.Add("\x00", "\xff", `[`)
	path := filepath.Join(f.TempDir(), "logs.db")
	db := importertest.SrcDB(f, path, importertest.LlmStoreSchema...)
	importertest.SrcExec(f, db, `INSERT INTO messages VALUES ('h1', NULL, 'user', NULL), ('h2', 'h1', 'assistant', NULL)`)
	importertest.SrcExec(f, db, `INSERT INTO threads VALUES ('t', 'n', 'h2', NULL, '2026-01-01T00:00:00')`)
	importertest.SrcExec(f, db, `INSERT INTO turns (id, thread_id, parent_message_hash, tip_message_hash, model) VALUES ('T', 't', 'h1', 'h2', 'm')`)
	importertest.SrcExec(f, db, `INSERT INTO parts VALUES (1, 'h2', 0, 'tool_call', 'n', NULL, '{"tool_call_id":"c"}')`)
	format := importertest.SrcFormat(f, "llm")
	f.Fuzz(func(t *testing.T, typ, text, payload string) {
		importertest.SrcExec(t, db, `DELETE FROM parts WHERE id = 2`)
		importertest.SrcExec(t, db, `INSERT INTO parts VALUES (2, 'h2', 1, ?, 'n', ?, ?)`, typ, text, payload)
		p, err := importer.Parse(context.Background(), format, path)
		if err != nil {
			t.Fatalf("a bad part must not fail the import: %v", err)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w.Message, "not imported") {
				t.Fatalf("the parser emitted an invalid entry: %s", w.Message)
			}
		}
	})
}
