package opencode_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// The opencode.db fixture follows OpenCode's own schema (sst/opencode,
// packages/opencode/src/session/session.sql.ts, Drizzle tables session, message and part with
// Timestamps time_created/time_updated in milliseconds; data holds the message or part JSON
// without the ids that are columns). The records are of the shape OpenCode's message-v2 writes:
// a user message and its text part, an assistant message (modelID, providerID, tokens, cost,
// time) with reasoning, text, a completed tool part and a step-finish, and a sub-agent session
// (parent_id).
func openCodeDB(t testing.TB, path string) {
	db := importertest.SrcDB(t, path,
		`CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL)`,
		`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL,
			directory TEXT NOT NULL, path TEXT, title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, summary_additions INTEGER,
			summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT, cost REAL NOT NULL DEFAULT 0, tokens_input INTEGER NOT NULL DEFAULT 0,
			tokens_output INTEGER NOT NULL DEFAULT 0, revert TEXT, permission TEXT, agent TEXT, model TEXT,
			time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER)`,
		`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL)`,
		`CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL)`,
		`CREATE TABLE todo (session_id TEXT NOT NULL, content TEXT NOT NULL, status TEXT NOT NULL, priority TEXT NOT NULL, position INTEGER NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL)`)
	importertest.SrcExec(t, db, `INSERT INTO project VALUES ('prj_walrus', '/home/u/walrus', 1767225600000, 1767225600000)`)
	importertest.SrcExec(t, db, `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, share_url, time_created, time_updated) VALUES
		('ses_db1', 'prj_walrus', NULL, 'brave-walrus', '/home/u/walrus', 'Fix the walrus clock', '1.2.3', 'https://opncd.ai/s/walrus', 1767225600000, 1767225700000),
		('ses_db2', 'prj_walrus', 'ses_db1', 'calm-seal', '/home/u/walrus', 'Find the clock (@explore subagent)', '1.2.3', NULL, 1767225620000, 1767225630000)`)
	msgs := [][]any{
		{"msg_db1", "ses_db1", 1767225601000, `{"role":"user","time":{"created":1767225601000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}`},
		{"msg_db2", "ses_db1", 1767225602000, `{"role":"assistant","time":{"created":1767225602000,"completed":1767225610000},"parentID":"msg_db1","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/home/u/walrus","root":"/home/u/walrus"},"cost":0.012,"tokens":{"input":1500,"output":120,"reasoning":30,"cache":{"read":800,"write":0}},"finish":"stop"}`},
		{"msg_db3", "ses_db2", 1767225621000, `{"role":"user","time":{"created":1767225621000},"agent":"explore","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}`},
		{"msg_db4", "ses_db2", 1767225622000, `{"role":"assistant","time":{"created":1767225622000,"completed":1767225625000},"parentID":"msg_db3","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"explore","agent":"explore","path":{"cwd":"/home/u/walrus","root":"/home/u/walrus"},"cost":0.001,"tokens":{"input":300,"output":20,"reasoning":0,"cache":{"read":0,"write":0}}}`},
	}
	for _, m := range msgs {
		importertest.SrcExec(t, db, `INSERT INTO message VALUES (?, ?, ?, ?, ?)`, m[0], m[1], m[2], m[2], m[3])
	}
	parts := [][]any{
		{"prt_db01", "msg_db1", "ses_db1", `{"type":"text","text":"Why is the walrus clock an hour behind?","time":{"start":1767225601000,"end":1767225601000}}`},
		{"prt_db02", "msg_db2", "ses_db1", `{"type":"step-start","snapshot":"4b825dc6"}`},
		{"prt_db03", "msg_db2", "ses_db1", `{"type":"reasoning","text":"Hour() probably returns a zero-based value.","time":{"start":1767225603000,"end":1767225604000},"metadata":{"anthropic":{"signature":"sigblob"}}}`},
		{"prt_db04", "msg_db2", "ses_db1", `{"type":"tool","callID":"toolu_db1","tool":"read","state":{"status":"completed","input":{"filePath":"/home/u/walrus/clock.go"},"output":"<file>\n00001| func Hour() int { return 11 }\n</file>","title":"clock.go","metadata":{},"time":{"start":1767225605000,"end":1767225606000}}}`},
		{"prt_db05", "msg_db2", "ses_db1", `{"type":"text","text":"Hour returns 11 where it should return 12.","time":{"start":1767225607000,"end":1767225609000}}`},
		{"prt_db06", "msg_db2", "ses_db1", `{"type":"step-finish","reason":"stop","snapshot":"4b825dc6","cost":0.012,"tokens":{"input":1500,"output":120,"reasoning":30,"cache":{"read":800,"write":0}}}`},
		{"prt_db07", "msg_db3", "ses_db2", `{"type":"text","text":"Find where the clock is defined"}`},
		{"prt_db08", "msg_db4", "ses_db2", `{"type":"text","text":"In clock.go."}`},
	}
	for _, p := range parts {
		importertest.SrcExec(t, db, `INSERT INTO part VALUES (?, ?, ?, 1767225600000, 1767225600000, ?)`, p...)
	}
}

