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
