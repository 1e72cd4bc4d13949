package main

import "testing"

// The one-shot commands read a SQLite file without the memory map (search, list, show and
// export only to read it; import to write it), and a server keeps the map (issue 33 items 5
// and 7; docs/BENCHMARKS.md).
func TestStoreOpenModes(t *testing.T) {
	for _, c := range []struct {
		name                           string
		open                           storeOpen
		queryOnly, noMemoryMap, merges bool
	}{
		{"serve", storeOpen{longLived: true}, false, false, true},
		{"curation", storeOpen{}, false, false, false},
		{"search, list, show, export", storeOpen{queryOnly: true}, true, true, false},
		{"import", storeOpen{unmapped: true}, false, true, false},
	} {
		o := c.open.sqliteOptions()
		if o.QueryOnly != c.queryOnly || o.NoMemoryMap != c.noMemoryMap || o.BackgroundMerges != c.merges {
			t.Errorf("%s: QueryOnly %v, NoMemoryMap %v, BackgroundMerges %v; want %v, %v, %v", c.name,
				o.QueryOnly, o.NoMemoryMap, o.BackgroundMerges, c.queryOnly, c.noMemoryMap, c.merges)
		}
	}
}

// annals serve stays open, so its store merges the full-text indexes once quiet; the one-shot
// commands' stores never do (sqlite.Options.BackgroundMerges).
func TestServeOpensItsStoreLongLived(t *testing.T) {
	_, f := NewMain().serveFlagSet()
	if !f.c.longLived {
		t.Error("annals serve opens its store as a one-shot command: it would never merge its full-text indexes")
	}
}

// annals import opens its store unmapped.
func TestImportOpensUnmapped(t *testing.T) {
	m := NewMain()
	c := &common{db: new(string), config: new(string)}
	*c.db = t.TempDir() + "/annals.db"
	t.Setenv("HOME", t.TempDir())
	if _, err := m.openImport(t.Context(), c, false); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !c.unmapped {
		t.Error("annals import opened its database through the memory map")
	}
}