func TestOpenCodeDatabaseIsStoredLikeTheFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".local", "share", "opencode", "opencode.db")
	importertest.WriteFile(t, path, nil)
	openCodeDB(t, path)
	var claims []string
	for _, f := range importer.Formats() {
		if f.Detect(path, importertest.Head(t, path)) {
			claims = append(claims, f.Name())
		}
	}
	if strings.Join(claims, ",") != "opencode" {
		t.Fatalf("opencode.db claimed by %v, want opencode only", claims)
	}
	c, es, rs := importertest.StoredChat(t, openDB(t), "opencode:ses_db1", []string{"opencode"}, path)
	if c.Title != "Fix the walrus clock" || c.Attributes["cwd"] != "/home/u/walrus" || c.Attributes["model"] != "claude-sonnet-4-5" || c.Attributes["share_url"] != "https://opncd.ai/s/walrus" {
		t.Errorf("chat %q %v", c.Title, c.Attributes)
	}
	want := map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 2, annals.KindTool: 1}
	if got := importertest.Kinds(es); len(got) != len(want) || got[annals.KindUser] != 1 || got[annals.KindAssistant] != 2 || got[annals.KindTool] != 1 {
		t.Errorf("entries by kind %v, want %v", got, want)
	}
	for _, e := range es {
		if e.Tool != nil && (e.Tool.Name != "read" || e.Tool.Outcome != annals.OutcomeSucceeded || !strings.Contains(e.Tool.Result, "return 11")) {
			t.Errorf("tool %+v, want the completed read with its output", e.Tool)
		}
		if strings.Contains(string(e.Metadata), "sigblob") {
			t.Errorf("entry %s keeps the reasoning signature", e.ID)
		}
	}
	if es[0].ID != "prt_db01" || es[0].SourceIDs[0] != "msg_db1" {
		t.Errorf("first entry %s %v, want the part id and its message id", es[0].ID, es[0].SourceIDs)
	}
	if len(rs) != 1 || rs[0].InputTokens != 2300 || rs[0].OutputTokens != 150 {
		t.Errorf("runs %+v, want one with 1500+800 in and 120+30 out", rs)
	}
	child, ces, _ := importertest.StoredChat(t, openDB(t), "opencode:ses_db2", []string{"opencode"}, path)
	if child.Attributes["parent"] != "opencode:ses_db1" || len(ces) != 2 {
		t.Errorf("sub-agent session %v with %d entries", child.Attributes, len(ces))
	}
}

