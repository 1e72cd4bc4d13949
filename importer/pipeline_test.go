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

// eachCounting counts the store's write transactions, through Capture and CaptureEach, and the
// lists CaptureEach wrote together; it cancels the import after its n-th transaction (n > 0).
type eachCounting struct {
	*sqlite.DB
	captures, eaches, lists int
	n                       int
	cancel                  context.CancelFunc
}

func (s *eachCounting) tx() {
	if s.n--; s.n == 0 && s.cancel != nil {
		s.cancel()
	}
}

func (s *eachCounting) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	defer s.tx()
	s.captures++
	return s.DB.Capture(ctx, ops)
}

func (s *eachCounting) CaptureEach(ctx context.Context, lists [][]annals.CaptureOp) ([]*annals.CaptureResult, error) {
	defer s.tx()
	s.eaches++
	s.lists += len(lists)
	return s.DB.CaptureEach(ctx, lists)
}

func (s *eachCounting) CaptureEachSaving(ctx context.Context, lists [][]annals.CaptureOp, states func([]*annals.CaptureResult) []*annals.ImportSource) ([]*annals.CaptureResult, error) {
	defer s.tx()
	s.eaches++
	s.lists += len(lists)
	return s.DB.CaptureEachSaving(ctx, lists, states)
}

// TestSmallSourcesAreWrittenTogether: with WriteTogether, an import writes several small
// sources in one transaction (issue 33 item 7), and the store, the report and every source's
// import state are what writing them one by one gives.
func TestSmallSourcesAreWrittenTogether(t *testing.T) {
	home := t.TempDir()
	writeMixedCorpus(t, home, 8, 4)
	formats := importertest.FormatsNamed(t, "claude-code", "codex")
	alone := &eachCounting{DB: openDB(t)}
	repAlone := importertest.ImportAll(t, importertest.NewImporter(alone, importer.Options{Formats: formats}), home)
	together := &eachCounting{DB: openDB(t)}
	rep := importertest.ImportAll(t, importertest.NewImporter(together, importer.Options{Formats: formats, WriteTogether: true}), home)
	if alone.eaches != 0 || alone.captures != 12 {
		t.Errorf("one by one: %d transactions and %d together; want 12 and none", alone.captures, alone.eaches)
	}
	if together.eaches == 0 || together.lists != 12 || together.captures+together.eaches >= 12 {
		t.Errorf("together: %d transactions of one source and %d of %d sources; want fewer than 12 in all", together.captures, together.eaches, together.lists)
	}
	if rep.Chats != repAlone.Chats || rep.Entries != repAlone.Entries || rep.Skipped != repAlone.Skipped || rep.Done != repAlone.Done {
		t.Errorf("report together %+v, one by one %+v", rep.Total(), repAlone.Total())
	}
	a, b := importertest.TakeSnapshot(t, together.DB), importertest.TakeSnapshot(t, alone.DB)
	if !reflect.DeepEqual(a.Entries, b.Entries) || !reflect.DeepEqual(a.Runs, b.Runs) || len(a.Chats) != len(b.Chats) {
		t.Error("written together, the store holds other chats, entries or runs")
	}
	sameImportState(t, together.DB, alone.DB)
	again := importertest.ImportAll(t, importertest.NewImporter(together, importer.Options{Formats: formats, WriteTogether: true}), home)
	if tot := again.Total(); tot.Unchanged != 12 || tot.Entries != 0 {
		t.Errorf("importing again: %+v; want every source unchanged", tot)
	}
}

