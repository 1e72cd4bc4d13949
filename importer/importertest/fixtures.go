package importertest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

// StoredChat imports paths with the named formats into db (a fresh store) and returns the chat
// with id, its entries and runs.
func StoredChat(tb testing.TB, db DB, id string, formats []string, paths ...string) (*annals.Chat, []*annals.Entry, []*annals.Run) {
	tb.Helper()
	ImportAll(tb, NewImporter(db, importer.Options{Formats: FormatsNamed(tb, formats...)}), paths...)
	ctx := context.Background()
	c, err := db.FindChatByID(ctx, id)
	if err != nil {
		tb.Fatalf("chat %s: %v", id, err)
	}
	es, err := db.FindEntries(ctx, annals.EntryFilter{ChatID: id})
	if err != nil {
		tb.Fatal(err)
	}
	rs, err := db.FindRuns(ctx, id)
	if err != nil {
		tb.Fatal(err)
	}
	return c, es, rs
}

const CopilotFixture = "testdata/copilot-cli/session-state/0f1e2d3c-aaaa-4bbb-8ccc-123456789abc/events.jsonl"

func Head(tb testing.TB, path string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if len(data) > importer.HeadSize {
		data = data[:importer.HeadSize]
	}
	return data
}

const CursorFixture = cursorDir + "/7c1d0a52-1111-4222-8333-444455556666.jsonl"

const CursorSub = cursorDir + "/subagents/9a9a9a9a-0000-4000-8000-000000000001.jsonl"

// CursorStoreDB builds a Cursor CLI store.db: meta row 0 as hex JSON, message blobs as JSON keyed
// by their SHA-256, a protobuf root blob listing them, and a non-JSON blob.
func CursorStoreDB(t testing.TB, path string, msgs []string, rootOrder []int) {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		sum := sha256.Sum256([]byte(m))
		ids[i] = hex.EncodeToString(sum[:])
	}
	var root []byte
	for _, i := range rootOrder {
		sum, _ := hex.DecodeString(ids[i])
		root = append(root, 0x0a, 32) // field 1, length-delimited, 32 bytes
		root = append(root, sum...)
	}
	root = append(root, 0x10, 0x07) // field 2, varint: not a reference
	rootID := "00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff"
	meta := `{"agentId":"11111111-2222-4333-8444-555555555555","name":"Speed up the build","mode":"default","createdAt":1775522590321,"lastUsedModel":"gpt-5","latestRootBlobId":"` + rootID + `"}`
	db := SrcDB(t, path, `CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)`, `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)`)
	SrcExec(t, db, `INSERT INTO meta VALUES ('0', ?)`, hex.EncodeToString([]byte(meta)))
	// Written in reverse, so only the root gives the right order.
	for i := len(msgs) - 1; i >= 0; i-- {
		SrcExec(t, db, `INSERT INTO blobs VALUES (?, ?)`, ids[i], []byte(msgs[i]))
	}
	SrcExec(t, db, `INSERT INTO blobs VALUES (?, ?)`, rootID, root)
	SrcExec(t, db, `INSERT INTO blobs VALUES ('beef', ?)`, []byte{0x0a, 0x03, 0x01, 0x02, 0x03})
}

func LaniusDB(t testing.TB, path string) {
	db := SrcDB(t, path, LaniusSchema...)
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
		SrcExec(t, db, q)
	}
}

func LlmLegacyDB(t testing.TB, path string) {
	db := SrcDB(t, path, llmLegacySchema...)
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
		SrcExec(t, db, q)
	}
}

func LlmStoreDB(t testing.TB, path string) {
	stmts := append(append([]string{}, llmLegacySchema...), LlmStoreSchema...)
	db := SrcDB(t, path, stmts...)
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
		SrcExec(t, db, q)
	}
}

func LoomcycleDB(t testing.TB, path string) {
	db := SrcDB(t, path, LoomcycleSchema...)
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
		SrcExec(t, db, q)
	}
}

func QwenFixture() string {
	return Testdata("qwen-code", "projects", "-home-dev-zoo", "chats", QwenSession+".jsonl")
}

func ImporterOptionsFor(tb testing.TB, names ...string) importer.Options {
	return importer.Options{Formats: FormatsNamed(tb, names...)}
}

