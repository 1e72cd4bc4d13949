package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// NoMemoryMap leaves the readers' memory map off; without it they map the file (issue 16's
// 1.37x on a warm common-term search), so a long-lived server keeps the map.
func TestNoMemoryMapReadsWithoutAMap(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	for _, c := range []struct {
		opts    Options
		mapped  bool
		explain string
	}{
		{Options{}, true, "a read-write open"},
		{Options{QueryOnly: true, NoMemoryMap: true}, false, "a query-only open without the map"},
	} {
		db, err := Open(ctx, path, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		var size int64
		if err := db.reader.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&size); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if (size > 0) != c.mapped {
			t.Errorf("%s: the readers' mmap_size is %d, want mapped=%v", c.explain, size, c.mapped)
		}
	}
}
