package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// Migration 0020: the one learned model of the database gives way to one per tenant.
func TestSharedLearnedModelIsDroppedOnUpgrade(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	storetest.RunSharedModelUpgrade(t, db, storetest.SharedModelUpgrade{
		Exec:          func(q string) error { return db.ExecForTest(ctx, q) },
		OldStateTable: `CREATE TABLE embedder_state (name TEXT PRIMARY KEY, data BLOB NOT NULL, updated_at INTEGER NOT NULL)`,
		Version:       20,
		Reopen: func() storetest.Store {
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if db, err = sqlite.Open(ctx, path, sqlite.Options{}); err != nil {
				t.Fatal(err)
			}
			return db
		},
	})
}
