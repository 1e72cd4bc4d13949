package importer_test

// Helpers shared by the tests of the OpenCode, Copilot CLI, Cursor, llm, lanius, loomcycle and
// Tau importers. They are prefixed src so they cannot collide with the helpers of the other
// formats' tests in this package.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/sqlite"

	_ "modernc.org/sqlite" // the test builds source databases with the same driver annals reads them with
)

// TestSourceDatabasesAreOpenedReadOnly proves the rule every database importer relies on: the
// connection refuses writes, so an import can never change the history it reads.
func TestSourceDatabasesAreOpenedReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.sqlite")
	importertest.SrcDB(t, path,
		`CREATE TABLE history_sessions (id TEXT PRIMARY KEY, created_at TEXT)`,
		`CREATE TABLE history_entries (session_id TEXT, seq INTEGER, id TEXT, kind TEXT, text TEXT, created_at TEXT)`,
		`INSERT INTO history_sessions VALUES ('s1', '2026-01-01T00:00:00Z')`,
		`INSERT INTO history_entries VALUES ('s1', 1, 'e1', 'user', 'hello', '2026-01-01T00:00:00Z')`)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	importertest.SrcParse(t, "tau", path)
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
		"zed":          filepath.Join(dir, "threads.db"),
	}
	importertest.ZedDB(t, dbs["zed"])
	importertest.LlmLegacyDB(t, dbs["llm"])
	importertest.LaniusDB(t, dbs["lanius"])
	importertest.LoomcycleDB(t, dbs["loomcycle"])
	importertest.TauDB(t, dbs["tau"])
	importertest.CursorStoreDB(t, dbs["cursor-store"], []string{`{"role":"user","content":"hi"}`}, []int{0})
	cases := map[string]string{
		"testdata/opencode/storage":     "opencode",
		"testdata/opencode/export.json": "opencode",
		importertest.CopilotFixture:     "copilot-cli",
		importertest.CursorFixture:      "cursor",
		importertest.CursorSub:          "cursor",
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
		p := filepath.Join(importertest.SrcCorpus, rel)
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
	paths := []string{"testdata/opencode/storage", "testdata/opencode/export.json", importertest.CopilotFixture, importertest.CursorFixture, importertest.CursorSub}
	for name, build := range map[string]func(testing.TB, string){
		"logs.db": importertest.LlmLegacyDB, "logs-032.db": importertest.LlmStoreDB, "lanius.db": importertest.LaniusDB, "loomcycle.db": importertest.LoomcycleDB,
		"history.sqlite": func(tb testing.TB, p string) { importertest.TauDB(tb, p) },
		"threads.db":     importertest.ZedDB,
		"store.db": func(tb testing.TB, p string) {
			importertest.CursorStoreDB(tb, p, []string{`{"role":"user","id":"u","content":"hello store"}`}, []int{0})
		},
	} {
		p := filepath.Join(dir, name)
		build(t, p)
		paths = append(paths, p)
	}
	var formats []importer.Format
	for _, n := range []string{"opencode", "copilot-cli", "cursor", "cursor-store", "llm", "tau", "loomcycle", "lanius", "zed"} {
		formats = append(formats, importertest.SrcFormat(t, n))
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
		for _, c := range importertest.SrcParse(t, f.Name(), p).Chats {
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
