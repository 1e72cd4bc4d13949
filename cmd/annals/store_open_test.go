package main

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "github.com/annals-dev/annals/sqlite" // the "sqlite" driver
)

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

// A command that upgrades an existing database says which migration it applies (one may take
// minutes at a million entries), on stderr, and nothing when it creates the database.
func TestAnUpgradeSaysWhatItApplies(t *testing.T) {
	tm := newTestMain(t)
	_, errOut, err := tm.run(twoChats, "ingest", "-")
	if err != nil || strings.Contains(errOut, "upgrading") {
		t.Fatalf("ingest into a new database: %v, stderr %q (want no upgrade notice)", err, errOut)
	}
	// The database as it was before migration 0025, through the driver the store uses.
	db, err := sql.Open("sqlite", tm.env["ANNALS_DB"])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP INDEX entries_filter`, `DELETE FROM schema_migrations WHERE version = 25`} {
		if _, err := db.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	_, errOut, err = tm.run("", "list")
	if want := "annals: upgrading the database: applying migration 0025_entries_filter\n"; err != nil || errOut != want {
		t.Errorf("list over a database before 0025: %v, stderr %q, want %q", err, errOut, want)
	}
}