// TestInterruptedImportWrittenTogetherIsCompletedByARerun: interrupted after a transaction of
// several sources, an import written together leaves what a rerun completes to exactly one
// whole import.
func TestInterruptedImportWrittenTogetherIsCompletedByARerun(t *testing.T) {
	home := t.TempDir()
	writeMixedCorpus(t, home, 16, 8)
	formats := importertest.FormatsNamed(t, "claude-code", "codex")
	whole := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(whole, importer.Options{Formats: formats}), home)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &eachCounting{DB: openDB(t), n: 2, cancel: cancel}
	opts := importer.Options{Formats: formats, WriteTogether: true, BatchSize: 300}
	im := importertest.NewImporter(st, opts)
	cands, _, err := im.Resolve([]string{home}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := im.Import(ctx, cands)
	if !errors.Is(err, context.Canceled) || rep.Done >= len(cands) || st.n != 0 {
		t.Fatalf("interrupted import: %v after %d of %d sources, %d transactions after the interruption", err, rep.Done, len(cands), -st.n)
	}
	rerun := importertest.ImportAll(t, importertest.NewImporter(st, opts), home)
	if rerun.Total().Unchanged != rep.Done {
		t.Errorf("the rerun found %d sources unchanged; the interrupted import finished %d", rerun.Total().Unchanged, rep.Done)
	}
	a, b := importertest.TakeSnapshot(t, st.DB), importertest.TakeSnapshot(t, whole)
	if !reflect.DeepEqual(a.Entries, b.Entries) || !reflect.DeepEqual(a.Runs, b.Runs) || len(a.Chats) != len(b.Chats) {
		t.Error("interrupted and completed, the store holds other chats, entries or runs than one whole import")
	}
	sameImportState(t, st.DB, whole)
}

// agentlessEach refuses a chat with an agent through both capture paths.
type agentlessEach struct{ agentless }

func (s agentlessEach) CaptureEach(ctx context.Context, lists [][]annals.CaptureOp) ([]*annals.CaptureResult, error) {
	for _, ops := range lists {
		for _, op := range ops {
			if op.Chat != nil && op.Chat.AgentID != "" {
				return nil, annals.Errorf(annals.EFORBIDDEN, "a member key without a user or agent creates only chats without them")
			}
		}
	}
	return s.DB.CaptureEach(ctx, lists)
}

func (s agentlessEach) CaptureEachSaving(ctx context.Context, lists [][]annals.CaptureOp, states func([]*annals.CaptureResult) []*annals.ImportSource) ([]*annals.CaptureResult, error) {
	for _, ops := range lists {
		for _, op := range ops {
			if op.Chat != nil && op.Chat.AgentID != "" {
				return nil, annals.Errorf(annals.EFORBIDDEN, "a member key without a user or agent creates only chats without them")
			}
		}
	}
	return s.DB.CaptureEachSaving(ctx, lists, states)
}

// TestSourcesWrittenTogetherFallBackOneByOne: when the store refuses a transaction of several
// sources (here a chat's agent), each is written on its own, where the refusal is handled.
func TestSourcesWrittenTogetherFallBackOneByOne(t *testing.T) {
	alone := openDB(t)
	want := importertest.ImportAll(t, importer.New(agentless{alone}, importer.Options{Formats: importertest.FormatsNamed(t, "codex"), Titles: importertest.Titles{DB: alone}}), "testdata/codex")
	db := openDB(t)
	im := importer.New(agentlessEach{agentless{db}}, importer.Options{Formats: importertest.FormatsNamed(t, "codex"), Titles: importertest.Titles{DB: db}, WriteTogether: true})
	rep := importertest.ImportAll(t, im, "testdata/codex")
	if tot := rep.Total(); tot.Chats != 3 || tot.Entries == 0 || tot != want.Total() || !reflect.DeepEqual(rep.WarningList, want.WarningList) {
		t.Fatalf("report %+v %v, want %+v %v: three chats with their entries, and the refusal reported once", tot, rep.WarningList, want.Total(), want.WarningList)
	}
	if got := agentsOf(t, db, ""); len(got) != 3 {
		t.Errorf("chats without an agent = %v, want all three", got)
	}
}

// sameImportState compares every source's import state in two stores.
func sameImportState(t *testing.T, a, b *sqlite.DB) {
	t.Helper()
	x, err1 := a.FindImportSources(context.Background(), annals.ImportSourceFilter{})
	y, err2 := b.FindImportSources(context.Background(), annals.ImportSourceFilter{})
	if err1 != nil || err2 != nil || len(x) != len(y) {
		t.Fatalf("import states: %d and %d (%v, %v)", len(x), len(y), err1, err2)
	}
	for i := range x {
		if x[i].Path != y[i].Path || x[i].Entries != y[i].Entries || x[i].Offset != y[i].Offset || x[i].Hash != y[i].Hash || !reflect.DeepEqual(x[i].ChatIDs, y[i].ChatIDs) || x[i].LastError != y[i].LastError {
			t.Errorf("import state of %s: %+v / %+v", filepath.Base(x[i].Path), x[i], y[i])
		}
	}
}
