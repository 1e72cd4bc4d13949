package importer_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/sqlite"
)

func importerOptions() importer.Options { return importer.Options{} }

// myFormats are the formats this file's fixtures cover.
var myFormats = []string{"claude-code", "codex", "gemini-cli", "aider", "chatgpt", "messages"}

// forgetful hides the import state, so every import re-reads every source from the start.
type forgetful struct{ *sqlite.DB }

func (forgetful) FindImportSource(context.Context, string) (*annals.ImportSource, error) {
	return nil, annals.Errorf(annals.ENOTFOUND, "forgotten")
}

func TestImportingTwiceLeavesTheStoreAsOnce(t *testing.T) {
	db := openDB(t)
	opts := importer.Options{Formats: importertest.FormatsNamed(t, myFormats...), Titles: importertest.Titles{DB: db}}
	first := importertest.ImportAll(t, importer.New(forgetful{db}, opts), "testdata")
	if first.Entries == 0 || first.Chats == 0 {
		t.Fatalf("first import wrote nothing: %+v", first)
	}
	before := importertest.TakeSnapshot(t, db)
	second := importertest.ImportAll(t, importer.New(forgetful{db}, opts), "testdata")
	if second.Chats != 0 {
		t.Errorf("second import created %d chats, want 0", second.Chats)
	}
	after := importertest.TakeSnapshot(t, db)
	if !reflect.DeepEqual(before, after) {
		for id := range before.Entries {
			if !reflect.DeepEqual(before.Entries[id], after.Entries[id]) {
				t.Errorf("chat %s differs after a second import", id)
			}
		}
		t.Fatal("the store differs after importing the same sources again")
	}
	// With the import state, a second run reads nothing at all.
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, myFormats...)})
	importertest.ImportAll(t, im, "testdata")
	rep := importertest.ImportAll(t, im, "testdata")
	var unchanged int
	for _, f := range rep.Formats {
		unchanged += f.Unchanged
	}
	if unchanged != rep.Sources || rep.Entries != 0 {
		t.Errorf("third run: %d of %d sources unchanged, %d entries, want all unchanged", unchanged, rep.Sources, rep.Entries)
	}
	if !reflect.DeepEqual(importertest.TakeSnapshot(t, db), after) {
		t.Error("the store changed on a run with the import state")
	}
	if err := db.CheckIndex(context.Background()); err != nil {
		t.Errorf("full-text index: %v", err)
	}
}

func TestTitlesFromSummaryLinesAndCustomTitles(t *testing.T) {
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code")})
	// The summary naming sess-old's leaf comes in a file read before sess-old itself.
	importertest.ImportAll(t, im, importertest.Testdata("claude-code", "project", "sess-main.jsonl"))
	importertest.ImportAll(t, im, importertest.Testdata("claude-code", "project", "sess-old.jsonl"))
	ctx := context.Background()
	for id, want := range map[string]string{"claude-code:sess-old": "Otters and their sleeping habits", "claude-code:sess-main": "Zebrafish flake"} {
		c, err := db.FindChatByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if c.Title != want {
			t.Errorf("%s title %q, want %q", id, c.Title, want)
		}
	}
	pending, err := db.FindPendingTitles(ctx)
	if err != nil || len(pending) != 0 {
		t.Errorf("pending titles %v (%v), want none left", pending, err)
	}
}

