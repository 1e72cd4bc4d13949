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
}

func runMigrate(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("migrate", "[flags]", "Create the database's schema, or bring it up to this binary's version, and print the\nversion. Opening a database migrates it anyway; this command does only that, for\ndeployments that migrate before they start servers. Several servers (or migrate runs)\nstarting at once against one PostgreSQL database migrate once: the others wait on an\nadvisory lock. A database whose schema is newer than this binary is refused.")
	db := dbFlag(fs)
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
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	_, err = fmt.Fprintf(m.Stdout, "%s database %s is at schema version %d\n", rep.Backend, rep.Database, rep.Version)
	return err
}
