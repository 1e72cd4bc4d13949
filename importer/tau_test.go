package importer_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

// tauSchema is the history.sqlite schema docs/IMPORT.md documents: sessions with their immutable
// creation attributes (a JSON column here; a key-value table is read too), and the ordered flat
// transcript.
var tauSchema = []string{
	`CREATE TABLE history_sessions (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, attributes TEXT)`,
	`CREATE TABLE history_entries (session_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, source_id TEXT, kind TEXT NOT NULL,
		text TEXT, tool_name TEXT, arguments TEXT, result TEXT, outcome TEXT, created_at TEXT NOT NULL, PRIMARY KEY (session_id, seq))`,
	`CREATE TABLE history_outbox (id INTEGER PRIMARY KEY, session_id TEXT, op TEXT)`,
}

func tauDB(t testing.TB, path string, extra ...string) {
	db := srcDB(t, path, append(append([]string{}, tauSchema...), extra...)...)
	for _, q := range []string{
		`INSERT INTO history_sessions VALUES ('tau-1', '2026-03-01T08:00:00Z', '{"source":"tui","repository":"github.com/acme/api,github.com/acme/web"}')`,
		`INSERT INTO history_sessions VALUES ('tau-2', '2026-03-02T08:00:00Z', NULL)`,
		// Out of order on purpose: seq is the transcript order.
		`INSERT INTO history_entries VALUES ('tau-1', 3, 'e3', 'msg-2', 'tool', NULL, 'bash', '{"cmd":"make check"}', 'ok  ./...', 'succeeded', '2026-03-01T08:00:05Z')`,
		`INSERT INTO history_entries VALUES ('tau-1', 1, 'e1', 'msg-1', 'user', '<system>repo rules</system>\nWhy does make test fail?', NULL, NULL, NULL, NULL, '2026-03-01T08:00:00Z')`,
		`INSERT INTO history_entries VALUES ('tau-1', 2, 'e2', 'msg-2', 'assistant', 'The target is called check.', NULL, NULL, NULL, NULL, '2026-03-01T08:00:03Z')`,
		`INSERT INTO history_entries VALUES ('tau-1', 4, 'e4', 'msg-2', 'tool', NULL, 'write_file', 'not json', 'permission denied', 'denied', '2026-03-01T08:00:06Z')`,
		`INSERT INTO history_entries VALUES ('tau-1', 5, 'e5', 'msg-3', 'tool', NULL, 'fetch', '{}', 'timeout', 'timed_out', '2026-03-01T08:00:07Z')`,
		`INSERT INTO history_entries VALUES ('tau-1', 6, 'e6', NULL, 'warning', 'history unavailable', NULL, NULL, NULL, NULL, '2026-03-01T08:00:08Z')`,
		`INSERT INTO history_entries VALUES ('tau-2', 1, 'f1', 'm', 'user', 'second session', NULL, NULL, NULL, NULL, '2026-03-02T08:00:00Z')`,
		`INSERT INTO history_entries VALUES ('tau-2', 2, 'f2', 'm', 'dream', 'unknown kind', NULL, NULL, NULL, NULL, '2026-03-02T08:00:01Z')`,
		`INSERT INTO history_entries VALUES ('tau-9', 1, 'g1', 'm', 'user', 'an entry of a session row that is gone', NULL, NULL, NULL, NULL, '2026-03-03T08:00:00Z')`,
	} {
		srcExec(t, db, q)
	}
}

func TestTauHistoryMapsOneToOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.sqlite")
	tauDB(t, path)
	if !srcFormat(t, "tau").Detect(path, []byte("SQLite format 3\x00")) {
		t.Fatal("a Tau history database is not detected")
	}
	p := srcParse(t, "tau", path)
	if len(p.Chats) != 3 {
		t.Fatalf("got %d chats, want 3", len(p.Chats))
	}
	c := srcChat(t, p, "tau:tau-1")
	if c.Attributes["source"] != "tau" || c.Attributes["tau_source"] != "tui" || c.Attributes["repository"] != "github.com/acme/api,github.com/acme/web" {
		t.Errorf("attributes: got %v", c.Attributes)
	}
	es := p.Entries["tau:tau-1"]
	var order []string
	for _, e := range es {
		order = append(order, e.ID)
	}
	if got := strings.Join(order, " "); got != "e1 e2 e3 e4 e5 e6" {
		t.Errorf("order by seq: got %s", got)
	}
	if e := srcEntry(t, es, "e1"); e.Kind != annals.KindUser || !strings.Contains(e.Text, "<system>repo rules</system>") || e.SourceIDs[0] != "msg-1" {
		t.Errorf("user entry keeps its system block and source id: got %+v", e)
	}
	if e := srcEntry(t, es, "e3"); e.Tool.Name != "bash" || e.Tool.Outcome != annals.OutcomeSucceeded || e.Tool.Result != "ok  ./..." || string(e.Tool.Arguments) != `{"cmd":"make check"}` {
		t.Errorf("tool entry: got %+v", e.Tool)
	}
	if e := srcEntry(t, es, "e4"); e.Tool.Outcome != annals.OutcomeBlocked || string(e.Tool.Arguments) != `"not json"` {
		t.Errorf("denied call with arguments that are not JSON: got %+v", e.Tool)
	}
	if e := srcEntry(t, es, "e5"); e.Tool.Outcome != "" || srcMeta(t, e)["tau_outcome"] != "timed_out" {
		t.Errorf("an unknown outcome is kept in metadata: got %+v %s", e.Tool, e.Metadata)
	}
	if e := srcEntry(t, es, "e6"); e.Kind != annals.KindSystem || e.Text != "history unavailable" {
		t.Errorf("warning: got %+v", e)
	}
	if e := srcEntry(t, p.Entries["tau:tau-2"], "f2"); e.Kind != annals.KindEvent || e.Channel != "tau/dream" {
		t.Errorf("unknown kind: got %+v", e)
	}
	if es := p.Entries["tau:tau-9"]; len(es) != 1 {
		t.Errorf("entries of a missing session row: got %d", len(es))
	}
	srcIdempotent(t, "tau", path)
}

func TestTauAttributesFromAKeyValueTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.sqlite")
	tauDB(t, path,
		`CREATE TABLE history_attributes (session_id TEXT, key TEXT, value TEXT)`,
		`INSERT INTO history_attributes VALUES ('tau-2', 'source', 'telegram'), ('tau-2', 'chat', 'ops-room')`)
	p := srcParse(t, "tau", path)
	if a := srcChat(t, p, "tau:tau-2").Attributes; a["tau_source"] != "telegram" || a["chat"] != "ops-room" || a["source"] != "tau" {
		t.Errorf("attributes: got %v", a)
	}
}

// FuzzTauEntry feeds arbitrary kind, arguments and outcome into one entry.
func FuzzTauEntry(f *testing.F) {
	f.Add("tool", `{"a":[1,2]}`, "succeeded", "id")
	f.Add("tool", `{`, "\x00", "")
	f.Add("assistant", ``, "", "\xff")
	f.Add("", "null", "CANCELLED", "x")
	path := filepath.Join(f.TempDir(), "history.sqlite")
	db := srcDB(f, path, tauSchema...)
	srcExec(f, db, `INSERT INTO history_sessions VALUES ('s', '2026-01-01T00:00:00Z', '{"k":"v"}')`)
	format := srcFormat(f, "tau")
	f.Fuzz(func(t *testing.T, kind, args, outcome, id string) {
		srcExec(t, db, `DELETE FROM history_entries`)
		srcExec(t, db, `INSERT INTO history_entries VALUES ('s', 1, ?, 'm', ?, 'text', 'tool', ?, 'result', ?, 'not a time')`, id, kind, args, outcome)
		p, err := importer.Parse(context.Background(), format, path)
		if err != nil {
			t.Fatalf("a bad entry must not fail the import: %v", err)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w.Message, "not imported") {
				t.Fatalf("the parser emitted an invalid entry: %s", w.Message)
			}
		}
	})
}