// TestAppendedLinesAreImportedIncrementally cuts a session between a tool call and its result,
// imports it, appends the rest and imports again: the call gets its result, nothing is
// duplicated, and the store ends as a one-shot import of the whole file.
func TestAppendedLinesAreImportedIncrementally(t *testing.T) {
	full, err := os.ReadFile(importertest.Testdata("claude-code", "project", "sess-main.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	dir := t.TempDir()
	path := filepath.Join(dir, "sess-main.jsonl")
	// Lines 1-6: the Bash call (line 6) waits for its result (line 8).
	importertest.WriteFile(t, path, []byte(strings.Join(lines[:6], "")))

	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code")})
	importertest.ImportAll(t, im, path)
	ctx := context.Background()
	es, err := db.FindEntries(ctx, annals.EntryFilter{ChatID: "claude-code:sess-main"})
	if err != nil {
		t.Fatal(err)
	}
	var bash *annals.Entry
	for _, e := range es {
		if e.ID == "a4" {
			bash = e
		}
	}
	if bash == nil || bash.Tool.Result != "" {
		t.Fatalf("after the first part, Bash = %+v, want the call stored without a result yet", bash)
	}
	st, err := db.FindImportSource(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Provisional) == 0 || st.Offset >= int64(len(strings.Join(lines[:6], ""))) {
		t.Errorf("state after a pending call: offset %d, provisional %v; want the checkpoint before the call", st.Offset, st.Provisional)
	}

	// Append the rest, a partial last line first (as a writer mid-line would leave it).
	rest := strings.Join(lines[6:], "")
	half := len(rest) - 40
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(rest[:half])
	f.Close()
	importertest.ImportAll(t, im, path)
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(rest[half:])
	f.Close()
	importertest.ImportAll(t, im, path)

	ref := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(ref, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code")}), path)
	got, want := importertest.TakeSnapshot(t, db), importertest.TakeSnapshot(t, ref)
	for id, wes := range want.Entries {
		ges := got.Entries[id]
		if len(ges) != len(wes) {
			t.Errorf("chat %s: %d entries incrementally, %d at once", id, len(ges), len(wes))
			continue
		}
		for i := range wes {
			g, w := *ges[i], *wes[i]
			if g.ID != w.ID || g.Text != w.Text || !reflect.DeepEqual(g.Tool, w.Tool) || g.Kind != w.Kind {
				t.Errorf("chat %s entry %d: %s %+v, want %s %+v", id, i+1, g.ID, g.Tool, w.ID, w.Tool)
			}
		}
	}
	st, err = db.FindImportSource(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Offset != int64(len(full)) || len(st.Provisional) != 0 {
		t.Errorf("final state offset %d of %d, provisional %v", st.Offset, len(full), st.Provisional)
	}
}

func TestRewrittenFileIsReadAgainFromTheStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout-2025-06-01-x.jsonl")
	src := importertest.Testdata("codex", "rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl")
	data, _ := os.ReadFile(src)
	lines := strings.SplitAfter(string(data), "\n")
	importertest.WriteFile(t, path, []byte(strings.Join(lines[:8], "")))
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "codex")})
	importertest.ImportAll(t, im, path)
	// Same length prefix, different bytes: the checkpoint no longer matches.
	changed := strings.Replace(strings.Join(lines[:8], ""), "apple trees", "pear  trees", 1) + strings.Join(lines[8:], "")
	importertest.WriteFile(t, path, []byte(changed))
	importertest.ImportAll(t, im, path)
	ref := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(ref, importer.Options{Formats: importertest.FormatsNamed(t, "codex")}), path)
	refN := len(importertest.TakeSnapshot(t, ref).Entries["codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000"])
	gotN := len(importertest.TakeSnapshot(t, db).Entries["codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000"])
	// The first import's prompt stays (stored entries are never rewritten) and the new one is
	// added: one more entry than a fresh import.
	if gotN != refN+1 {
		t.Errorf("%d entries after a rewrite, want %d (the fresh import) + the old prompt", gotN, refN)
	}
}

func TestVanishedSourceIsMarkedGoneAndItsChatsKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "conversations.json")
	importertest.CopyFile(t, importertest.Testdata("chatgpt", "conversations.json"), path)
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "chatgpt")})
	importertest.ImportAll(t, im, path)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	rep, err := im.Import(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Gone != 1 {
		t.Errorf("report gone = %d, want 1", rep.Gone)
	}
	srcs, err := im.Status(context.Background())
	if err != nil || len(srcs) != 1 || srcs[0].GoneAt == nil || len(srcs[0].ChatIDs) != 3 {
		t.Fatalf("status %+v (%v), want the source gone with its 3 chats", srcs, err)
	}
	gone, err := db.FindImportSources(context.Background(), annals.ImportSourceFilter{GoneOnly: true, ChatID: "chatgpt:cg-conv-1"})
	if err != nil || len(gone) != 1 {
		t.Errorf("gone sources of chatgpt:cg-conv-1: %v (%v)", gone, err)
	}
	if _, err := db.FindChatByID(context.Background(), "chatgpt:cg-conv-1"); err != nil {
		t.Errorf("the chat of a gone source: %v, want it kept", err)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, myFormats...), DryRun: true})
	rep := importertest.ImportAll(t, im, "testdata")
	if rep.Entries == 0 || !rep.DryRun {
		t.Errorf("dry run report %+v, want entries counted", rep)
	}
	s := importertest.TakeSnapshot(t, db)
	if len(s.Chats) != 0 {
		t.Errorf("dry run stored %d chats", len(s.Chats))
	}
	if srcs, _ := db.FindImportSources(context.Background(), annals.ImportSourceFilter{}); len(srcs) != 0 {
		t.Errorf("dry run saved import state for %d sources", len(srcs))
	}
}

