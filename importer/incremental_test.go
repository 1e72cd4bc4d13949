package importer_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
