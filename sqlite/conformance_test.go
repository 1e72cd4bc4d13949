package sqlite_test

import (
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

// TestConformance runs the Store contract suite that every backend must pass.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(tb testing.TB) annals.Store { return MustOpenDB(tb) })
}