func EntriesOf(tb testing.TB, db DB, chatID string) []*annals.Entry {
	tb.Helper()
	es, err := db.FindEntries(context.Background(), annals.EntryFilter{ChatID: chatID})
	if err != nil {
		tb.Fatal(err)
	}
	return es
}

// SrcCorpusPath returns a path in the shared corpus, skipping the test when it is absent (the
// corpus lives outside the repository).
func SrcCorpusPath(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(SrcCorpus, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus file %s not available: %v", p, err)
	}
	return p
}

// SrcFormat returns the registered format called name.
func SrcFormat(t testing.TB, name string) importer.Format {
	t.Helper()
	f, ok := importer.Lookup(importer.Formats(), name)
	if !ok {
		t.Fatalf("format %q is not registered in importer.Formats()", name)
	}
	return f
}

// SrcParse parses path with the format called name.
func SrcParse(t testing.TB, name, path string) *importer.Parsed {
	t.Helper()
	p, err := importer.Parse(context.Background(), SrcFormat(t, name), path)
	if err != nil {
		t.Fatalf("parsing %s as %s: %v", path, name, err)
	}
	return p
}

// SrcWantKinds fails unless es has exactly the wanted number of entries of each kind.
func SrcWantKinds(t *testing.T, es []*annals.Entry, want map[annals.EntryKind]int) {
	t.Helper()
	got := srcKinds(es)
	for _, k := range annals.EntryKinds {
		if got[k] != want[k] {
			t.Errorf("%s entries: got %d, want %d (all: %v)", k, got[k], want[k], got)
		}
	}
}

// SrcEntry returns the entry with id, failing when there is none.
func SrcEntry(t *testing.T, es []*annals.Entry, id string) *annals.Entry {
	t.Helper()
	for _, e := range es {
		if e.ID == id {
			return e
		}
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	t.Fatalf("no entry %q among %v", id, ids)
	return nil
}

// SrcMeta decodes an entry's metadata.
func SrcMeta(t *testing.T, e *annals.Entry) map[string]any {
	t.Helper()
	m := map[string]any{}
	if len(e.Metadata) == 0 {
		return m
	}
	if err := json.Unmarshal(e.Metadata, &m); err != nil {
		t.Fatalf("entry %s metadata %s: %v", e.ID, e.Metadata, err)
	}
	return m
}

// SrcChat returns the chat with id.
func SrcChat(t *testing.T, p *importer.Parsed, id string) *annals.Chat {
	t.Helper()
	for _, c := range p.Chats {
		if c.ID == id {
			return c
		}
	}
	var ids []string
	for _, c := range p.Chats {
		ids = append(ids, c.ID)
	}
	t.Fatalf("no chat %q among %v", id, ids)
	return nil
}

// SrcRuns returns each run in its last recorded form (runs are upserts), by id.
func SrcRuns(p *importer.Parsed) map[string]*annals.Run {
	m := map[string]*annals.Run{}
	for _, op := range p.Ops {
		if op.Run != nil {
			m[op.Run.ID] = op.Run
		}
	}
	return m
}

// SrcIdempotent parses path twice and fails unless both parses emit identical ops.
func SrcIdempotent(t *testing.T, name, path string) {
	t.Helper()
	a, b := srcOpsJSON(t, SrcParse(t, name, path)), srcOpsJSON(t, SrcParse(t, name, path))
	if a != b {
		t.Fatalf("two parses of %s differ:\n%s\n%s", path, a, b)
	}
}

// SrcText is every piece of text an import keeps searchable: texts, reasoning, tool names,
// arguments and results. "No lost text" assertions look for distinctive strings in it.
func SrcText(p *importer.Parsed) string {
	var b strings.Builder
	for _, es := range p.Entries {
		for _, e := range es {
			b.WriteString(e.Text + "\n" + e.Reasoning + "\n")
			if e.Tool != nil {
				b.WriteString(e.Tool.Name + "\n" + string(e.Tool.Arguments) + "\n" + e.Tool.Result + "\n")
			}
		}
	}
	return b.String()
}

// SrcWantText fails unless every string occurs in the parse's text.
func SrcWantText(t *testing.T, p *importer.Parsed, strs ...string) {
	t.Helper()
	all := SrcText(p)
	for _, s := range strs {
		if !strings.Contains(all, s) {
			t.Errorf("text %q was lost", s)
		}
	}
}

// SrcToolsLinked fails unless every tool entry that has a call id also has an outcome, except
// for the call ids listed as still open.
func SrcToolsLinked(t *testing.T, es []*annals.Entry, open ...string) {
	t.Helper()
	for _, e := range es {
		if e.Tool == nil || e.Tool.CallID == "" {
			continue
		}
		isOpen := false
		for _, o := range open {
			isOpen = isOpen || o == e.Tool.CallID
		}
		if !isOpen && e.Tool.Outcome == "" {
			t.Errorf("tool entry %s (%s, call %s) has no result or outcome", e.ID, e.Tool.Name, e.Tool.CallID)
		}
	}
}

// SrcNoSecret fails if s occurs anywhere in what the parse emitted: encrypted and signed
// reasoning must never be rendered or kept.
func SrcNoSecret(t *testing.T, p *importer.Parsed, secrets ...string) {
	t.Helper()
	all := srcOpsJSON(t, p)
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("opaque blob %q leaked into the import", s)
		}
	}
}

