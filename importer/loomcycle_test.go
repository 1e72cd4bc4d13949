package importer_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

// loomcycleSchema is the loomcycle schema docs/IMPORT.md documents: the sessions table with the
// human layer of migration 0057, runs, and the events runs record.
var loomcycleSchema = []string{
	`CREATE TABLE sessions (id TEXT PRIMARY KEY, tenant_id TEXT, user_id TEXT, agent TEXT, created_at TEXT, updated_at TEXT,
		title TEXT, description TEXT, tags TEXT, pinned INTEGER NOT NULL DEFAULT 0, archived_at TEXT, summary TEXT, summary_updated_at TEXT)`,
	`CREATE TABLE runs (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, agent TEXT, status TEXT, model TEXT, started_at TEXT, ended_at TEXT,
		input_tokens INTEGER, output_tokens INTEGER, cost_usd REAL)`,
	`CREATE TABLE events (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT, created_at TEXT)`,
}

func loomcycleDB(t testing.TB, path string) {
	db := srcDB(t, path, loomcycleSchema...)
	for _, q := range []string{
		`INSERT INTO sessions VALUES ('s1', 'acme', 'sam', 'support-triage', '2026-07-01T09:00:00Z', '2026-07-02T09:00:00Z',
			'Refund for order 1234', 'Customer asked twice.', '["project:jobember","quote\"d"]', 1, '2026-07-03T00:00:00Z',
			'The customer wants a refund; awaiting approval.', '2026-07-02T12:00:00Z')`,
		`INSERT INTO sessions (id, tenant_id, created_at, title) VALUES ('s2', '', '2026-07-05T00:00:00Z', 'dev mode chat')`,
		// Inserted out of order: events follow their run's start, then seq.
		`INSERT INTO runs VALUES ('r2', 's1', 'support-triage', 'awaiting_input', 'claude-sonnet-4', '2026-07-02T09:00:00Z', NULL, 50, 10, 0.001)`,
		`INSERT INTO runs VALUES ('r1', 's1', 'support-triage', 'completed', 'claude-sonnet-4', '2026-07-01T09:00:00Z', '2026-07-01T09:01:00Z', 1200, 300, 0.02)`,
		`INSERT INTO events VALUES (1, 'r2', 1, 'user_message', '{"text":"Any news on my refund?"}', '2026-07-02T09:00:00Z')`,
		`INSERT INTO events VALUES (2, 'r2', 2, 'compaction', '{"summary":"Earlier: refund for order 1234 requested."}', '2026-07-02T09:00:01Z')`,
		`INSERT INTO events VALUES (3, 'r2', 4, 'assistant_message', '{"text":"It is waiting for approval."}', '2026-07-02T09:00:03Z')`,
		`INSERT INTO events VALUES (4, 'r2', 3, 'channel.publish', '{"channel":"billing","message":"approval requested"}', '2026-07-02T09:00:02Z')`,
		`INSERT INTO events VALUES (5, 'r1', 1, 'user_message', '{"text":"I want a refund for order 1234."}', '2026-07-01T09:00:00Z')`,
		`INSERT INTO events VALUES (6, 'r1', 2, 'reasoning', '{"text":"Look the order up first.","signature":"SIGSECRET"}', '2026-07-01T09:00:01Z')`,
		`INSERT INTO events VALUES (7, 'r1', 3, 'tool_call', '{"id":"tc1","name":"lookup_order","input":{"order":1234}}', '2026-07-01T09:00:02Z')`,
		`INSERT INTO events VALUES (8, 'r1', 4, 'tool_result', '{"tool_call_id":"tc1","output":"order 1234: shipped","status":"ok"}', '2026-07-01T09:00:03Z')`,
		`INSERT INTO events VALUES (9, 'r1', 5, 'tool_call', '{"id":"tc2","name":"issue_refund","input":{"order":1234}}', '2026-07-01T09:00:04Z')`,
		`INSERT INTO events VALUES (10, 'r1', 6, 'tool_result', '{"tool_call_id":"tc2","output":"needs approval","status":"blocked"}', '2026-07-01T09:00:05Z')`,
		`INSERT INTO events VALUES (11, 'r1', 7, 'assistant_message', '{"text":"I have asked for approval of the refund."}', '2026-07-01T09:00:06Z')`,
		`INSERT INTO events VALUES (12, 'r-gone', 1, 'user_message', '{"text":"orphan"}', '2026-07-01T09:00:06Z')`,
	} {
		srcExec(t, db, q)
	}
}

