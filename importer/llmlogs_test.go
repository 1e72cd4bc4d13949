package importer_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

// llmLegacySchema is the legacy part of llm's logs.db schema (docs/logging.md of simonw/llm).
var llmLegacySchema = []string{
	`CREATE TABLE conversations (id TEXT PRIMARY KEY, name TEXT, model TEXT)`,
	`CREATE TABLE responses (id TEXT PRIMARY KEY, model TEXT, prompt TEXT, system TEXT, prompt_json TEXT, options_json TEXT,
		response TEXT, response_json TEXT, conversation_id TEXT REFERENCES conversations(id), duration_ms INTEGER, datetime_utc TEXT,
		input_tokens INTEGER, output_tokens INTEGER, token_details TEXT, schema_id TEXT, resolved_model TEXT, reasoning TEXT)`,
	`CREATE TABLE attachments (id TEXT PRIMARY KEY, type TEXT, path TEXT, url TEXT, content BLOB)`,
	`CREATE TABLE prompt_attachments (response_id TEXT, attachment_id TEXT, "order" INTEGER, PRIMARY KEY (response_id, attachment_id))`,
	`CREATE TABLE fragments (id INTEGER PRIMARY KEY, hash TEXT, content TEXT, datetime_utc TEXT, source TEXT)`,
	`CREATE TABLE prompt_fragments (response_id TEXT, fragment_id INTEGER, "order" INTEGER, PRIMARY KEY (response_id, fragment_id, "order"))`,
	`CREATE TABLE system_fragments (response_id TEXT, fragment_id INTEGER, "order" INTEGER, PRIMARY KEY (response_id, fragment_id, "order"))`,
	`CREATE TABLE tools (id INTEGER PRIMARY KEY, hash TEXT, name TEXT, description TEXT, input_schema TEXT, plugin TEXT)`,
	`CREATE TABLE tool_calls (id INTEGER PRIMARY KEY, response_id TEXT, tool_id INTEGER, name TEXT, arguments TEXT, tool_call_id TEXT)`,
	`CREATE TABLE tool_results (id INTEGER PRIMARY KEY, response_id TEXT, tool_id INTEGER, name TEXT, output TEXT, tool_call_id TEXT, instance_id INTEGER, exception TEXT)`,
}

// llmStoreSchema is the content-addressed part (llm 0.32+).
var llmStoreSchema = []string{
	`CREATE TABLE messages (hash TEXT PRIMARY KEY, parent_hash TEXT, role TEXT, provider_metadata TEXT)`,
	`CREATE TABLE parts (id INTEGER PRIMARY KEY, message_hash TEXT, position INTEGER, type TEXT, tool_name TEXT, text TEXT, payload TEXT)`,
	`CREATE TABLE part_attachments (part_id INTEGER, attachment_id TEXT, "order" INTEGER, PRIMARY KEY (part_id, attachment_id, "order"))`,
	`CREATE TABLE threads (id TEXT PRIMARY KEY, name TEXT, tip_message_hash TEXT, forked_from TEXT, datetime_utc TEXT)`,
	`CREATE TABLE turns (id TEXT PRIMARY KEY, thread_id TEXT, parent_message_hash TEXT, tip_message_hash TEXT, model TEXT, resolved_model TEXT,
		options_json TEXT, schema_id TEXT, input_tokens INTEGER, output_tokens INTEGER, token_details TEXT, duration_ms INTEGER, datetime_utc TEXT, response_json TEXT)`,
}

