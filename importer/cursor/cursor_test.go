package cursor_test

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

func TestCursorTranscriptMapsBlocks(t *testing.T) {
	p := importertest.SrcParse(t, "cursor", importertest.CursorFixture)
	id := "cursor:7c1d0a52-1111-4222-8333-444455556666"
	c := importertest.SrcChat(t, p, id)
	if c.Attributes["project"] != "home-u-repo" || c.Attributes["source"] != "cursor" {
		t.Errorf("attributes: got %v", c.Attributes)
	}
	es := p.Entries[id]
	importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 5, annals.KindTool: 3, annals.KindEvent: 1})
	if e := importertest.SrcEntry(t, es, "L1#0"); e.Text != "Why is the build slow?" || importertest.SrcMeta(t, e)["wrapped_in"] != "user_query" {
		t.Errorf("user query: want the text unwrapped, got %q %s", e.Text, e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "L2#0"); e.Reasoning != "Probably the Docker layer cache." || importertest.SrcMeta(t, e)["encrypted_reasoning"] != true {
		t.Errorf("thinking block: got %q %s", e.Reasoning, e.Metadata)
	}
	read := importertest.SrcEntry(t, es, "L2#2")
	if read.Tool.CallID != "toolu_01" || read.Tool.Outcome != annals.OutcomeSucceeded || !strings.Contains(read.Tool.Result, "FROM golang") {
		t.Errorf("tool_use linked to the next line's tool_result: got %+v", read.Tool)
	}
	if e := importertest.SrcEntry(t, es, "L4#0"); e.Text != "" || importertest.SrcMeta(t, e)["redacted"] != true {
		t.Errorf("[REDACTED]: want a marked entry without the marker as text, got %q %s", e.Text, e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "L4#1"); e.Tool.Name != "Shell" || e.Tool.CallID != "" || e.Tool.Outcome != "" {
		t.Errorf("a call without id (Cursor records no result for it): got %+v", e.Tool)
	}
	if e := importertest.SrcEntry(t, es, "L6#0"); e.Tool.Outcome != annals.OutcomeFailed || e.Tool.Result != "exit status 1" {
		t.Errorf("is_error result: got %+v", e.Tool)
	}
	if e := importertest.SrcEntry(t, es, "L8#0"); importertest.SrcMeta(t, e)["redacted_thinking"] != true {
		t.Errorf("redacted_thinking: got %s", e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "L8#2"); e.Kind != annals.KindEvent || strings.Contains(string(e.Metadata)+e.Text, "iVBOR") {
		t.Errorf("image block: want an event without its bytes, got %+v %s", e, e.Metadata)
	}
	importertest.SrcNoSecret(t, p, "EqQBsecret", "ZW5jcnlwdGVk")
	if len(p.Warnings) != 1 || p.Warnings[0].Line != 5 {
		t.Errorf("the corrupt line: want one warning at line 5, got %+v", p.Warnings)
	}
}

func TestCursorSubagentTranscriptPointsToItsParent(t *testing.T) {
	p := importertest.SrcParse(t, "cursor", importertest.CursorSub)
	c := importertest.SrcChat(t, p, "cursor:9a9a9a9a-0000-4000-8000-000000000001")
	if c.Attributes["parent"] != "cursor:7c1d0a52-1111-4222-8333-444455556666" {
		t.Errorf("parent: got %q", c.Attributes["parent"])
	}
	importertest.SrcWantText(t, p, "List the Dockerfiles in the repo.", "There is one: ./Dockerfile.")
}

func TestCursorDetect(t *testing.T) {
	f := importertest.SrcFormat(t, "cursor")
	head, err := os.ReadFile(importertest.CursorFixture)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Detect(importertest.CursorFixture, head) {
		t.Error("a transcript is not detected")
	}
	if f.Detect("x.jsonl", []byte(`{"type":"session.start","data":{}}`)) {
		t.Error("a Copilot file is claimed")
	}
}

func TestCursorReimportIsIdempotent(t *testing.T) {
	importertest.SrcIdempotent(t, "cursor", importertest.CursorFixture)
}

func TestCursorStoreOrdersMessagesByTheRootBlob(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	importertest.CursorStoreDB(t, path, []string{
		`{"role":"system","content":"You are a coding agent."}`,
		`{"role":"user","id":"u1","content":[{"type":"text","text":"<user_query>\nspeed up the docker build\n</user_query>"}]}`,
		`{"role":"assistant","id":"a1","content":[{"type":"reasoning","text":"Check the layer order.","providerOptions":{"anthropic":{"signature":"SIGSECRET"}}},{"type":"tool-call","toolCallId":"tc1","toolName":"read_file","args":{"path":"Dockerfile"}}]}`,
		`{"role":"tool","id":"t1","content":[{"type":"tool-result","toolCallId":"tc1","toolName":"read_file","result":"FROM golang\nCOPY . ."}]}`,
		`{"role":"assistant","id":"a2","content":[{"type":"text","text":"Copy go.mod first, then download modules."}]}`,
	}, []int{0, 1, 2, 3, 4})
	p := importertest.SrcParse(t, "cursor-store", path)
	id := "cursor-store:11111111-2222-4333-8444-555555555555"
	c := importertest.SrcChat(t, p, id)
	if c.Attributes["model"] != "gpt-5" || p.ChatTitles[id] != "Speed up the build" || c.CreatedAt.UnixMilli() != 1775522590321 {
		t.Errorf("chat: got %+v title %q", c, p.ChatTitles[id])
	}
	es := p.Entries[id]
	var order []string
	for _, e := range es {
		order = append(order, e.ID)
	}
	if got := strings.Join(order, " "); !strings.HasSuffix(got, "u1#0 a1#0 a1#1 a2#0") {
		t.Errorf("order: got %s", got)
	}
	if e := importertest.SrcEntry(t, es, "a1#1"); e.Tool.Result != "FROM golang\nCOPY . ." || e.Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("tool call linked to the tool message: got %+v", e.Tool)
	}
	if e := importertest.SrcEntry(t, es, "u1#0"); e.Text != "speed up the docker build" {
		t.Errorf("user text: got %q", e.Text)
	}
	importertest.SrcNoSecret(t, p, "SIGSECRET")
	importertest.SrcIdempotent(t, "cursor-store", path)
}

// A store.db whose blobs hold no message (this one has none at all) makes no chat: an empty
// chat with only a name is no history (issue 13: no chat empty).
func TestCursorStoreCorpus(t *testing.T) {
	p := importertest.SrcParse(t, "cursor-store", importertest.SrcCorpusPath(t, "cursor/jazzyalex__cli_store.db"))
	if len(p.Chats) != 0 || len(p.Warnings) != 0 {
		t.Errorf("empty store: got chats %+v, warnings %v; want none", p.Chats, p.Warnings)
	}
}

func TestCursorCorpus(t *testing.T) {
	t.Run("test-session", func(t *testing.T) {
		p := importertest.SrcParse(t, "cursor", importertest.SrcCorpusPath(t, "cursor/jazzyalex__agent-transcript_test-session.jsonl"))
		if len(p.Chats) != 1 {
			t.Fatalf("got %d chats", len(p.Chats))
		}
		es := p.Entries[p.Chats[0].ID]
		importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 4, annals.KindTool: 2})
		importertest.SrcWantText(t, p, "run ls command", "now show me the git status", "Running the ls command for you.", "drwxrwxrwt", "git status", "no uncommitted changes")
	})
	t.Run("subagent-session", func(t *testing.T) {
		p := importertest.SrcParse(t, "cursor", importertest.SrcCorpusPath(t, "cursor/jazzyalex__agent-transcript_subagent-session.jsonl"))
		es := p.Entries[p.Chats[0].ID]
		importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 1, annals.KindTool: 1})
		importertest.SrcWantText(t, p, "Run ls -la in the workspace directory and return the output.", "Done. The directory has 12 entries.", "List workspace files")
	})
}

