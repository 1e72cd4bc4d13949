package importer_test

import (
	"testing"

	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/sqlite"
)

// openDB is the store the importer's tests import into: the tests wire it, importertest none.
func openDB(tb testing.TB) *sqlite.DB { return importertest.Open(tb, sqlite.Open) }
