package main

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// openDB opens the store named by --db, $ANNALS_DB or the default, once per Run. This is the one
// place that chooses a backend from the database location.
func (m *Main) openDB(ctx context.Context, flagValue string, readOnly bool) (annals.Store, error) {
	path, err := m.dbPath(flagValue)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(path, "postgres://") || strings.HasPrefix(path, "postgresql://") {
		return nil, annals.Errorf(annals.EINVALID, "PostgreSQL databases are not supported by this build yet; pass a SQLite file path")
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: readOnly})
	if err != nil {
		return nil, err
	}
	m.store = db
	return db, nil
}