func FuzzCursorLine(f *testing.F) {
	data, err := os.ReadFile(importertest.CursorFixture)
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		f.Add([]byte(l))
	}
	f.Add([]byte(`{"role":"user","message":{"content":"plain"}}`))
	f.Add([]byte(`{"role":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","content":[1,{"text":2}]}]}}`))
	lp := importertest.SrcFormat(f, "cursor").(importer.LineParser)
	f.Fuzz(func(t *testing.T, line []byte) {
		in := append(append([]byte(`{"role":"assistant","message":{"content":[{"type":"tool_use","id":"x","name":"n","input":{}}]}}`+"\n"), line...), '\n')
		p, err := importer.ParseBytes(context.Background(), lp, "t.jsonl", in)
		if err != nil {
			t.Fatalf("a bad line must be a warning, not an error: %v", err)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w.Message, "not imported") {
				t.Fatalf("the parser emitted an invalid entry: %s", w.Message)
			}
		}
	})
}

// FuzzCursorStoreBlob feeds arbitrary bytes as a message blob and as the root blob.
func FuzzCursorStoreBlob(f *testing.F) {
	f.Add([]byte(`{"role":"assistant","content":[{"type":"tool-call","toolCallId":"a","args":"{}"}]}`), []byte{0x0a, 0x20})
	f.Add([]byte(`{"role":"user","content":"hi"}`), []byte{0xff, 0xff, 0xff})
	f.Add([]byte(`{"role":7}`), []byte{0x12, 0x05, 0x0a, 0x03, 1, 2, 3})
	path := filepath.Join(f.TempDir(), "store.db")
	db := importertest.SrcDB(f, path, `CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)`, `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)`)
	importertest.SrcExec(f, db, `INSERT INTO meta VALUES ('0', ?)`, hex.EncodeToString([]byte(`{"agentId":"x","latestRootBlobId":"root"}`)))
	format := importertest.SrcFormat(f, "cursor-store")
	f.Fuzz(func(t *testing.T, msg, root []byte) {
		importertest.SrcExec(t, db, `DELETE FROM blobs`)
		importertest.SrcExec(t, db, `INSERT INTO blobs VALUES ('m', ?), ('root', ?)`, msg, root)
		p, err := importer.Parse(context.Background(), format, path)
		if err != nil {
			t.Fatalf("a bad blob must be a warning, not an error: %v", err)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w.Message, "not imported") {
				t.Fatalf("the parser emitted an invalid entry: %s", w.Message)
			}
		}
	})
}
