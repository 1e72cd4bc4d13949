package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/annals-dev/annals"
)

// schemaVersioner is what both stores report about their schema.
type schemaVersioner interface {
	SchemaVersion(ctx context.Context) (int, error)
}

// migrateReport is the --json answer of annals migrate.
type migrateReport struct {
	Backend  string `json:"backend"`
	Database string `json:"database"`
	Version  int    `json:"version"`
	// Feed: --feed made (or found) the database keeping its change feed.
	Feed bool `json:"feed,omitempty"`
}

func runMigrate(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("migrate", "[flags]", "Create the database's schema, or bring it up to this binary's version, and print the\nversion. Opening a database migrates it anyway; this command does only that, for\ndeployments that migrate before they start servers. Several servers (or migrate runs)\nstarting at once against one PostgreSQL database migrate once: the others wait on an\nadvisory lock. A database whose schema is newer than this binary is refused.\n\nWith --feed it also makes the database keep its change feed (docs/REPLICATION.md): a\nremote does so with its first replicated request or feed read, but a --read-only server\ncannot switch it on (a write), so run this once on a database read-only servers serve.")
	db := dbFlag(fs)
	feed := fs.Bool("feed", false, "also make the database keep its change feed (every chat enters it once), for read-only servers to serve")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("migrate takes no arguments, got %q", fs.Args())
	}
	location, err := m.dbPath(*db)
	if err != nil {
		return err
	}
	store, err := m.openDB(ctx, location, false)
	if err != nil {
		return err
	}
	sv, ok := store.(schemaVersioner)
	if !ok {
		return annals.Errorf(annals.EINTERNAL, "this store does not report its schema version")
	}
	v, err := sv.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	rep := migrateReport{Backend: backendName(location), Database: displayLocation(location), Version: v}
	if *feed {
		fst, ok := store.(annals.FeedStore)
		if !ok {
			return annals.Errorf(annals.ENOTIMPLEMENTED, "this store keeps no change feed")
		}
		if err := fst.EnableFeed(ctx); err != nil {
			return err
		}
		rep.Feed = true
	}
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	if _, err = fmt.Fprintf(m.Stdout, "%s database %s is at schema version %d\n", rep.Backend, rep.Database, rep.Version); err != nil || !rep.Feed {
		return err
	}
	_, err = fmt.Fprintln(m.Stdout, "it keeps its change feed")
	return err
}
