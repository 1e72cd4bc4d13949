package loomcycle_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

func TestLoomcycleSessionsKeepTheirOwnerAndHumanLayer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loomcycle.db")
	importertest.LoomcycleDB(t, path)
	if !importertest.SrcFormat(t, "loomcycle").Detect(path, []byte("SQLite format 3\x00")) {
		t.Fatal("a loomcycle database is not detected")
	}
	p := importertest.SrcParse(t, "loomcycle", path)
	if len(p.Chats) != 2 {
		t.Fatalf("got %d chats, want 2", len(p.Chats))
	}
	c := importertest.SrcChat(t, p, "loomcycle:s1")
	if c.TenantID != "acme" || c.UserID != "sam" || c.AgentID != "support-triage" {
		t.Errorf("owner: got tenant %q user %q agent %q", c.TenantID, c.UserID, c.AgentID)
	}
	if c.Title != "Refund for order 1234" || c.Description != "Customer asked twice." || strings.Join(c.Tags, "|") != `project:jobember|quote"d` {
		t.Errorf("human layer: got title %q description %q tags %q", c.Title, c.Description, c.Tags)
	}
	if !c.Pinned || c.ArchivedAt == nil || c.Summary == "" || c.SummaryUpdatedAt == nil {
		t.Errorf("pinned/archived/summary are carried on the chat: got %+v", c)
	}
	if s2 := importertest.SrcChat(t, p, "loomcycle:s2"); s2.TenantID != "local" {
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
	importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 3, annals.KindTool: 2, annals.KindSystem: 1, annals.KindEvent: 1})
	if e := importertest.SrcEntry(t, es, "ev6"); e.Reasoning != "Look the order up first." || e.RunID != "loomcycle:r1" {
		t.Errorf("reasoning: got %+v", e)
	}
	importertest.SrcNoSecret(t, p, "SIGSECRET")
	if e := importertest.SrcEntry(t, es, "ev7"); e.Tool.Result != "order 1234: shipped" || e.Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("lookup call: got %+v", e.Tool)
	}
	if e := importertest.SrcEntry(t, es, "ev9"); e.Tool.Outcome != annals.OutcomeBlocked {
		t.Errorf("blocked call: got %+v", e.Tool)
	}
	if e := importertest.SrcEntry(t, es, "ev2"); e.Kind != annals.KindSystem || importertest.SrcMeta(t, e)["compaction"] != true {
		t.Errorf("compaction: got %+v %s", e, e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "ev4"); e.Channel != "loomcycle/channel/publish" || e.Text != "approval requested" || !strings.Contains(string(e.Metadata), "billing") {
		t.Errorf("other event type: got %+v %s", e, e.Metadata)
	}
	runs := importertest.SrcRuns(p)
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
	importertest.SrcIdempotent(t, "loomcycle", path)
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
	db := importertest.SrcDB(f, path, importertest.LoomcycleSchema...)
	importertest.SrcExec(f, db, `INSERT INTO sessions (id, tenant_id) VALUES ('s', 't')`)
	importertest.SrcExec(f, db, `INSERT INTO runs (id, session_id, status) VALUES ('r', 's', 'weird')`)
	importertest.SrcExec(f, db, `INSERT INTO events VALUES (1, 'r', 1, 'tool_call', '{"id":"a","name":"n"}', NULL)`)
	format := importertest.SrcFormat(f, "loomcycle")
	f.Fuzz(func(t *testing.T, typ, payload string) {
		importertest.SrcExec(t, db, `DELETE FROM events WHERE id = 2`)
		importertest.SrcExec(t, db, `INSERT INTO events VALUES (2, 'r', 2, ?, ?, '2026-01-01T00:00:00Z')`, typ, payload)
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
