package postgres_test

import (
	"context"
	"testing"

	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/storetest"
)

// Migration 0014: the one learned model of the database gives way to one per tenant.
func TestSharedLearnedModelIsDroppedOnUpgrade(t *testing.T) {
	ctx := context.Background()
	dsn := MustCreateSchema(t)
	db, err := postgres.Open(ctx, dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	storetest.RunSharedModelUpgrade(t, db, storetest.SharedModelUpgrade{
		Exec:          func(q string) error { return db.ExecForTest(ctx, q) },
		OldStateTable: `CREATE TABLE embedder_state (name text COLLATE "C" PRIMARY KEY, data bytea NOT NULL, updated_at bigint NOT NULL)`,
		Version:       14,
		Reopen: func() storetest.Store {
			db.Close()
			if db, err = postgres.Open(ctx, dsn, postgres.Options{}); err != nil {
				t.Fatal(err)
			}
			return db
		},
	})
}
