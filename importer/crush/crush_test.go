package crush_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// crushDB writes a .crush/crush.db of Crush's own schema (charmbracelet/crush,
// internal/db/migrations/20250424200609_initial.sql plus the later provider and
// is_summary_message columns), parts in its {"type","data"} wrappers (internal/message).
func crushDB(t testing.TB, path string) {
	db := importertest.SrcDB(t, path,
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0,
			prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
			updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT)`,
		`CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0,
			created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
		`CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts BLOB NOT NULL default '[]', model TEXT,
			created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL)`)
	importertest.SrcExec(t, db, `INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES
		('s-main', NULL, 'Fix the ibis linter', 1772500100, 1772500000), ('s-task', 's-main', 'Find the linter config', 1772500050, 1772500020)`)
	for _, m := range [][]any{
		{"m1", "s-main", "user", `[{"type":"text","data":{"text":"fix the ibis linter errors"}}]`, nil, 1772500001},
		{"m2", "s-main", "assistant", `[{"type":"reasoning","data":{"thinking":"Run the linter.","signature":"sig"}},{"type":"text","data":{"text":"Running golangci-lint."}},{"type":"tool_call","data":{"id":"call_1","name":"bash","input":"{\"command\":\"golangci-lint run\"}","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1772500004}}]`, "claude-sonnet-4-5", 1772500002},
		{"m3", "s-main", "tool", `[{"type":"tool_result","data":{"tool_call_id":"call_1","name":"bash","content":"ibis.go:3: unused variable x","metadata":"","is_error":true}}]`, nil, 1772500005},
		{"m4", "s-main", "assistant", `[{"type":"text","data":{"text":"Removed the unused variable."}},{"type":"finish","data":{"reason":"end_turn","time":1772500009}}]`, "claude-sonnet-4-5", 1772500008},
		{"m5", "s-task", "user", `[{"type":"text","data":{"text":"Find the linter config"}}]`, nil, 1772500021},
		{"m6", "s-task", "assistant", `[{"type":"text","data":{"text":".golangci.yml"}},{"type":"finish","data":{"reason":"end_turn","time":1772500030}}]`, "claude-haiku-4-5", 1772500025},
	} {
		importertest.SrcExec(t, db, `INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, m[0], m[1], m[2], m[3], m[4], m[5], m[5])
	}
}

func TestCrushSessionsAreStoredWithToolsAndSubAgents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ibis", ".crush", "crush.db")
	importertest.WriteFile(t, path, nil)
	crushDB(t, path)
	var claims []string
	for _, f := range importer.Formats() {
		if f.Detect(path, importertest.Head(t, path)) {
			claims = append(claims, f.Name())
		}
	}
	if strings.Join(claims, ",") != "crush" {
		t.Fatalf("crush.db claimed by %v, want crush only", claims)
	}
	c, es, _ := importertest.StoredChat(t, openDB(t), "crush:s-main", []string{"crush"}, path)
	if c.Title != "Fix the ibis linter" || c.Attributes["model"] != "claude-sonnet-4-5" {
		t.Errorf("chat %q %v", c.Title, c.Attributes)
	}
	if got := importertest.Kinds(es); got[annals.KindUser] != 1 || got[annals.KindAssistant] != 3 || got[annals.KindTool] != 1 || len(es) != 5 {
		t.Errorf("entries by kind %v, want prompt, reasoning, 2 texts and the call", got)
	}
	for _, e := range es {
		if e.Tool != nil && (e.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(e.Tool.Result, "unused variable") || !strings.Contains(string(e.Tool.Arguments), "golangci-lint")) {
			t.Errorf("bash call %+v, want its failed result", e.Tool)
		}
	}
	sub, ses, _ := importertest.StoredChat(t, openDB(t), "crush:s-task", []string{"crush"}, path)
	if sub.Attributes["parent"] != "crush:s-main" || len(ses) != 2 {
		t.Errorf("sub-agent session %v with %d entries", sub.Attributes, len(ses))
	}
}
