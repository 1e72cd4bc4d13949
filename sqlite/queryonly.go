package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"

	"github.com/annals-dev/annals"
)

// A process that only reads (a CLI search, list, show or export) opens the file read-only when
// nothing is left to upgrade (issue 33 item 5): no writer connection, no migration transactions
// (each took the write lock, which a server writing the same file had to wait for), no WAL
// checkpoint on close, nothing written. A file an older annals wrote is upgraded first, once,
// through a writer that is closed again before the reads, exactly as a read-write open would.

// openQueryOnly opens path read-only after bringing its schema up to date if it needs it.
func openQueryOnly(ctx context.Context, path string, opts Options) (*DB, error) {
	opts.QueryOnly, opts.ReadOnly = false, true
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return Open(ctx, path, opts) // refused as not found: a read-only open never creates one
	}
	db, err := Open(ctx, path, opts)
	if err == nil {
		current, cerr := upToDate(ctx, db.reader)
		if cerr != nil || current {
			if cerr != nil {
				db.Close()
				return nil, cerr
			}
			return db, nil
		}
		db.Close()
	} else if annals.ErrorCode(err) != annals.EUNAVAILABLE {
		return nil, err
	}
	// An older schema (or none yet): upgrade it as a read-write open does, then read only.
	rw := opts
	rw.ReadOnly = false
	up, err := Open(ctx, path, rw)
	if err != nil {
		return nil, err
	}
	if err := up.Close(); err != nil {
		return nil, storeErr("close after the upgrade", err)
	}
	return Open(ctx, path, opts)
}

// upToDate reports whether every migration this binary knows is applied and no index is left
// to build on open (the chat documents' and the substring index's backfills).
func upToDate(ctx context.Context, q *sql.DB) (bool, error) {
	ms, err := migrations()
	if err != nil {
		return false, annals.Internal("read migrations", err)
	}
	var applied int
	var dirty, todo bool
	err = q.QueryRowContext(ctx, `SELECT count(*), EXISTS (SELECT 1 FROM chat_docs_dirty), EXISTS (SELECT 1 FROM entries_tri_todo)
		FROM schema_migrations WHERE version <= ?`, ms[len(ms)-1].Version).Scan(&applied, &dirty, &todo)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		return false, nil // a schema from before the chat documents or the substring index
	}
	if err != nil {
		return false, storeErr("read the schema's state", err)
	}
	return applied >= len(ms) && !dirty && !todo, nil
}
