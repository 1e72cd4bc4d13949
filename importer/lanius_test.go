package importer_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

// laniusSchema is the lanius.db schema docs/IMPORT.md documents (inferred from the history
// view's queries: events carry the type used as channel and the correlation id; messages carry
// role and JSON content, and point at the event that carried them).
var laniusSchema = []string{
	`CREATE TABLE events (id INTEGER PRIMARY KEY, type TEXT NOT NULL, correlation_id TEXT, session_id TEXT, payload TEXT, created_at TEXT NOT NULL)`,
	`CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, event_id INTEGER REFERENCES events(id), role TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL)`,
}

func laniusDB(t testing.TB, path string) {
	db := srcDB(t, path, laniusSchema...)
	for _, q := range []string{
		`INSERT INTO events VALUES (1, 'in/agent/main', 'corr-1', 'sess-a', '{"text":"check reactor pressure"}', '2026-06-12T09:00:00Z')`,
		`INSERT INTO events VALUES (2, 'out/agent/main', 'corr-1', 'sess-a', '{}', '2026-06-12T09:00:02Z')`,
		`INSERT INTO events VALUES (3, 'tool/exec', 'corr-1', 'sess-a', '{}', '2026-06-12T09:00:03Z')`,
		`INSERT INTO events VALUES (4, 'out/agent/main', 'corr-1', 'sess-a', '{}', '2026-06-12T09:00:05Z')`,
		`INSERT INTO events VALUES (5, 'bus/heartbeat', NULL, 'sess-a', '{"text":"alive","encrypted_content":"ENCSECRET"}', '2026-06-12T09:00:04Z')`,
		`INSERT INTO events VALUES (6, 'sys/boot', 'corr-0', NULL, '{"message":"lanius started"}', '2026-06-12T08:59:00Z')`,
		`INSERT INTO events VALUES (7, 'in/agent/ops', 'corr-2', 'sess-b', '{}', '2026-06-12T10:00:00Z')`,
		`INSERT INTO messages VALUES (1, 'sess-a', 1, 'user', '{"text":"What is the reactor pressure?"}', '2026-06-12T09:00:00Z')`,
		`INSERT INTO messages VALUES (2, 'sess-a', 2, 'assistant', '{"text":"Reading the gauge.","reasoning":{"text":"Need the sensor value.","signature":"SIGSECRET"},"tool_calls":[{"id":"call-1","name":"read_sensor","arguments":{"sensor":"pressure"}},{"id":"call-2","type":"function","function":{"name":"page_oncall","arguments":"{\"team\":\"ops\"}"}}]}', '2026-06-12T09:00:02Z')`,
		`INSERT INTO messages VALUES (3, 'sess-a', 3, 'tool', '{"tool_call_id":"call-1","text":"pressure=4.2bar"}', '2026-06-12T09:00:03Z')`,
		`INSERT INTO messages VALUES (4, 'sess-a', 3, 'tool', '{"tool_call_id":"call-2","text":"pager unreachable","is_error":true}', '2026-06-12T09:00:03Z')`,
		`INSERT INTO messages VALUES (5, 'sess-a', 4, 'assistant', '{"text":"The reactor pressure is 4.2 bar."}', '2026-06-12T09:00:05Z')`,
		`INSERT INTO messages VALUES (6, 'sess-a', NULL, 'assistant', '{"text": "broken', '2026-06-12T09:00:06Z')`,
		`INSERT INTO messages VALUES (7, 'sess-b', 7, 'user', '"restart the pump"', '2026-06-12T10:00:00Z')`,
		`INSERT INTO messages VALUES (8, 'sess-b', NULL, 'narrator', '{"text":"the pump hums","mood":"calm"}', '2026-06-12T10:00:01Z')`,
	} {
		srcExec(t, db, q)
	}
}