// SrcDB creates a SQLite database at path and runs stmts in it: the fixtures of the database
// formats are built by the tests, following the schemas docs/IMPORT.md documents.
func SrcDB(t testing.TB, path string, stmts ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("fixture SQL %q: %v", s, err)
		}
	}
	return db
}

// SrcExec runs a statement with arguments on a fixture database.
func SrcExec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("fixture SQL %q: %v", q, err)
	}
}

// SrcOut is an Output for driving a LineSession by hand (resume tests).
type SrcOut struct {
	Ops    []annals.CaptureOp
	titles map[string]string
	warns  []string
}

func (o *SrcOut) Emit(op annals.CaptureOp) error { o.Ops = append(o.Ops, op); return nil }

func (o *SrcOut) TitleBySourceID(string, string) {}

func (o *SrcOut) TitleForChat(chatID, title string) {
	if o.titles == nil {
		o.titles = map[string]string{}
	}
	o.titles[chatID] = title
}

func (o *SrcOut) Warnf(line int, format string, args ...any) { o.warns = append(o.warns, format) }

// Entries returns the appended entries in order, the first of each id only.
func (o *SrcOut) Entries() []*annals.Entry {
	seen := map[string]bool{}
	var out []*annals.Entry
	for _, op := range o.Ops {
		if op.Append == nil {
			continue
		}
		for _, e := range op.Append.Entries {
			if !seen[e.ID] {
				seen[e.ID] = true
				out = append(out, e)
			}
		}
	}
	return out
}

func FormatsNamed(tb testing.TB, names ...string) []importer.Format {
	var out []importer.Format
	for _, n := range names {
		out = append(out, Format(tb, n))
	}
	return out
}

func ImportAll(tb testing.TB, im *importer.Importer, paths ...string) *importer.Report {
	tb.Helper()
	cands, _, err := im.Resolve(paths, nil)
	if err != nil {
		tb.Fatal(err)
	}
	rep, err := im.Import(context.Background(), cands)
	if err != nil {
		tb.Fatalf("import: %v", err)
	}
	if len(rep.Errors) > 0 {
		tb.Fatalf("import errors: %+v", rep.Errors)
	}
	return rep
}

func TauDB(t testing.TB, path string, extra ...string) {
	db := SrcDB(t, path, append(append([]string{}, TauSchema...), extra...)...)
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
		SrcExec(t, db, q)
	}
}

const (
	cursorDir = "testdata/cursor/projects/home-u-repo/agent-transcripts/7c1d0a52-1111-4222-8333-444455556666"
)

// LaniusSchema is the lanius.db schema docs/IMPORT.md documents (inferred from the history
// view's queries: events carry the type used as channel and the correlation id; messages carry
// role and JSON content, and point at the event that carried them).
var LaniusSchema = []string{
	`CREATE TABLE events (id INTEGER PRIMARY KEY, type TEXT NOT NULL, correlation_id TEXT, session_id TEXT, payload TEXT, created_at TEXT NOT NULL)`,
	`CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, event_id INTEGER REFERENCES events(id), role TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL)`,
}

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

