package history_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/historytest"
	"github.com/annals-dev/annals/sqlite"
)

// openSQLite opens a fresh SQLite store in a temporary directory, closed when the test ends.
func openSQLite(tb testing.TB) annals.Store {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return db
}

// TestHistory runs the history-operation and security suite (historytest) on SQLite, so
// `go test ./history` proves the service on a real store by itself. The PostgreSQL store's
// tests run the same suite.
func TestHistory(t *testing.T) {
	historytest.Run(t, openSQLite)
}

// TestSQLiteStopsAfterThePage: on SQLite a field-filtered chat search and an entry search over
// more matches than they rank stop after their page, and the page says its total is a lower
// bound (historytest.TotalLowerBound checks the bound and the paging on every store).
func TestSQLiteStopsAfterThePage(t *testing.T) {
	if !historytest.TotalLowerBound(t, openSQLite) {
		t.Error("no page had a lower-bound total")
	}
}
