package importer_test

// Helpers shared by the tests of the OpenCode, Copilot CLI, Cursor, llm, lanius, loomcycle and
// Tau importers. They are prefixed src so they cannot collide with the helpers of the other
// formats' tests in this package.

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/sqlite"

	_ "modernc.org/sqlite" // the test builds source databases with the same driver annals reads them with
)

// srcCorpus is the shared folder of real public transcripts, relative to this package.
const srcCorpus = "../../shared/fixtures/transcripts"

// srcCorpusPath returns a path in the shared corpus, skipping the test when it is absent (the
// corpus lives outside the repository).
func srcCorpusPath(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(srcCorpus, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus file %s not available: %v", p, err)
	}
	return p
}

// srcFormat returns the registered format called name.
func srcFormat(t testing.TB, name string) importer.Format {
	t.Helper()
	f, ok := importer.Lookup(importer.Formats(), name)
	if !ok {
		t.Fatalf("format %q is not registered in importer.Formats()", name)
	}
	return f
}

// srcParse parses path with the format called name.
func srcParse(t testing.TB, name, path string) *importer.Parsed {
	t.Helper()
	p, err := importer.Parse(context.Background(), srcFormat(t, name), path)
	if err != nil {
		t.Fatalf("parsing %s as %s: %v", path, name, err)
	}
	return p
}

// srcKinds counts entries by kind.
func srcKinds(es []*annals.Entry) map[annals.EntryKind]int {
	m := map[annals.EntryKind]int{}
	for _, e := range es {
		m[e.Kind]++
	}
	return m
}

// srcWantKinds fails unless es has exactly the wanted number of entries of each kind.
func srcWantKinds(t *testing.T, es []*annals.Entry, want map[annals.EntryKind]int) {
	t.Helper()
	got := srcKinds(es)
	for _, k := range annals.EntryKinds {
		if got[k] != want[k] {
			t.Errorf("%s entries: got %d, want %d (all: %v)", k, got[k], want[k], got)
		}
	}
}

