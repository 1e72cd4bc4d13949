package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
)

// storeWithoutCaptureEach is a store that cannot apply several lists in one transaction (as
// PostgreSQL's).
type storeWithoutCaptureEach struct{ history.Store }

// annals import writes small files together only when the local capture path's store can
// apply them in one transaction (SQLite); over one that cannot, it writes them one by one.
func TestImportGroupsOnlyOverAStoreThatCan(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !canCaptureEach(history.New(history.Config{Store: db}).LocalCapture()) {
		t.Error("the local capture path over SQLite cannot write files together")
	}
	if canCaptureEach(history.New(history.Config{Store: storeWithoutCaptureEach{db}}).LocalCapture()) {
		t.Error("the local capture path over a store without CaptureEach would write files together")
	}
}

// annals import saves the import state of files written together in their transaction only
// when the capture path writes the database that keeps the state (a local SQLite database);
// through a server the state is a local file of its own, and over PostgreSQL's store there is
// no transaction of several files to save it in.
func TestImportSavesStateWithTheDataOnlyInOneDatabase(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	local := history.New(history.Config{Store: db}).LocalCapture()
	if !(importStore{CaptureStore: local, ImportStateStore: db, sameDB: true}).CanCaptureEachSaving() {
		t.Error("a local SQLite import cannot save its state with its data")
	}
	apart := importStore{CaptureStore: local, ImportStateStore: db}
	if apart.CanCaptureEachSaving() {
		t.Error("an import whose state is kept in another database would save it with the data")
	}
	if _, err := apart.CaptureEachSaving(context.Background(), nil, nil); err == nil {
		t.Error("CaptureEachSaving of an import whose state is kept in another database did not refuse")
	}
	pgLike := history.New(history.Config{Store: storeWithoutCaptureEach{db}}).LocalCapture()
	if (importStore{CaptureStore: pgLike, ImportStateStore: db, sameDB: true}).CanCaptureEachSaving() {
		t.Error("an import over a store without CaptureEach would save its state with the data")
	}
}