// The flat layout keeps every part as storage/part/<part id>.json naming its messageID, with
// no folder per message (the part files of the fixture are of OpenCode's storage shape, as in
// testdata/opencode/storage). Its text and tool parts are read.
func TestOpenCodeFlatPartLayoutKeepsTextAndToolParts(t *testing.T) {
	root := filepath.Join(t.TempDir(), "storage")
	files := map[string]string{
		"session/prj_1/ses_flat.json":  `{"id":"ses_flat","projectID":"prj_1","directory":"/home/u/otter","title":"Otter tests","version":"0.3.10","time":{"created":1750000000000,"updated":1750000100000}}`,
		"message/ses_flat/msg_f1.json": `{"id":"msg_f1","sessionID":"ses_flat","role":"user","time":{"created":1750000001000}}`,
		"message/ses_flat/msg_f2.json": `{"id":"msg_f2","sessionID":"ses_flat","role":"assistant","modelID":"gpt-5","providerID":"openai","time":{"created":1750000002000,"completed":1750000009000},"tokens":{"input":900,"output":60,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0}`,
		"part/prt_f1.json":             `{"id":"prt_f1","sessionID":"ses_flat","messageID":"msg_f1","type":"text","text":"Run the otter tests"}`,
		"part/prt_f2.json":             `{"id":"prt_f2","sessionID":"ses_flat","messageID":"msg_f2","type":"tool","callID":"call_f1","tool":"bash","state":{"status":"completed","input":{"command":"go test ./otter"},"output":"ok  otter 0.2s","metadata":{"exit":0}}}`,
		"part/prt_f3.json":             `{"id":"prt_f3","sessionID":"ses_flat","messageID":"msg_f2","type":"text","text":"The otter tests pass."}`,
	}
	for name, body := range files {
		importertest.WriteFile(t, filepath.Join(root, name), []byte(body))
	}
	_, es, _ := importertest.StoredChat(t, openDB(t), "opencode:ses_flat", []string{"opencode"}, root)
	if len(es) != 3 || es[0].Text != "Run the otter tests" || es[1].Tool == nil || es[1].Tool.Result != "ok  otter 0.2s" || es[2].Text != "The otter tests pass." {
		for _, e := range es {
			t.Logf("%s %s %q %+v", e.ID, e.Kind, e.Text, e.Tool)
		}
		t.Fatalf("%d entries, want the prompt, the bash call with its output and the reply", len(es))
	}
	if es[1].Tool.Outcome != annals.OutcomeSucceeded || es[2].Kind != annals.KindAssistant {
		t.Errorf("tool %+v, reply %s", es[1].Tool, es[2].Kind)
	}
}

// A session imported from storage/ and again from opencode.db (OpenCode keeps the ids when it
// migrates) is one chat with its entries once.
func TestOpenCodeStorageAndDatabaseOfOneSessionAreOneChat(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "opencode.db")
	importertest.WriteFile(t, dbPath, nil)
	openCodeDB(t, dbPath)
	root := filepath.Join(dir, "storage")
	importertest.WriteFile(t, filepath.Join(root, "session", "prj_walrus", "ses_db1.json"), []byte(`{"id":"ses_db1","projectID":"prj_walrus","directory":"/home/u/walrus","title":"Fix the walrus clock","version":"1.1.0","time":{"created":1767225600000,"updated":1767225700000}}`))
	importertest.WriteFile(t, filepath.Join(root, "message", "ses_db1", "msg_db1.json"), []byte(`{"id":"msg_db1","sessionID":"ses_db1","role":"user","time":{"created":1767225601000}}`))
	importertest.WriteFile(t, filepath.Join(root, "part", "msg_db1", "prt_db01.json"), []byte(`{"id":"prt_db01","sessionID":"ses_db1","messageID":"msg_db1","type":"text","text":"Why is the walrus clock an hour behind?","time":{"start":1767225601000,"end":1767225601000}}`))
	db := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(db, importertest.ImporterOptionsFor(t, "opencode")), root, dbPath)
	es, err := db.FindEntries(context.Background(), annals.EntryFilter{ChatID: "opencode:ses_db1"})
	if err != nil || len(es) != 4 {
		t.Fatalf("%d entries (%v), want the 4 of the session once", len(es), err)
	}
}
