package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/historytest"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

func TestDigestState(t *testing.T) {
	storetest.RunDigest(t, func(tb testing.TB) storetest.DigestStore { return MustOpenDB(tb) })
}

// TestDigestLeaseRenewal: two workers, each through its own handle on one database file.
func TestDigestLeaseRenewal(t *testing.T) {
	historytest.RunDigestLease(t, func(tb testing.TB) (history.Store, history.Store) {
		path := filepath.Join(tb.TempDir(), "annals.db")
		var dbs [2]*sqlite.DB
		for i := range dbs {
			db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
			if err != nil {
				tb.Fatalf("open: %v", err)
			}
			tb.Cleanup(func() { _ = db.Close() })
			dbs[i] = db
		}
		return dbs[0], dbs[1]
	})
}
