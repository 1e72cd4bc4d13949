package importer_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestHermesTrajectoriesAreReadIncrementally: Hermes appends one trajectory per line, and its
// reader is a LineParser like Claude Code's and Codex's: a file that only grew is read from the
// import state's offset (nothing already stored is read again: no entry is skipped as present),
// and a file rewritten in place is read whole again.
func TestHermesTrajectoriesAreReadIncrementally(t *testing.T) {
	line, err := os.ReadFile(importertest.Testdata("hermes", ".hermes", "trajectories", "trajectory_samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), ".hermes", "trajectories", "trajectory_samples.jsonl")
	importertest.WriteFile(t, path, line)
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "hermes-trajectory")})
	first := importertest.ImportAll(t, im, path).Total()
	if first.Chats != 1 || first.Entries == 0 {
		t.Fatalf("first import %+v", first)
	}

	// Hermes appends the next finished conversation.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	grown := importertest.ImportAll(t, im, path).Total()
	if grown.Chats != 1 || grown.Entries != first.Entries || grown.Skipped != 0 {
		t.Errorf("after an append: %+v, want the new record's chat and %d entries, none read again", grown, first.Entries)
	}
	st, err := db.FindImportSource(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Offset != int64(2*len(line)) {
		t.Errorf("import state offset %d, want the file's %d bytes", st.Offset, 2*len(line))
	}
	if es := importertest.EntriesOf(t, db, "hermes-trajectory:trajectory_samples-2"); len(es) != first.Entries {
		t.Errorf("the appended record's chat has %d entries, want %d", len(es), first.Entries)
	}

	// The file rewritten (not appended to: the first record's bytes differ, its JSON the same):
	// read whole, its records already stored skipped.
	importertest.WriteFile(t, path, append(bytes.Replace(line, []byte(`{"conversations": [`), []byte(`{"conversations":[`), 1), line...))
	if err := os.Chtimes(path, st.ModTime.Add(1e9), st.ModTime.Add(1e9)); err != nil {
		t.Fatal(err)
	}
	rewritten := importertest.ImportAll(t, im, path).Total()
	if rewritten.Skipped != 2*first.Entries || rewritten.Entries != 0 || rewritten.Chats != 0 {
		t.Errorf("after a rewrite: %+v, want both records read again and nothing new", rewritten)
	}
}

