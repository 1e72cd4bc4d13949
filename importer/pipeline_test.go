package importer_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/sqlite"
)

// aheadStore holds the first source's import state back until the importer has started
// reading another source, and records whether that happened.
type aheadStore struct {
	*sqlite.DB
	mu      sync.Mutex
	first   string
	readOn  chan struct{} // closed once a source other than the first is looked up
	closed  bool
	overlap bool
}

func (s *aheadStore) FindImportSource(ctx context.Context, path string) (*annals.ImportSource, error) {
	s.mu.Lock()
	if s.first == "" {
		s.first = path
	} else if path != s.first && !s.closed {
		s.closed = true
		close(s.readOn)
	}
	s.mu.Unlock()
	return s.DB.FindImportSource(ctx, path)
}

func (s *aheadStore) SaveImportSource(ctx context.Context, src *annals.ImportSource) error {
	s.mu.Lock()
	first := src.Path == s.first
	s.mu.Unlock()
	if first {
		select {
		case <-s.readOn:
			s.overlap = true
		case <-time.After(20 * time.Second):
			// Read inline, the next source is only looked up after this returns.
		}
	}
	return s.DB.SaveImportSource(ctx, src)
}

// TestImportReadsTheNextSourceWhileWriting: Import reads the next source on a goroutine of its
// own while the one before is still being written (issue 33 item 7), and what it stores is what
// an import reading and writing in turn stores (Watch's ImportPath does).
func TestImportReadsTheNextSourceWhileWriting(t *testing.T) {
	home := t.TempDir()
	writeMixedCorpus(t, home, 4, 2)
	st := &aheadStore{DB: openDB(t), readOn: make(chan struct{})}
	opts := importer.Options{Formats: importertest.FormatsNamed(t, "claude-code", "codex")}
	rep := importertest.ImportAll(t, importertest.NewImporter(st, opts), home)
	if !st.overlap {
		t.Fatal("the first source's state was saved before any other source was read: no pipelining")
	}
	inline := openDB(t)
	im := importertest.NewImporter(inline, opts)
	cands, _, err := im.Resolve([]string{home}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var entries int
	for _, c := range cands {
		r, ok, err := im.ImportPath(context.Background(), c.Path, c.Format)
		if err != nil || !ok {
			t.Fatalf("ImportPath %s: %v %v", c.Path, ok, err)
		}
		entries += r.Entries
	}
	if rep.Chats != 6 || rep.Entries != entries || rep.Sources != 6 || rep.Done != 6 {
		t.Errorf("pipelined report: %d chats, %d entries, %d of %d sources; inline %d entries", rep.Chats, rep.Entries, rep.Done, rep.Sources, entries)
	}
	if a, b := importertest.TakeSnapshot(t, st.DB), importertest.TakeSnapshot(t, inline); !reflect.DeepEqual(a.Entries, b.Entries) || !reflect.DeepEqual(a.Runs, b.Runs) {
		t.Error("the pipelined import stored other entries or runs than the inline one")
	}
}

// cancellingStore cancels the import after its n-th write transaction.
type cancellingStore struct {
	*sqlite.DB
	n      int
	cancel context.CancelFunc
}

func (s *cancellingStore) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	res, err := s.DB.Capture(ctx, ops)
	if s.n--; s.n == 0 {
		s.cancel()
	}
	return res, err
}

// TestInterruptedImportIsCompletedByARerun: an import interrupted (Ctrl-C) while the reader is
// ahead of the writer writes nothing more after the interruption, and running it again stores
// exactly what one uninterrupted import stores, with the same import state.
func TestInterruptedImportIsCompletedByARerun(t *testing.T) {
	home := t.TempDir()
	writeMixedCorpus(t, home, 8, 4)
	opts := importer.Options{Formats: importertest.FormatsNamed(t, "claude-code", "codex")}
	whole := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(whole, opts), home)

	db := openDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &cancellingStore{DB: db, n: 5, cancel: cancel}
	im := importertest.NewImporter(st, opts)
	cands, _, err := im.Resolve([]string{home}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := im.Import(ctx, cands)
	if !errors.Is(err, context.Canceled) || rep.Done >= len(cands) {
		t.Fatalf("interrupted import: %v after %d of %d sources", err, rep.Done, len(cands))
	}
	if st.n != 0 {
		t.Errorf("%d more write transactions after the interruption", -st.n)
	}
	rerun := importertest.ImportAll(t, importertest.NewImporter(db, opts), home)
	if rerun.Total().Unchanged != rep.Done {
		t.Errorf("the rerun found %d sources unchanged; the interrupted import finished %d", rerun.Total().Unchanged, rep.Done)
	}
	a, b := importertest.TakeSnapshot(t, db), importertest.TakeSnapshot(t, whole)
	if !reflect.DeepEqual(a.Entries, b.Entries) || !reflect.DeepEqual(a.Runs, b.Runs) || len(a.Chats) != len(b.Chats) {
		t.Error("interrupted and completed, the store holds other chats, entries or runs than one whole import")
	}
	for _, c := range cands {
		x, err1 := db.FindImportSource(context.Background(), c.Path)
		y, err2 := whole.FindImportSource(context.Background(), c.Path)
		if err1 != nil || err2 != nil || x.Entries != y.Entries || x.Offset != y.Offset || x.Hash != y.Hash || !reflect.DeepEqual(x.ChatIDs, y.ChatIDs) {
			t.Errorf("import state of %s: %+v / %+v (%v, %v)", filepath.Base(c.Path), x, y, err1, err2)
		}
	}
}