func TestLaniusSessionsBecomeChats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lanius.db")
	laniusDB(t, path)
	if !srcFormat(t, "lanius").Detect(path, []byte("SQLite format 3\x00")) {
		t.Fatal("a lanius database is not detected")
	}
	for _, other := range []string{"llm", "loomcycle", "tau"} {
		if srcFormat(t, other).Detect(path, []byte("SQLite format 3\x00")) {
			t.Errorf("format %s claims a lanius database", other)
		}
	}
	p := srcParse(t, "lanius", path)
	if len(p.Chats) != 3 {
		t.Fatalf("got %d chats, want 3 (two sessions and the ledger)", len(p.Chats))
	}
	a := srcChat(t, p, "lanius:sess-a")
	if a.AgentID != "main" || a.Attributes["source"] != "lanius" {
		t.Errorf("session chat: got agent %q attributes %v", a.AgentID, a.Attributes)
	}
	if b := srcChat(t, p, "lanius:sess-b"); b.AgentID != "ops" {
		t.Errorf("agent of sess-b: got %q", b.AgentID)
	}
	es := p.Entries["lanius:sess-a"]
	// Every event lives in the ledger, so the session holds its messages only.
	srcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 3, annals.KindTool: 2})
	if e := srcEntry(t, es, "m1"); e.Text != "What is the reactor pressure?" || e.Channel != "in/agent/main" || e.CorrelationID != "corr-1" {
		t.Errorf("user message: got %+v", e)
	}
	if e := srcEntry(t, es, "m2"); e.Reasoning != "Need the sensor value." || e.Channel != "out/agent/main" || srcMeta(t, e)["encrypted_reasoning"] != true {
		t.Errorf("assistant message: got %+v %s", e, e.Metadata)
	}
	if e := srcEntry(t, es, "m2#1"); e.Tool.Name != "read_sensor" || e.Tool.Result != "pressure=4.2bar" || e.Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("call 1: got %+v", e.Tool)
	}
	if e := srcEntry(t, es, "m2#2"); e.Tool.Name != "page_oncall" || e.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(string(e.Tool.Arguments), "ops") {
		t.Errorf("OpenAI-shaped call 2 with a failed result: got %+v", e.Tool)
	}
	if e := srcEntry(t, es, "m6"); e.Kind != annals.KindAssistant || !strings.Contains(e.Text, "broken") {
		t.Errorf("content that is not valid JSON is kept as text: got %+v", e)
	}
	srcNoSecret(t, p, "SIGSECRET", "ENCSECRET")
	bes := p.Entries["lanius:sess-b"]
	if e := srcEntry(t, bes, "m7"); e.Kind != annals.KindUser || e.Text != "restart the pump" {
		t.Errorf("a JSON string content: got %+v", e)
	}
	if e := srcEntry(t, bes, "m8"); e.Kind != annals.KindEvent || srcMeta(t, e)["role"] != "narrator" || !strings.Contains(string(e.Metadata), "calm") {
		t.Errorf("an unknown role: want an event keeping the role and fields, got %+v %s", e, e.Metadata)
	}
	ledger := p.Entries["lanius:ledger"]
	if len(ledger) != 7 || ledger[5].ID != "e6" || ledger[5].Text != `{"message":"lanius started"}` || ledger[5].Channel != "sys/boot" {
		t.Errorf("ledger: want all 7 events in id order, payloads as stored, got %+v", ledger)
	}
	if e := srcEntry(t, ledger, "e5"); e.Kind != annals.KindEvent || e.Channel != "bus/heartbeat" || !strings.Contains(e.Text, `"alive"`) {
		t.Errorf("an event with no message: got %+v", e)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0].Message, "messages 6") {
		t.Errorf("the broken content: want one warning naming its row, got %+v", p.Warnings)
	}
	srcIdempotent(t, "lanius", path)
}

// FuzzLaniusMessage feeds arbitrary role and content into one message row.
func FuzzLaniusMessage(f *testing.F) {
	f.Add("assistant", `{"text":"x","tool_calls":[{"id":"a","function":{"arguments":"{"}},7]}`)
	f.Add("tool", `{"tool_call_id":"a","content":[{"type":"text","text":"y"}]}`)
	f.Add("user", `[{"type":"tool_use","id":"q","name":"n"},{"type":"tool_result","tool_use_id":"q"}]`)
	f.Add("assistant", `{"reasoning":[{"text":"a"},{"signature":"s"},3]}`)
	f.Add("\x01", "\xff\xfe")
	path := filepath.Join(f.TempDir(), "lanius.db")
	db := srcDB(f, path, laniusSchema...)
	srcExec(f, db, `INSERT INTO events VALUES (1, 'in/agent/x', 'c', 's', '{}', '2026-01-01T00:00:00Z')`)
	format := srcFormat(f, "lanius")
	f.Fuzz(func(t *testing.T, role, content string) {
		srcExec(t, db, `DELETE FROM messages`)
		srcExec(t, db, `INSERT INTO messages VALUES (1, 's', 1, 'assistant', '{"tool_calls":[{"id":"a","name":"n"}]}', '2026-01-01T00:00:00Z'), (2, 's', 1, ?, ?, '2026-01-01T00:00:01Z')`, role, content)
		p, err := importer.Parse(context.Background(), format, path)
		if err != nil {
			t.Fatalf("a bad message must not fail the import: %v", err)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w.Message, "not imported") {
				t.Fatalf("the parser emitted an invalid entry: %s", w.Message)
			}
		}
	})
}
