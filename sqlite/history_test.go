package sqlite_test

import (
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/historytest"
)

// TestHistory runs the history-operation and security suite on SQLite.
func TestHistory(t *testing.T) {
	historytest.Run(t, func(tb testing.TB) annals.Store { return MustOpenDB(tb) })
}
