package loomcycle_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// A loomcycle source that cannot be read is reported with its name once at most (the import
// names it; the reader's message does not repeat it), and a server's password is never in the message.
func TestLoomcycleFailuresNameTheSourceOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lc.db")
	src, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE sessions (x)`, `CREATE TABLE runs (x)`, `CREATE TABLE events (x)`} {
		if _, err := src.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	src.Close()
	// Nothing listens on port 1: the connection is refused.
	dsn := "postgres://me:hunter2@127.0.0.1:1/lc?sslmode=disable"
	lc := importertest.Format(t, "loomcycle")
	im := importertest.NewImporter(openDB(t), importer.Options{Formats: []importer.Format{lc}})
	cands, _, err := im.Resolve([]string{path, dsn}, lc)
	if err != nil || len(cands) != 2 {
		t.Fatalf("resolve: %v, %d candidates", err, len(cands))
	}
	rep, err := im.Import(context.Background(), cands)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 2 {
		t.Fatalf("errors %+v, want both sources failed", rep.Errors)
	}
	for _, e := range rep.Errors {
		if n := strings.Count(e.Message, e.Path); n > 1 {
			t.Errorf("%q names %s %d times, want once at most", e.Message, e.Path, n)
		}
		if strings.Contains(e.Message, "hunter2") {
			t.Errorf("%q shows the password", e.Message)
		}
	}
}