func llmLegacyDB(t testing.TB, path string) {
	db := srcDB(t, path, llmLegacySchema...)
	for _, q := range []string{
		`INSERT INTO conversations VALUES ('c1', 'What is in config.yaml?', 'gpt-4o-mini')`,
		`INSERT INTO fragments VALUES (1, 'h1', 'port: 8080', '2025-01-01T00:00:00', 'config.yaml')`,
		`INSERT INTO attachments VALUES ('a1', 'image/png', '/tmp/shot.png', NULL, X'89504E470D0A1A0A')`,
		`INSERT INTO responses VALUES ('r1', 'gpt-4o-mini', 'What is in config.yaml?', 'You are terse.', '{"messages":[]}', '{"temperature":0.2}', '', '{"id":"x"}', 'c1', 1200, '2025-05-13T19:07:31.512345+00:00', 90, 17, '{"cached":0}', NULL, 'gpt-4o-mini-2024-07-18', NULL)`,
		`INSERT INTO prompt_fragments VALUES ('r1', 1, 0)`,
		`INSERT INTO prompt_attachments VALUES ('r1', 'a1', 0)`,
		`INSERT INTO tool_calls VALUES (1, 'r1', 1, 'read_file', '{"path": "config.yaml"}', 'call_1')`,
		`INSERT INTO responses VALUES ('r2', 'gpt-4o-mini', NULL, 'You are terse.', NULL, '{}', '', NULL, 'c1', 900, '2025-05-13T19:07:34.000000+00:00', 110, 18, NULL, NULL, NULL, NULL)`,
		`INSERT INTO tool_results VALUES (1, 'r2', 1, 'read_file', 'port: 8080', 'call_1', NULL, NULL)`,
		`INSERT INTO tool_calls VALUES (2, 'r2', 2, 'delete_file', '{"path": "config.yaml"}', 'call_2')`,
		`INSERT INTO responses VALUES ('r3', 'gpt-4o-mini', NULL, 'You are terse.', NULL, '{}', 'The port is 8080.', NULL, 'c1', 700, '2025-05-13T19:07:37.000000+00:00', 140, 5, NULL, NULL, NULL, 'The file said 8080.')`,
		`INSERT INTO tool_results VALUES (2, 'r3', 2, 'delete_file', '', 'call_2', NULL, 'PermissionError: denied')`,
		`INSERT INTO responses VALUES ('r4', 'claude-3-haiku', 'A standalone question', NULL, NULL, '{}', 'A standalone answer', NULL, NULL, 300, '2025-05-14T08:00:00.000000+00:00', 5, 4, NULL, NULL, NULL, NULL)`,
	} {
		srcExec(t, db, q)
	}
}

func TestLLMLegacyResponsesBecomeChats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	llmLegacyDB(t, path)
	if !srcFormat(t, "llm").Detect(path, []byte("SQLite format 3\x00")) {
		t.Fatal("a legacy logs.db is not detected")
	}
	p := srcParse(t, "llm", path)
	if len(p.Chats) != 2 {
		t.Fatalf("got %d chats, want 2 (a conversation, and a response without one)", len(p.Chats))
	}
	c := srcChat(t, p, "llm:c1")
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
	if e := srcEntry(t, es, "r1#prompt"); !strings.Contains(e.Text, "port: 8080") || !strings.HasSuffix(e.Text, "What is in config.yaml?") {
		t.Errorf("prompt with its fragment: got %q", e.Text)
	}
	if e := srcEntry(t, es, "r1#attachment0"); e.Kind != annals.KindEvent || !strings.Contains(e.Text, "/tmp/shot.png") || strings.Contains(string(e.Metadata), "PNG") {
		t.Errorf("attachment: got %+v %s", e, e.Metadata)
	}
	if e := srcEntry(t, es, "r1#call0"); e.Tool.Name != "read_file" || e.Tool.Result != "port: 8080" || e.Tool.Outcome != annals.OutcomeSucceeded || e.RunID != "llm:r1" {
		t.Errorf("call with its result from the next response: got %+v run %q", e.Tool, e.RunID)
	}
	if e := srcEntry(t, es, "r2#call0"); e.Tool.Outcome != annals.OutcomeFailed || e.Tool.Result != "PermissionError: denied" {
		t.Errorf("call whose tool raised: got %+v", e.Tool)
	}
	if e := srcEntry(t, es, "r3#response"); e.Text != "The port is 8080." || e.Reasoning != "The file said 8080." {
		t.Errorf("response: got %q / %q", e.Text, e.Reasoning)
	}
	runs := srcRuns(p)
	if r := runs["llm:r1"]; r == nil || r.Model != "gpt-4o-mini-2024-07-18" || r.InputTokens != 90 || r.OutputTokens != 17 || r.EndedAt == nil || r.EndedAt.Sub(r.StartedAt).Milliseconds() != 1200 {
		t.Errorf("run r1: got %+v", r)
	}
	if len(runs) != 4 {
		t.Errorf("got %d runs, want one per response (4)", len(runs))
	}
	if es := p.Entries["llm:r4"]; len(es) != 2 || es[1].Text != "A standalone answer" {
		t.Errorf("standalone response: got %d entries", len(es))
	}
	srcIdempotent(t, "llm", path)
}

