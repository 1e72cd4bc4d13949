package zed_test

import (
	"os"
	"testing"

	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/sqlite"
)

func TestMain(m *testing.M) { os.Exit(importertest.Main(m)) }

// openDB is the store this package's tests import into: the tests wire it, importertest none.
func openDB(tb testing.TB) *sqlite.DB { return importertest.Open(tb, sqlite.Open) }
