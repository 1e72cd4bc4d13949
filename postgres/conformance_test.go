package postgres_test

import (
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/historytest"
	"github.com/annals-dev/annals/storetest"
)

// TestConformance runs the Store contract suite that every backend must pass, each subtest on a
// fresh schema.
func TestConformance(t *testing.T) {
	testDSN(t)
	storetest.Run(t, func(tb testing.TB) annals.Store { return MustOpenDB(tb) })
}

// TestHistory runs the history-operation, security, search and query-view suite on PostgreSQL.
func TestHistory(t *testing.T) {
	testDSN(t)
	historytest.Run(t, func(tb testing.TB) annals.Store { return MustOpenDB(tb) })
}