func TestLoomcycleSessionsKeepTheirOwnerAndHumanLayer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loomcycle.db")
	loomcycleDB(t, path)
	if !srcFormat(t, "loomcycle").Detect(path, []byte("SQLite format 3\x00")) {
		t.Fatal("a loomcycle database is not detected")
	}
	p := srcParse(t, "loomcycle", path)
	if len(p.Chats) != 2 {
		t.Fatalf("got %d chats, want 2", len(p.Chats))
	}
	c := srcChat(t, p, "loomcycle:s1")
	if c.TenantID != "acme" || c.UserID != "sam" || c.AgentID != "support-triage" {
		t.Errorf("owner: got tenant %q user %q agent %q", c.TenantID, c.UserID, c.AgentID)
	}
	if c.Title != "Refund for order 1234" || c.Description != "Customer asked twice." || strings.Join(c.Tags, "|") != `project:jobember|quote"d` {
		t.Errorf("human layer: got title %q description %q tags %q", c.Title, c.Description, c.Tags)
	}
	if !c.Pinned || c.ArchivedAt == nil || c.Summary == "" || c.SummaryUpdatedAt == nil {
		t.Errorf("pinned/archived/summary are carried on the chat: got %+v", c)
	}
	if s2 := srcChat(t, p, "loomcycle:s2"); s2.TenantID != "local" {
		t.Errorf("a session without a tenant lands in the local tenant: got %q", s2.TenantID)
	}

	es := p.Entries["loomcycle:s1"]
	var order []string
	for _, e := range es {
		order = append(order, e.ID)
	}
	if got, want := strings.Join(order, " "), "ev5 ev6 ev7 ev9 ev11 ev1 ev2 ev4 ev3"; got != want {
		t.Errorf("order (by run start, then seq):\n got %s\nwant %s", got, want)
	}
	srcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 3, annals.KindTool: 2, annals.KindSystem: 1, annals.KindEvent: 1})
	if e := srcEntry(t, es, "ev6"); e.Reasoning != "Look the order up first." || e.RunID != "loomcycle:r1" {
		t.Errorf("reasoning: got %+v", e)
	}
	srcNoSecret(t, p, "SIGSECRET")
	if e := srcEntry(t, es, "ev7"); e.Tool.Result != "order 1234: shipped" || e.Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("lookup call: got %+v", e.Tool)
	}
	if e := srcEntry(t, es, "ev9"); e.Tool.Outcome != annals.OutcomeBlocked {
		t.Errorf("blocked call: got %+v", e.Tool)
	}
	if e := srcEntry(t, es, "ev2"); e.Kind != annals.KindSystem || srcMeta(t, e)["compaction"] != true {
		t.Errorf("compaction: got %+v %s", e, e.Metadata)
	}
	if e := srcEntry(t, es, "ev4"); e.Channel != "loomcycle/channel/publish" || e.Text != "approval requested" || !strings.Contains(string(e.Metadata), "billing") {
		t.Errorf("other event type: got %+v %s", e, e.Metadata)
	}
	runs := srcRuns(p)
	if r := runs["loomcycle:r1"]; r == nil || r.Status != annals.StatusCompleted || r.InputTokens != 1200 || r.CostUSD != 0.02 || r.EndedAt == nil {
		t.Errorf("run r1: got %+v", r)
	}
	if r := runs["loomcycle:r2"]; r == nil || r.Status != annals.StatusAwaitingInput {
		t.Errorf("run r2: got %+v", r)
	}
	var orphan bool
	for _, w := range p.Warnings {
		orphan = orphan || strings.Contains(w.Message, "events row 12")
	}
	if !orphan {
		t.Errorf("the event of an unknown run is not reported: %+v", p.Warnings)
	}
	srcIdempotent(t, "loomcycle", path)
}

// FuzzLoomcycleEvent feeds arbitrary type and payload into one event.
func FuzzLoomcycleEvent(f *testing.F) {
	f.Add("tool_result", `{"tool_call_id":"a","output":{"x":1},"status":"error"}`)
	f.Add("tool_call", `{"id":"b","name":"","arguments":"{bad"}`)
	f.Add("reasoning", `{"text":1}`)
	f.Add("message", `"just a string"`)
	f.Add("\x00.\x01", `not json`)
	f.Add("user_input", `[{"role":"system","content":[{"type":"trusted-text","text":"p"}]},{"role":"user","content":[{"type":"image","media_type":"image/png","data":"AA=="}]}]`)
	f.Add("tool_call", `{"type":"tool_call","tool_use":{"id":"a","name":"n","input":"{bad"}}`)
	f.Add("tool_result", `{"type":"tool_result","tool_use":{"id":"a"},"text":"ok","is_error":true}`)
	f.Add("done", `{"type":"done","reasoning":"r","reasoning_signature":"s"}`)
	f.Add("steer", `{"type":"steer","user_input":{"text":1}}`)
	f.Add("context_recap", `{"context_recap":{"recap":null}}`)
	f.Add("text", `{"type":"text","text":"\ud800"}`)
	path := filepath.Join(f.TempDir(), "loomcycle.db")
	db := srcDB(f, path, loomcycleSchema...)
	srcExec(f, db, `INSERT INTO sessions (id, tenant_id) VALUES ('s', 't')`)
	srcExec(f, db, `INSERT INTO runs (id, session_id, status) VALUES ('r', 's', 'weird')`)
	srcExec(f, db, `INSERT INTO events VALUES (1, 'r', 1, 'tool_call', '{"id":"a","name":"n"}', NULL)`)
	format := srcFormat(f, "loomcycle")
	f.Fuzz(func(t *testing.T, typ, payload string) {
		srcExec(t, db, `DELETE FROM events WHERE id = 2`)
		srcExec(t, db, `INSERT INTO events VALUES (2, 'r', 2, ?, ?, '2026-01-01T00:00:00Z')`, typ, payload)
		p, err := importer.Parse(context.Background(), format, path)
		if err != nil {
			t.Fatalf("a bad event must not fail the import: %v", err)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w.Message, "not imported") {
				t.Fatalf("the parser emitted an invalid entry: %s", w.Message)
			}
		}
	})
}