func llmStoreDB(t testing.TB, path string) {
	stmts := append(append([]string{}, llmLegacySchema...), llmStoreSchema...)
	db := srcDB(t, path, stmts...)
	for _, q := range []string{
		`INSERT INTO fragments VALUES (7, 'h7', 'func main() {}', '2026-01-01T00:00:00', 'main.go')`,
		// The legacy conversation c9 was continued after the upgrade: its thread has the same
		// id and holds its messages again, so the legacy rows must not be imported twice.
		`INSERT INTO conversations VALUES ('c9', 'old', 'gpt-4o')`,
		`INSERT INTO responses (id, model, prompt, response, conversation_id, datetime_utc) VALUES ('r9', 'gpt-4o', 'Review main.go', 'old answer', 'c9', '2026-01-01T00:00:00+00:00')`,
		`INSERT INTO messages VALUES ('b2:m1', NULL, 'user', NULL)`,
		`INSERT INTO messages VALUES ('b2:m2', 'b2:m1', 'assistant', '{"signature":"PMSECRET","id":"resp_1"}')`,
		`INSERT INTO messages VALUES ('b2:m3', 'b2:m2', 'tool', NULL)`,
		`INSERT INTO messages VALUES ('b2:m4', 'b2:m3', 'assistant', NULL)`,
		`INSERT INTO messages VALUES ('b2:m5', 'b2:m2', 'user', NULL)`,
		`INSERT INTO messages VALUES ('b2:m6', 'b2:m5', 'assistant', NULL)`,
		`INSERT INTO parts VALUES (1, 'b2:m1', 0, 'text', NULL, NULL, '{"text_ref":[{"fragment":7},{"literal":"\nReview main.go"}]}')`,
		`INSERT INTO parts VALUES (2, 'b2:m2', 0, 'reasoning', NULL, 'Looking for bugs.', '{"signature":"RSECRET"}')`,
		`INSERT INTO parts VALUES (3, 'b2:m2', 1, 'tool_call', 'run_vet', NULL, '{"name":"run_vet","arguments":{"pkg":"./..."},"tool_call_id":"call_v"}')`,
		`INSERT INTO parts VALUES (4, 'b2:m3', 0, 'tool_result', 'run_vet', NULL, '{"name":"run_vet","output":"","tool_call_id":"call_v","exception":"vet crashed"}')`,
		`INSERT INTO parts VALUES (5, 'b2:m4', 0, 'text', NULL, 'main.go is empty but fine.', NULL)`,
		`INSERT INTO parts VALUES (6, 'b2:m5', 0, 'text', NULL, 'Rather explain it.', NULL)`,
		`INSERT INTO parts VALUES (7, 'b2:m6', 0, 'text', NULL, 'It defines an empty main.', NULL)`,
		`INSERT INTO parts VALUES (8, 'b2:m6', 1, 'citation', NULL, NULL, '{"url":"https://go.dev"}')`,
		`INSERT INTO threads VALUES ('c9', 'Review main.go', 'b2:m4', NULL, '2026-02-01T10:00:00.000000+00:00')`,
		`INSERT INTO threads VALUES ('t2', 'Review main.go', 'b2:m6', 'c9', '2026-02-01T11:00:00.000000+00:00')`,
		`INSERT INTO turns VALUES ('T1', 'c9', 'b2:m1', 'b2:m2', 'o4', 'o4-2026', '{}', NULL, 100, 20, NULL, 1000, '2026-02-01T10:00:01.000000+00:00', NULL)`,
		`INSERT INTO turns VALUES ('T2', 'c9', 'b2:m3', 'b2:m4', 'o4', NULL, '{}', NULL, 130, 10, NULL, 500, '2026-02-01T10:00:05.000000+00:00', NULL)`,
		`INSERT INTO turns VALUES ('T3', 't2', 'b2:m5', 'b2:m6', 'o4', NULL, '{}', NULL, 60, 8, NULL, 400, '2026-02-01T11:00:01.000000+00:00', NULL)`,
	} {
		srcExec(t, db, q)
	}
}

func TestLLMThreadsFollowTheMessageChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.db")
	llmStoreDB(t, path)
	p := srcParse(t, "llm", path)
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
	if e := srcEntry(t, es, "b2:m1#0"); e.Text != "func main() {}\nReview main.go" || e.RunID != "llm:T1" {
		t.Errorf("text_ref resolved with its fragment: got %q run %q", e.Text, e.RunID)
	}
	if e := srcEntry(t, es, "b2:m2#0"); e.Reasoning != "Looking for bugs." || srcMeta(t, e)["encrypted_reasoning"] != true {
		t.Errorf("reasoning: got %q %s", e.Reasoning, e.Metadata)
	}
	if e := srcEntry(t, es, "b2:m2#1"); e.Tool.Name != "run_vet" || e.Tool.Outcome != annals.OutcomeFailed || e.Tool.Result != "vet crashed" {
		t.Errorf("tool call with its failed result: got %+v", e.Tool)
	}
	srcNoSecret(t, p, "RSECRET", "PMSECRET")
	if strings.Contains(srcText(p), "old answer") {
		t.Error("the legacy rows of a conversation that has a thread were imported too")
	}
	fork := srcChat(t, p, "llm:t2")
	if fork.Attributes["parent"] != "llm:c9" {
		t.Errorf("fork parent: got %q", fork.Attributes["parent"])
	}
	fes := p.Entries["llm:t2"]
	if len(fes) != 6 || fes[3].Text != "Rather explain it." || fes[3].RunID != "llm:T3" || fes[0].RunID != "" {
		t.Errorf("fork transcript: want the shared prefix (without the other thread's runs) and its own turn, got %d entries", len(fes))
	}
	if e := srcEntry(t, fes, "b2:m6#1"); e.Kind != annals.KindEvent || e.Channel != "llm/citation" || !strings.Contains(string(e.Metadata), "go.dev") {
		t.Errorf("unknown part type: got %+v %s", e, e.Metadata)
	}
	runs := srcRuns(p)
	if r := runs["llm:T1"]; r == nil || r.ChatID != "llm:c9" || r.Model != "o4-2026" || r.InputTokens != 100 {
		t.Errorf("turn run: got %+v", r)
	}
	if r := runs["llm:T3"]; r == nil || r.ChatID != "llm:t2" {
		t.Errorf("fork turn run: got %+v", r)
	}
	srcIdempotent(t, "llm", path)
}

func TestLLMCorpus(t *testing.T) {
	t.Run("legacy", func(t *testing.T) {
		p := srcParse(t, "llm", srcCorpusPath(t, "llm-logsdb/constructed__logs-legacy-v0.27-schema.db"))
		if len(p.Chats) != 1 {
			t.Fatalf("got %d chats", len(p.Chats))
		}
		es := p.Entries["llm:01jv4k7c5p0d2a9m8x3n6q1w7e"]
		srcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindTool: 2, annals.KindAssistant: 1})
		srcToolsLinked(t, es)
		srcWantText(t, p, "Can the country of Crumpet have dragons?", "123124", "can_have_dragons", "YES")
		if len(srcRuns(p)) != 3 {
			t.Errorf("got %d runs, want 3", len(srcRuns(p)))
		}
	})
	t.Run("v0.32", func(t *testing.T) {
		p := srcParse(t, "llm", srcCorpusPath(t, "llm-logsdb/constructed__logs-v0.32-schema.db"))
		if len(p.Chats) != 4 {
			t.Fatalf("got %d chats, want 4 (3 threads, 1 legacy conversation)", len(p.Chats))
		}
		srcWantKinds(t, p.Entries["llm:01kf2rw8jhv1x9c2m4p6q8s0tv"], map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 2})
		srcWantKinds(t, p.Entries["llm:01kf2rx0aa1b2c3d4e5f6g7h8j"], map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 2})
		loop := p.Entries["llm:01kf2s1m2n3p4q5r6s7t8v9w0x"]
		srcWantKinds(t, loop, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 2, annals.KindTool: 1})
		srcToolsLinked(t, loop)
		if e := srcEntry(t, loop, "b2:5f97a052a2b154fb7d14213a06b6a1d4#1"); e.Tool.Result != "2869461" {
			t.Errorf("multiply result: got %+v", e.Tool)
		}
		if srcChat(t, p, "llm:01kf2rx0aa1b2c3d4e5f6g7h8j").Attributes["parent"] != "llm:01kf2rw8jhv1x9c2m4p6q8s0tv" {
			t.Error("the fork does not point to its origin")
		}
		srcWantText(t, p, "Steven. Steven Seagull.", "Wallace. It pairs nicely with Percy.", "1231 multiplied by 2331 is 2,869,461.", "YES")
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
	db := srcDB(f, path, llmStoreSchema...)
	srcExec(f, db, `INSERT INTO messages VALUES ('h1', NULL, 'user', NULL), ('h2', 'h1', 'assistant', NULL)`)
	srcExec(f, db, `INSERT INTO threads VALUES ('t', 'n', 'h2', NULL, '2026-01-01T00:00:00')`)
	srcExec(f, db, `INSERT INTO turns (id, thread_id, parent_message_hash, tip_message_hash, model) VALUES ('T', 't', 'h1', 'h2', 'm')`)
	srcExec(f, db, `INSERT INTO parts VALUES (1, 'h2', 0, 'tool_call', 'n', NULL, '{"tool_call_id":"c"}')`)
	format := srcFormat(f, "llm")
	f.Fuzz(func(t *testing.T, typ, text, payload string) {
		srcExec(t, db, `DELETE FROM parts WHERE id = 2`)
		srcExec(t, db, `INSERT INTO parts VALUES (2, 'h2', 1, ?, 'n', ?, ?)`, typ, text, payload)
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
