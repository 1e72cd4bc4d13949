package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/sqlite"
)

// baselineCorpus is a small generated corpus (chats, entries with tool calls, runs) and its stats.
func baselineCorpus(t *testing.T) ([]byte, corpus.Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := corpus.Write(&buf, corpus.Options{Seed: 5, Entries: 400, Chats: 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), st
}

// writeBaseline replays a corpus through the baseline writer in batches, as the benchmark does.
func writeBaseline(t *testing.T, path string, data []byte, batch int) *sqlite.BaselineWriter {
	t.Helper()
	ctx := context.Background()
	w, err := sqlite.NewBaselineWriter(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	dec := ingest.NewDecoder(bytes.NewReader(data))
	var ops []annals.CaptureOp
	for {
		line, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ops = append(ops, line.Op); len(ops) == batch {
			if err := w.Apply(ctx, ops); err != nil {
				t.Fatal(err)
			}
			ops = ops[:0]
		}
	}
	if err := w.Apply(ctx, ops); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestBaselineWriterWritesWhatTheStoreWrites(t *testing.T) {
	ctx := context.Background()
	data, st := baselineCorpus(t)
	dir := t.TempDir()

	libPath := filepath.Join(dir, "library.db")
	s, err := sqlite.Open(ctx, libPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, s, bytes.NewReader(data), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	rawPath := filepath.Join(dir, "raw.db")
	// A batch size that splits chats across transactions, so counters carry over between them.
	w := writeBaseline(t, rawPath, data, 37)
	if w.Entries() != st.Entries {
		t.Errorf("baseline wrote %d entries, want the corpus's %d", w.Entries(), st.Entries)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	lib, err := sqlite.Summarize(ctx, libPath)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sqlite.Summarize(ctx, rawPath)
	if err != nil {
		t.Fatal(err)
	}
	if lib != raw {
		t.Errorf("the databases differ:\nlibrary %s\nraw     %s", lib, raw)
	}
	want := "chats 8, entries 400, runs " // the FTS counts and sums follow
	if !strings.HasPrefix(lib, want) || !strings.Contains(lib, "fts 400+8") {
		t.Errorf("summary %q, want it to start %q and count 400+8 FTS rows", lib, want)
	}

	// The baseline's database is a store's database: the store opens it and finds the chats.
	s, err = sqlite.Open(ctx, rawPath, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	chats, total, err := s.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{AllTenants: true}, Limit: 100, IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(chats) != 8 || total != 8 {
		t.Errorf("the store lists %d chats (total %d) in the baseline's database, want 8", len(chats), total)
	}
}

func TestBaselineWriterRefusesWhatItCannotReplay(t *testing.T) {
	ctx := context.Background()
	w, err := sqlite.NewBaselineWriter(ctx, filepath.Join(t.TempDir(), "raw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, op := range []annals.CaptureOp{
		{Truncate: &annals.TruncateOp{ChatID: "c"}},
		{Append: &annals.AppendOp{ChatID: "nope", Entries: []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: "x"}}}},
	} {
		if err := w.Apply(ctx, []annals.CaptureOp{op}); err == nil {
			t.Errorf("Apply(%+v) succeeded, want an error", op)
		}
	}
	if w.Entries() != 0 {
		t.Errorf("a failed batch counted %d entries", w.Entries())
	}
}

func TestEngineVersion(t *testing.T) {
	v, err := sqlite.EngineVersion(context.Background())
	if err != nil || !strings.HasPrefix(v, "3.") {
		t.Errorf("EngineVersion = %q, %v; want a 3.x version", v, err)
	}
}