// LlmStoreSchema is the content-addressed part (llm 0.32+).
var LlmStoreSchema = []string{
	`CREATE TABLE messages (hash TEXT PRIMARY KEY, parent_hash TEXT, role TEXT, provider_metadata TEXT)`,
	`CREATE TABLE parts (id INTEGER PRIMARY KEY, message_hash TEXT, position INTEGER, type TEXT, tool_name TEXT, text TEXT, payload TEXT)`,
	`CREATE TABLE part_attachments (part_id INTEGER, attachment_id TEXT, "order" INTEGER, PRIMARY KEY (part_id, attachment_id, "order"))`,
	`CREATE TABLE threads (id TEXT PRIMARY KEY, name TEXT, tip_message_hash TEXT, forked_from TEXT, datetime_utc TEXT)`,
	`CREATE TABLE turns (id TEXT PRIMARY KEY, thread_id TEXT, parent_message_hash TEXT, tip_message_hash TEXT, model TEXT, resolved_model TEXT,
		options_json TEXT, schema_id TEXT, input_tokens INTEGER, output_tokens INTEGER, token_details TEXT, duration_ms INTEGER, datetime_utc TEXT, response_json TEXT)`,
}

// LoomcycleSchema is the loomcycle schema docs/IMPORT.md documents: the sessions table with the
// human layer of migration 0057, runs, and the events runs record.
var LoomcycleSchema = []string{
	`CREATE TABLE sessions (id TEXT PRIMARY KEY, tenant_id TEXT, user_id TEXT, agent TEXT, created_at TEXT, updated_at TEXT,
		title TEXT, description TEXT, tags TEXT, pinned INTEGER NOT NULL DEFAULT 0, archived_at TEXT, summary TEXT, summary_updated_at TEXT)`,
	`CREATE TABLE runs (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, agent TEXT, status TEXT, model TEXT, started_at TEXT, ended_at TEXT,
		input_tokens INTEGER, output_tokens INTEGER, cost_usd REAL)`,
	`CREATE TABLE events (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT, created_at TEXT)`,
}

// The Qwen Code fixture is written from Qwen Code's ChatRecord
// (QwenLM/qwen-code, packages/core/src/services/chatRecordingService.ts): uuid, parentUuid,
// sessionId, timestamp, type user|assistant|tool_result|system with a subtype, cwd, version,
// gitBranch, message as a Gemini API Content {role, parts}, usageMetadata, model,
// toolCallResult {callId, status}, systemPayload, and agentId/agentName/isSidechain for a
// sub-agent's records. Files live in ~/.qwen/projects/<project>/chats/<session>.jsonl.
const QwenSession = "7b1e0c9a-5d2f-4c8e-9a41-3f6d2b8e1c07"

// SrcCorpus is the shared folder of real public transcripts, relative to this package.
const SrcCorpus = "../../shared/fixtures/transcripts"

// srcKinds counts entries by kind.
func srcKinds(es []*annals.Entry) map[annals.EntryKind]int {
	m := map[annals.EntryKind]int{}
	for _, e := range es {
		m[e.Kind]++
	}
	return m
}

// srcOpsJSON is the emitted ops as JSON, to compare two parses.
func srcOpsJSON(t testing.TB, p *importer.Parsed) string {
	t.Helper()
	b, err := json.Marshal(p.Ops)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TauSchema is the history.sqlite schema docs/IMPORT.md documents: sessions with their immutable
// creation attributes (a JSON column here; a key-value table is read too), and the ordered flat
// transcript.
var TauSchema = []string{
	`CREATE TABLE history_sessions (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, attributes TEXT)`,
	`CREATE TABLE history_entries (session_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, source_id TEXT, kind TEXT NOT NULL,
		text TEXT, tool_name TEXT, arguments TEXT, result TEXT, outcome TEXT, created_at TEXT NOT NULL, PRIMARY KEY (session_id, seq))`,
	`CREATE TABLE history_outbox (id INTEGER PRIMARY KEY, session_id TEXT, op TEXT)`,
}