// appendedIsReadAlone imports the first k lines of a fixture (copied to rel under a temporary
// home, where its format's reader finds it), then the rest appended: the second import reads
// only the appended lines (nothing already stored is read again) and leaves the store as one
// import of the whole file does; then the file rewritten in place (its first line's bytes
// changed, not its JSON) is read whole again, its entries skipped as present.
func appendedIsReadAlone(t *testing.T, format, fixture, rel string, k int, companions ...string) {
	t.Helper()
	full, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	path := filepath.Join(t.TempDir(), rel)
	importertest.WriteFile(t, path, []byte(strings.Join(lines[:k], "")))
	for _, c := range companions {
		importertest.CopyFile(t, filepath.Join(filepath.Dir(fixture), c), filepath.Join(filepath.Dir(path), c))
	}
	db := openDB(t)
	opts := importer.Options{Formats: importertest.FormatsNamed(t, format)}
	im := importertest.NewImporter(db, opts)
	first := importertest.ImportAll(t, im, path).Total()
	if first.Chats != 1 || first.Entries == 0 {
		t.Fatalf("%s: first %d lines: %+v", format, k, first)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Join(lines[k:], "")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	grown := importertest.ImportAll(t, im, path).Total()
	ref := openDB(t)
	whole := importertest.ImportAll(t, importertest.NewImporter(ref, opts), path).Total()
	if grown.Skipped != 0 || grown.Removed != 0 || grown.Entries != whole.Entries-first.Entries || grown.Chats != 0 {
		t.Errorf("%s: after the append %+v; want only the %d new entries read", format, grown, whole.Entries-first.Entries)
	}
	if got, want := importertest.TakeSnapshot(t, db), importertest.TakeSnapshot(t, ref); !reflect.DeepEqual(got.Entries, want.Entries) || !reflect.DeepEqual(got.Runs, want.Runs) {
		t.Errorf("%s: the store after two parts differs from one import of the whole file", format)
	}
	st, err := db.FindImportSource(context.Background(), path)
	if err != nil || st.Offset != int64(len(full)) {
		t.Fatalf("%s: import state %+v (%v), want offset %d", format, st, err, len(full))
	}
	changed := strings.Replace(string(full), `": "`, `":"`, 1)
	if changed == string(full) {
		changed = strings.Replace(string(full), `":"`, `": "`, 1)
	}
	importertest.WriteFile(t, path, []byte(changed))
	if err := os.Chtimes(path, st.ModTime.Add(1e9), st.ModTime.Add(1e9)); err != nil {
		t.Fatal(err)
	}
	if again := importertest.ImportAll(t, im, path).Total(); again.Skipped != whole.Entries || again.Entries != 0 {
		t.Errorf("%s: after a rewrite %+v, want the whole file read again (%d entries skipped)", format, again, whole.Entries)
	}
}

// TestAppendOnlyReadersReadOnlyWhatWasAppended: iFlow CLI's session files are read like Claude
// Code's (a LineParser), cut after the call's result (line 3 of 4); so are Antigravity CLI's
// transcripts, cut after the step that carried out the first reply's call, and Factory Droid's
// sessions, cut after the first call's result, Pi's, cut after its second reply's result, and
// Mistral Vibe's messages.jsonl (with its meta.json), cut after the first call's result.
func TestAppendOnlyReadersReadOnlyWhatWasAppended(t *testing.T) {
	const iflow = ".iflow/projects/-Users-u-zoo/session-041101e6-2a7f-4dfd-90b0-57888a353f6a.jsonl"
	appendedIsReadAlone(t, "iflow", importertest.Testdata("iflow", iflow), iflow, 3)
	const ag = ".gemini/antigravity-cli/brain/e93ee5f8-3c1a-4b7e-9d2f-6a5b4c3d2e1f/logs/transcript.jsonl"
	appendedIsReadAlone(t, "antigravity", importertest.Testdata("antigravity", ag), ag, 3)
	const droid = ".factory/sessions/-home-u-plover/6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a.jsonl"
	appendedIsReadAlone(t, "factory-droid", importertest.Testdata("factory-droid", droid), droid, 4)
	const pi = ".pi/agent/sessions/--Users-badlogic-workspaces-pi-mono--/2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl"
	appendedIsReadAlone(t, "pi", importertest.Testdata("pi", pi), pi, 7)
	const vibe = ".vibe/logs/session/session_20260312_091500_3f2a9c1e/messages.jsonl"
	appendedIsReadAlone(t, "mistral-vibe", importertest.Testdata("mistral-vibe", vibe), vibe, 3, "meta.json")
}

// TestPiNameGivenLaterTitlesTheChat: a session_info name Pi appends after the chat was
// imported titles it (the chat op is not sent again, so the name comes as a title).
func TestPiNameGivenLaterTitlesTheChat(t *testing.T) {
	const rel = ".pi/agent/sessions/--Users-badlogic-workspaces-pi-mono--/2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl"
	full, err := os.ReadFile(importertest.Testdata("pi", rel))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), rel)
	importertest.WriteFile(t, path, full)
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "pi"), Titles: importertest.Titles{DB: db}})
	importertest.ImportAll(t, im, path)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"session_info","id":"e9f0a1b2","parentId":null,"timestamp":"2025-12-09T01:10:00.000Z","name":"Compaction walkthrough"}` + "\n")
	f.Close()
	if rep := importertest.ImportAll(t, im, path).Total(); rep.Skipped != 0 {
		t.Errorf("the appended name read the file again: %+v", rep)
	}
	c, err := db.FindChatByID(context.Background(), "pi:ffae836b-9420-4060-ac13-7745215f90ff")
	if err != nil || c.Title != "Compaction walkthrough" {
		t.Errorf("chat title %q (%v), want the name given later", c.Title, err)
	}
}