func TestDiscoverFindsDefaultLocations(t *testing.T) {
	home := t.TempDir()
	importertest.CopyFile(t, importertest.Testdata("claude-code", "project", "sess-old.jsonl"), filepath.Join(home, ".claude", "projects", "-home-dev-zoo", "sess-old.jsonl"))
	importertest.CopyFile(t, importertest.Testdata("codex", "rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"), filepath.Join(home, ".codex", "sessions", "2025", "06", "01", "rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"))
	importertest.CopyFile(t, importertest.Testdata("gemini", "session-2025-07-02T09-00-legacy.json"), filepath.Join(home, ".gemini", "tmp", "cafe01", "chats", "session-2025-07-02T09-00-legacy.json"))
	importertest.CopyFile(t, importertest.Testdata("aider", ".aider.chat.history.md"), filepath.Join(home, "src", "garden", ".aider.chat.history.md"))
	importertest.WriteFile(t, filepath.Join(home, ".claude", "projects", "notes.txt"), []byte("not a transcript"))
	im := importertest.NewImporter(openDB(t), importer.Options{Formats: importertest.FormatsNamed(t, myFormats...)})
	cands, _ := im.Discover(home)
	got := map[string]int{}
	for _, c := range cands {
		got[c.Format.Name()]++
	}
	want := map[string]int{"claude-code": 1, "codex": 1, "gemini-cli": 1, "aider": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("discovered %v, want %v", got, want)
	}
}

func TestWatchImportsAppendedLinesWithinSeconds(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".claude", "projects", "-home-dev-zoo", "sess-old.jsonl")
	importertest.CopyFile(t, importertest.Testdata("claude-code", "project", "sess-old.jsonl"), path)
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code", "codex")})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reports := make(chan *importer.Report, 16)
	done := make(chan error, 1)
	go func() {
		done <- importer.Watch(ctx, im, importer.WatchOptions{Home: home, Debounce: 100 * time.Millisecond, Rescan: -1,
			OnReport: func(r *importer.Report) { reports <- r }})
	}()
	select {
	case r := <-reports:
		if r.Entries != 2 {
			t.Fatalf("initial import: %d entries, want 2", r.Entries)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no initial import")
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s did not happen within 10 s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	match := func(term string) func() bool {
		return func() bool {
			refs, err := db.MatchEntries(ctx, annals.TextMatch{Owner: annals.Owner{TenantID: "local"}, Terms: []string{term}})
			return err == nil && len(refs) >= 1
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"parentUuid":"c-old-leaf","sessionId":"sess-old","type":"user","message":{"role":"user","content":"and what about quokkazebra?"},"uuid":"c-old-2","timestamp":"2025-04-01T09:01:00.000Z"}` + "\n")
	f.Close()
	waitFor("the appended line becoming searchable", match("quokkazebra"))

	// A new session file in a new project directory.
	fresh := filepath.Join(home, ".claude", "projects", "-home-dev-new", "sess-new.jsonl")
	importertest.WriteFile(t, fresh, []byte(`{"parentUuid":null,"sessionId":"sess-new","type":"user","message":{"role":"user","content":"hello platypusvolcano"},"uuid":"n1","timestamp":"2025-04-02T09:00:00.000Z"}`+"\n"))
	waitFor("a new file in a new directory becoming searchable", match("platypusvolcano"))

	// A codex directory that did not exist when the watch started.
	rollout := filepath.Join(home, ".codex", "sessions", "2025", "06", "01", "rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl")
	importertest.CopyFile(t, importertest.Testdata("codex", "rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"), rollout)
	waitFor("a rollout under a new ~/.codex becoming searchable", match("orchard"))

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitFor("the removed file being marked gone", func() bool {
		st, err := db.FindImportSource(ctx, path)
		return err == nil && st.GoneAt != nil
	})
	if _, err := db.FindChatByID(ctx, "claude-code:sess-old"); err != nil {
		t.Errorf("chat of the removed file: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("watch returned %v", err)
	}
}
