package importer_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/sqlite"
)

// errCrashed is every write after the simulated crash.
var errCrashed = errors.New("the process died")

// crashAfterGroup is a store whose process dies right after the first transaction of several
// sources commits: every write after it fails, as if nothing ran after the commit.
type crashAfterGroup struct {
	*sqlite.DB
	crashed bool
	lists   int // the sources of the transaction that committed
}

func (s *crashAfterGroup) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	if s.crashed {
		return nil, errCrashed
	}
	return s.DB.Capture(ctx, ops)
}

func (s *crashAfterGroup) CaptureEach(ctx context.Context, lists [][]annals.CaptureOp) ([]*annals.CaptureResult, error) {
	if s.crashed {
		return nil, errCrashed
	}
	res, err := s.DB.CaptureEach(ctx, lists)
	s.crashed, s.lists = err == nil, len(lists)
	return res, err
}

func (s *crashAfterGroup) CaptureEachSaving(ctx context.Context, lists [][]annals.CaptureOp, states func([]*annals.CaptureResult) []*annals.ImportSource) ([]*annals.CaptureResult, error) {
	if s.crashed {
		return nil, errCrashed
	}
	res, err := s.DB.CaptureEachSaving(ctx, lists, states)
	s.crashed, s.lists = err == nil, len(lists)
	return res, err
}

func (s *crashAfterGroup) SaveImportSource(ctx context.Context, src *annals.ImportSource) error {
	if s.crashed {
		return errCrashed
	}
	return s.DB.SaveImportSource(ctx, src)
}

func (s *crashAfterGroup) MarkImportSourceGone(ctx context.Context, path string, at time.Time) error {
	if s.crashed {
		return errCrashed
	}
	return s.DB.MarkImportSourceGone(ctx, path, at)
}

func (s *crashAfterGroup) SavePendingTitle(ctx context.Context, t annals.PendingTitle) error {
	if s.crashed {
		return errCrashed
	}
	return s.DB.SavePendingTitle(ctx, t)
}

// TestSourcesWrittenTogetherSaveTheirStateWithTheirData: the import states of sources written
// together are saved in the transaction of their data (docs/IMPORT.md), so a crash right after
// that commit leaves each source's data and state: the next import reads none of them again,
// and completes the rest to exactly what one whole import stores.
func TestSourcesWrittenTogetherSaveTheirStateWithTheirData(t *testing.T) {
	home := t.TempDir()
	writeMixedCorpus(t, home, 8, 4)
	formats := importertest.FormatsNamed(t, "claude-code", "codex")
	whole := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(whole, importer.Options{Formats: formats}), home)

	st := &crashAfterGroup{DB: openDB(t)}
	opts := importer.Options{Formats: formats, WriteTogether: true}
	im := importertest.NewImporter(st, opts)
	cands, _, err := im.Resolve([]string{home}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = im.Import(context.Background(), cands) // fails once the process "died"
	if !st.crashed || st.lists < 2 {
		t.Fatalf("no transaction of several sources committed (%d sources): the corpus is not written together", st.lists)
	}
	states, err := st.DB.FindImportSources(context.Background(), annals.ImportSourceFilter{})
	if err != nil {
		t.Fatal(err)
	}
	saved := 0
	for _, s := range states {
		if s.LastError == "" && len(s.ChatIDs) > 0 {
			saved++
		}
	}
	if saved < st.lists {
		t.Fatalf("after the crash %d sources have their import state; the committed transaction wrote %d sources", saved, st.lists)
	}

	rerun := importertest.ImportAll(t, importertest.NewImporter(st.DB, opts), home)
	if got := rerun.Total().Unchanged; got < st.lists {
		t.Errorf("the rerun found %d sources unchanged; the transaction before the crash held %d", got, st.lists)
	}
	if rerun.Total().Skipped != 0 {
		t.Errorf("the rerun read %d entries already stored again; want none", rerun.Total().Skipped)
	}
	a, b := importertest.TakeSnapshot(t, st.DB), importertest.TakeSnapshot(t, whole)
	if !reflect.DeepEqual(a.Entries, b.Entries) || !reflect.DeepEqual(a.Runs, b.Runs) || len(a.Chats) != len(b.Chats) {
		t.Error("crashed and completed, the store holds other chats, entries or runs than one whole import")
	}
	sameImportState(t, st.DB, whole)
}
