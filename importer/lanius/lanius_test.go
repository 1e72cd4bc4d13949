package lanius_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

func TestLaniusSessionsBecomeChats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lanius.db")
	importertest.LaniusDB(t, path)
	if !importertest.SrcFormat(t, "lanius").Detect(path, []byte("SQLite format 3\x00")) {
		t.Fatal("a lanius database is not detected")
	}
	for _, other := range []string{"llm", "loomcycle", "tau"} {
		if importertest.SrcFormat(t, other).Detect(path, []byte("SQLite format 3\x00")) {
			t.Errorf("format %s claims a lanius database", other)
		}
	}
	p := importertest.SrcParse(t, "lanius", path)
	if len(p.Chats) != 3 {
		t.Fatalf("got %d chats, want 3 (two sessions and the ledger)", len(p.Chats))
	}
	a := importertest.SrcChat(t, p, "lanius:sess-a")
	if a.AgentID != "main" || a.Attributes["source"] != "lanius" {
		t.Errorf("session chat: got agent %q attributes %v", a.AgentID, a.Attributes)
	}
	if b := importertest.SrcChat(t, p, "lanius:sess-b"); b.AgentID != "ops" {
		t.Errorf("agent of sess-b: got %q", b.AgentID)
	}
	es := p.Entries["lanius:sess-a"]
	// Every event lives in the ledger, so the session holds its messages only.
	importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 3, annals.KindTool: 2})
	if e := importertest.SrcEntry(t, es, "m1"); e.Text != "What is the reactor pressure?" || e.Channel != "in/agent/main" || e.CorrelationID != "corr-1" {
		t.Errorf("user message: got %+v", e)
	}
	if e := importertest.SrcEntry(t, es, "m2"); e.Reasoning != "Need the sensor value." || e.Channel != "out/agent/main" || importertest.SrcMeta(t, e)["encrypted_reasoning"] != true {
		t.Errorf("assistant message: got %+v %s", e, e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "m2#1"); e.Tool.Name != "read_sensor" || e.Tool.Result != "pressure=4.2bar" || e.Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("call 1: got %+v", e.Tool)
	}
	if e := importertest.SrcEntry(t, es, "m2#2"); e.Tool.Name != "page_oncall" || e.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(string(e.Tool.Arguments), "ops") {
		t.Errorf("OpenAI-shaped call 2 with a failed result: got %+v", e.Tool)
	}
	if e := importertest.SrcEntry(t, es, "m6"); e.Kind != annals.KindAssistant || !strings.Contains(e.Text, "broken") {
		t.Errorf("content that is not valid JSON is kept as text: got %+v", e)
	}
	importertest.SrcNoSecret(t, p, "SIGSECRET", "ENCSECRET")
	bes := p.Entries["lanius:sess-b"]
	if e := importertest.SrcEntry(t, bes, "m7"); e.Kind != annals.KindUser || e.Text != "restart the pump" {
		t.Errorf("a JSON string content: got %+v", e)
	}
	if e := importertest.SrcEntry(t, bes, "m8"); e.Kind != annals.KindEvent || importertest.SrcMeta(t, e)["role"] != "narrator" || !strings.Contains(string(e.Metadata), "calm") {
		t.Errorf("an unknown role: want an event keeping the role and fields, got %+v %s", e, e.Metadata)
	}
	ledger := p.Entries["lanius:ledger"]
	if len(ledger) != 7 || ledger[5].ID != "e6" || ledger[5].Text != `{"message":"lanius started"}` || ledger[5].Channel != "sys/boot" {
		t.Errorf("ledger: want all 7 events in id order, payloads as stored, got %+v", ledger)
	}
	if e := importertest.SrcEntry(t, ledger, "e5"); e.Kind != annals.KindEvent || e.Channel != "bus/heartbeat" || !strings.Contains(e.Text, `"alive"`) {
		t.Errorf("an event with no message: got %+v", e)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0].Message, "messages 6") {
		t.Errorf("the broken content: want one warning naming its row, got %+v", p.Warnings)
	}
	importertest.SrcIdempotent(t, "lanius", path)
}

// FuzzLaniusMessage feeds arbitrary role and content into one message row.
func FuzzLaniusMessage(f *testing.F) {
	f.Add("assistant", `{"text":"x","tool_calls":[{"id":"a","function":{"arguments":"{"}},7]}`)
	f.Add("tool", `{"tool_call_id":"a","content":[{"type":"text","text":"y"}]}`)
	f.Add("user", `[{"type":"tool_use","id":"q","name":"n"},{"type":"tool_result","tool_use_id":"q"}]`)
	f.Add("assistant", `{"reasoning":[{"text":"a"},{"signature":"s"},3]}`)
	f.Add("\x01", "\xff\xfe")
	path := filepath.Join(f.TempDir(), "lanius.db")
	db := importertest.SrcDB(f, path, importertest.LaniusSchema...)
	importertest.SrcExec(f, db, `INSERT INTO events VALUES (1, 'in/agent/x', 'c', 's', '{}', '2026-01-01T00:00:00Z')`)
	format := importertest.SrcFormat(f, "lanius")
	f.Fuzz(func(t *testing.T, role, content string) {
		importertest.SrcExec(t, db, `DELETE FROM messages`)
		importertest.SrcExec(t, db, `INSERT INTO messages VALUES (1, 's', 1, 'assistant', '{"tool_calls":[{"id":"a","name":"n"}]}', '2026-01-01T00:00:00Z'), (2, 's', 1, ?, ?, '2026-01-01T00:00:01Z')`, role, content)
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