// srcEntry returns the entry with id, failing when there is none.
func srcEntry(t *testing.T, es []*annals.Entry, id string) *annals.Entry {
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

// srcMeta decodes an entry's metadata.
func srcMeta(t *testing.T, e *annals.Entry) map[string]any {
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

// srcChat returns the chat with id.
func srcChat(t *testing.T, p *importer.Parsed, id string) *annals.Chat {
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

// srcRuns returns each run in its last recorded form (runs are upserts), by id.
func srcRuns(p *importer.Parsed) map[string]*annals.Run {
	m := map[string]*annals.Run{}
	for _, op := range p.Ops {
		if op.Run != nil {
			m[op.Run.ID] = op.Run
		}
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

// srcIdempotent parses path twice and fails unless both parses emit identical ops.
func srcIdempotent(t *testing.T, name, path string) {
	t.Helper()
	a, b := srcOpsJSON(t, srcParse(t, name, path)), srcOpsJSON(t, srcParse(t, name, path))
	if a != b {
		t.Fatalf("two parses of %s differ:\n%s\n%s", path, a, b)
	}
}

// srcText is every piece of text an import keeps searchable: texts, reasoning, tool names,
// arguments and results. "No lost text" assertions look for distinctive strings in it.
func srcText(p *importer.Parsed) string {
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

// srcWantText fails unless every string occurs in the parse's text.
func srcWantText(t *testing.T, p *importer.Parsed, strs ...string) {
	t.Helper()
	all := srcText(p)
	for _, s := range strs {
		if !strings.Contains(all, s) {
			t.Errorf("text %q was lost", s)
		}
	}
}

// srcToolsLinked fails unless every tool entry that has a call id also has an outcome, except
// for the call ids listed as still open.
func srcToolsLinked(t *testing.T, es []*annals.Entry, open ...string) {
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

// srcNoSecret fails if s occurs anywhere in what the parse emitted: encrypted and signed
// reasoning must never be rendered or kept.
func srcNoSecret(t *testing.T, p *importer.Parsed, secrets ...string) {
	t.Helper()
	all := srcOpsJSON(t, p)
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("opaque blob %q leaked into the import", s)
		}
	}
}

// srcDB creates a SQLite database at path and runs stmts in it: the fixtures of the database
// formats are built by the tests, following the schemas docs/IMPORT.md documents.
func srcDB(t testing.TB, path string, stmts ...string) *sql.DB {
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

// srcExec runs a statement with arguments on a fixture database.
func srcExec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("fixture SQL %q: %v", q, err)
	}
}

// srcOut is an Output for driving a LineSession by hand (resume tests).
type srcOut struct {
	ops    []annals.CaptureOp
	titles map[string]string
	warns  []string
}

func (o *srcOut) Emit(op annals.CaptureOp) error { o.ops = append(o.ops, op); return nil }
func (o *srcOut) TitleBySourceID(string, string) {}
func (o *srcOut) TitleForChat(chatID, title string) {
	if o.titles == nil {
		o.titles = map[string]string{}
	}
	o.titles[chatID] = title
}
func (o *srcOut) Warnf(line int, format string, args ...any) { o.warns = append(o.warns, format) }

// entries returns the appended entries in order, the first of each id only.
func (o *srcOut) entries() []*annals.Entry {
	seen := map[string]bool{}
	var out []*annals.Entry
	for _, op := range o.ops {
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

// TestSourceDatabasesAreOpenedReadOnly proves the rule every database importer relies on: the
// connection refuses writes, so an import can never change the history it reads.
func TestSourceDatabasesAreOpenedReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.sqlite")
	srcDB(t, path,
		`CREATE TABLE history_sessions (id TEXT PRIMARY KEY, created_at TEXT)`,
		`CREATE TABLE history_entries (session_id TEXT, seq INTEGER, id TEXT, kind TEXT, text TEXT, created_at TEXT)`,
		`INSERT INTO history_sessions VALUES ('s1', '2026-01-01T00:00:00Z')`,
		`INSERT INTO history_entries VALUES ('s1', 1, 'e1', 'user', 'hello', '2026-01-01T00:00:00Z')`)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	srcParse(t, "tau", path)
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Fatal("importing changed the source database")
	}
}

// TestSourceFormatsWinDetection proves that in the registry's detection order each sample of
// these formats is claimed by its own format, not by an earlier or a generic one.
func TestSourceFormatsWinDetection(t *testing.T) {
	dir := t.TempDir()
	dbs := map[string]string{
		"llm":          filepath.Join(dir, "logs.db"),
		"lanius":       filepath.Join(dir, "lanius.db"),
		"loomcycle":    filepath.Join(dir, "loomcycle.db"),
		"tau":          filepath.Join(dir, "history.sqlite"),
		"cursor-store": filepath.Join(dir, "store.db"),
	}
	llmLegacyDB(t, dbs["llm"])
	laniusDB(t, dbs["lanius"])
	loomcycleDB(t, dbs["loomcycle"])
	tauDB(t, dbs["tau"])
	cursorStoreDB(t, dbs["cursor-store"], []string{`{"role":"user","content":"hi"}`}, []int{0})
	cases := map[string]string{
		"testdata/opencode/storage":     "opencode",
		"testdata/opencode/export.json": "opencode",
		copilotFixture:                  "copilot-cli",
		cursorFixture:                   "cursor",
		cursorSub:                       "cursor",
	}
	for name, path := range dbs {
		cases[path] = name
	}
	for _, rel := range []string{
		"opencode/jazzyalex__storage_v2", "opencode/ggfincke__sample-export.json",
		"copilot-cli/jazzyalex__events_v1.0.11.jsonl", "copilot-cli/jazzyalex__copilot_small_schema_catalog.jsonl",
		"cursor/jazzyalex__agent-transcript_test-session.jsonl", "cursor/jazzyalex__agent-transcript_subagent-session.jsonl",
		"cursor/jazzyalex__cli_store.db",
		"llm-logsdb/constructed__logs-legacy-v0.27-schema.db", "llm-logsdb/constructed__logs-v0.32-schema.db",
	} {
		p := filepath.Join(srcCorpus, rel)
		if _, err := os.Stat(p); err == nil {
			cases[p] = map[string]string{"opencode": "opencode", "copilot-cli": "copilot-cli", "cursor": "cursor", "llm-logsdb": "llm"}[strings.SplitN(rel, "/", 2)[0]]
			if strings.HasSuffix(rel, ".db") && strings.HasPrefix(rel, "cursor/") {
				cases[p] = "cursor-store"
			}
		}
	}
	for path, want := range cases {
		var head []byte
		if fi, err := os.Stat(path); err != nil {
			t.Fatal(err)
		} else if !fi.IsDir() {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			head = b[:min(len(b), importer.HeadSize)]
		}
		got := ""
		for _, f := range importer.Formats() {
			if f.Detect(path, head) {
				got = f.Name()
				break
			}
		}
		if got != want {
			t.Errorf("%s: detected as %q, want %q", path, got, want)
		}
	}
}

// srcForget hides the import state, so a second import re-reads every source from the start
// instead of skipping it as unchanged: what is left to prove idempotency is the parsers' ids.
type srcForget struct{ *sqlite.DB }

func (srcForget) FindImportSource(context.Context, string) (*annals.ImportSource, error) {
	return nil, annals.Errorf(annals.ENOTFOUND, "forgotten")
}

type srcTitles struct{ db *sqlite.DB }

func (s srcTitles) SetTitleIfEmpty(ctx context.Context, chatID, title string) (bool, error) {
	c, err := s.db.FindChatByID(ctx, chatID)
	if err != nil {
		return false, err
	}
	if c.Title != "" {
		return false, nil
	}
	_, err = s.db.UpdateChat(ctx, c.Ref(), annals.ChatUpdate{Title: &title})
	return err == nil, err
}

// srcStoreState is what a store holds for some chats: the chat rows, transcripts and runs.
func srcStoreState(t *testing.T, db *sqlite.DB, ids []string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, id := range ids {
		c, err := db.FindChatByID(ctx, id)
		if err != nil {
			t.Fatalf("chat %s: %v", id, err)
		}
		c.LastActivity = c.LastActivity.UTC()
		es, err := db.FindEntries(ctx, annals.EntryFilter{ChatID: id})
		if err != nil {
			t.Fatal(err)
		}
		runs, err := db.FindRuns(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []any{c, es, runs} {
			j, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(j)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestSourceFormatsImportTwiceAsOnce imports a fixture of every one of these formats into a
// real SQLite store through the whole pipeline (validation, batching, titles), then again from
// scratch, and compares the stores: the ids the parsers derive make the second import a no-op.
func TestSourceFormatsImportTwiceAsOnce(t *testing.T) {
	dir := t.TempDir()
	paths := []string{"testdata/opencode/storage", "testdata/opencode/export.json", copilotFixture, cursorFixture, cursorSub}
	for name, build := range map[string]func(testing.TB, string){
		"logs.db": llmLegacyDB, "logs-032.db": llmStoreDB, "lanius.db": laniusDB, "loomcycle.db": loomcycleDB,
		"history.sqlite": func(tb testing.TB, p string) { tauDB(tb, p) },
		"store.db": func(tb testing.TB, p string) {
			cursorStoreDB(tb, p, []string{`{"role":"user","id":"u","content":"hello store"}`}, []int{0})
		},
	} {
		p := filepath.Join(dir, name)
		build(t, p)
		paths = append(paths, p)
	}
	var formats []importer.Format
	for _, n := range []string{"opencode", "copilot-cli", "cursor", "cursor-store", "llm", "tau", "loomcycle", "lanius"} {
		formats = append(formats, srcFormat(t, n))
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	run := func() *importer.Report {
		im := importer.New(srcForget{db}, importer.Options{Formats: formats, Titles: srcTitles{db}})
		cands, unknown, err := im.Resolve(paths, nil)
		if err != nil || len(unknown) > 0 || len(cands) != len(paths) {
			t.Fatalf("resolve: %d candidates for %d paths, unknown %v, err %v", len(cands), len(paths), unknown, err)
		}
		rep, err := im.Import(ctx, cands)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Errors) > 0 {
			t.Fatalf("import errors: %+v", rep.Errors)
		}
		return rep
	}
	first := run()
	if first.Chats == 0 || first.Entries == 0 {
		t.Fatalf("the first import wrote nothing: %+v", first)
	}
	var ids []string
	for _, p := range paths {
		f := formats[0]
		for _, cand := range formats {
			var head []byte
			if b, err := os.ReadFile(p); err == nil {
				head = b[:min(len(b), importer.HeadSize)]
			}
			if cand.Detect(p, head) {
				f = cand
				break
			}
		}
		for _, c := range srcParse(t, f.Name(), p).Chats {
			ids = append(ids, c.ID)
		}
	}
	before := srcStoreState(t, db, ids)
	if !strings.Contains(before, `"title":"Fix the flaky test"`) {
		t.Error("a title asked for with TitleForChat did not reach the store")
	}
	second := run()
	if second.Entries != 0 || second.Chats != 0 {
		t.Errorf("the second import wrote %d chats and %d entries, want none", second.Chats, second.Entries)
	}
	if after := srcStoreState(t, db, ids); after != before {
		t.Errorf("the store changed on the second import:\n%s\n---\n%s", before, after)
	}
}
