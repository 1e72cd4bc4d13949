package goose_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// gooseDB writes a sessions.db of goose's own schema (block/goose,
// crates/goose/src/session/session_manager.rs, schema version 5: sessions and messages with
// content_json blocks), with a session whose tool call is answered in the next user message.
func gooseDB(t testing.TB, path string) {
	db := importertest.SrcDB(t, path,
		`CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`,
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
			user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
			created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}',
			total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER, accumulated_total_tokens INTEGER,
			accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT)`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
			content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT)`)
	importertest.SrcExec(t, db, `INSERT INTO schema_version (version) VALUES (5)`)
	importertest.SrcExec(t, db, `INSERT INTO sessions (id, name, working_dir, created_at, updated_at) VALUES ('20260301_1', 'Run the heron tests', '/home/u/heron', '2026-03-01 09:00:00', '2026-03-01 09:01:00')`)
	for _, m := range [][]any{
		{"user", `[{"type":"text","text":"run the heron tests"}]`, 1772355600, `{"userVisible":true,"agentVisible":true}`},
		{"assistant", `[{"type":"text","text":"Running them."},{"type":"toolRequest","id":"call_1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"pytest -q"}}}}]`, 1772355601,
			`{"userVisible":true,"agentVisible":true,"inference":{"provider":"anthropic","requestedModel":"claude-sonnet-4-5"}}`},
		{"user", `[{"type":"toolResponse","id":"call_1","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"1 failed, 2 passed"}],"isError":true}}}]`, 1772355603, `{"userVisible":true,"agentVisible":true}`},
		{"assistant", `[{"type":"thinking","thinking":"test_wing fails on an empty list","signature":"sig"},{"type":"text","text":"test_wing fails on an empty list."}]`, 1772355605, `{"userVisible":true,"agentVisible":true}`},
	} {
		importertest.SrcExec(t, db, `INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES ('20260301_1', ?, ?, ?, ?)`, m...)
	}
}

func TestGooseDatabaseSessionIsStoredWithItsTools(t *testing.T) {
	path := filepath.Join(t.TempDir(), "goose", "sessions", "sessions.db")
	importertest.WriteFile(t, path, nil)
	gooseDB(t, path)
	var claims []string
	for _, f := range importer.Formats() {
		if f.Detect(path, importertest.Head(t, path)) {
			claims = append(claims, f.Name())
		}
	}
	if strings.Join(claims, ",") != "goose" {
		t.Fatalf("sessions.db claimed by %v, want goose only", claims)
	}
	c, es, _ := importertest.StoredChat(t, openDB(t), "goose:20260301_1", []string{"goose"}, path)
	if c.Title != "Run the heron tests" || c.Attributes["cwd"] != "/home/u/heron" || c.Attributes["model"] != "claude-sonnet-4-5" {
		t.Errorf("chat %q %v", c.Title, c.Attributes)
	}
	if got := importertest.Kinds(es); got[annals.KindUser] != 1 || got[annals.KindAssistant] != 3 || got[annals.KindTool] != 1 {
		t.Errorf("entries by kind %v, want 1 prompt, 3 assistant (text, thinking, text), 1 call", got)
	}
	for _, e := range es {
		if e.Tool != nil && (e.Tool.Name != "developer__shell" || e.Tool.Outcome != annals.OutcomeFailed || e.Tool.Result != "1 failed, 2 passed") {
			t.Errorf("tool %+v, want the shell call with its failed result", e.Tool)
		}
	}
}

// A legacy goose session file (goose's storage.rs: the SessionMetadata line, then one Message
// per line {role, created, content}).
func TestGooseLegacySessionFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".local", "share", "goose", "sessions", "20250610_142233.jsonl")
	importertest.WriteFile(t, path, []byte(`{"working_dir":"/home/u/egret","description":"Egret lint fix","schedule_id":null,"message_count":3,"total_tokens":900,"input_tokens":800,"output_tokens":100,"accumulated_total_tokens":900,"accumulated_input_tokens":800,"accumulated_output_tokens":100}
{"role":"user","created":1749565353,"content":[{"type":"text","text":"fix the egret lint errors"}]}
{"role":"assistant","created":1749565360,"content":[{"type":"toolRequest","id":"toolu_1","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"view","path":"egret.py"}}}}]}
{"role":"user","created":1749565361,"content":[{"type":"toolResponse","id":"toolu_1","toolResult":{"status":"success","value":[{"type":"text","text":"import os\n"}]}}]}
`))
	if !importertest.Format(t, "goose").Detect(path, importertest.Head(t, path)) || importertest.Format(t, "messages").Detect(path, importertest.Head(t, path)) {
		t.Fatal("detection: want goose, not messages")
	}
	c, es, _ := importertest.StoredChat(t, openDB(t), "goose:20250610_142233", []string{"goose"}, path)
	if c.Title != "Egret lint fix" || len(es) != 2 || es[1].Tool == nil || es[1].Tool.Result != "import os" || es[1].Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("chat %q with %d entries %+v", c.Title, len(es), es)
	}
}

// TestGooseCallsCarryTheirResponsesTime: a call records when the message holding its
// toolResponse was written (annals.MetaResultTime), which the web UI turns into its duration.
func TestGooseCallsCarryTheirResponsesTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "goose", "sessions", "sessions.db")
	importertest.WriteFile(t, path, nil)
	gooseDB(t, path)
	_, es, _ := importertest.StoredChat(t, openDB(t), "goose:20260301_1", []string{"goose"}, path)
	for _, e := range es {
		if e.Tool == nil {
			continue
		}
		if got, want := importertest.MetaOf(t, e)[annals.MetaResultTime], time.Unix(1772355603, 0).UTC().Format(time.RFC3339Nano); got != want {
			t.Errorf("call %s: result time %v, want %s (its response's message)", e.ID, got, want)
		}
	}
}
