package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/sqlite"
)

// openDB opens the store named by --db, $ANNALS_DB or the default, once per Run, and keeps it
// for Close.
func (m *Main) openDB(ctx context.Context, flagValue string, readOnly bool) (annals.Store, error) {
	return m.openDBAs(ctx, flagValue, storeOpen{readOnly: readOnly})
}

// openDBAs is openDB with the open's mode: read-only, or only reading (storeOpen).
func (m *Main) openDBAs(ctx context.Context, flagValue string, o storeOpen) (annals.Store, error) {
	path, err := m.dbPath(flagValue)
	if err != nil {
		return nil, err
	}
	o.progress, o.substring = m.indexProgress("chat search index", "chats"), m.indexProgress("substring search index", "entries")
	o.upgrading = m.upgradeNotice
	db, err := openStoreWith(ctx, path, o)
	if err != nil {
		return nil, err
	}
	m.store = db
	return db, nil
}

// openRead is open for a command that only reads: a database that does not exist is refused
// with how to create one, and nothing (no file, no directory) is created.
func (m *Main) openRead(ctx context.Context, c *common) (*app, error) {
	c.existing = true
	return m.open(ctx, c, false)
}

// openQuery is openRead for a command that never writes (search, list, show, export): the
// local database is opened only to read (storeOpen.queryOnly).
func (m *Main) openQuery(ctx context.Context, c *common) (*app, error) {
	c.queryOnly = true
	return m.openRead(ctx, c)
}

// checkExists refuses a SQLite database location (resolved as openDB does) whose file does not
// exist. A PostgreSQL location is the server's to refuse.
func (m *Main) checkExists(flagValue string) error {
	location, err := m.dbPath(flagValue)
	if err != nil || isPostgres(location) || strings.TrimPrefix(location, "sqlite:") == "" {
		return err
	}
	path := strings.TrimPrefix(location, "sqlite:")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return annals.Errorf(annals.EINVALID, "no database at %s (nothing was created): 'annals import' (your coding agents' chats) or 'annals ingest FILE' creates it, or give --db the path of an existing database", path)
	}
	return nil
}

// indexProgress shows, on a terminal, the one-time build of a search index (the chat index, the
// view's substring index) that opening a database from before it runs (minutes at a million
// entries).
func (m *Main) indexProgress(index, unit string) func(done, total int) {
	if !m.IsTerminal(m.Stderr) {
		return nil
	}
	return func(done, total int) {
		if done >= total {
			fmt.Fprint(m.Stderr, "\r\033[K")
			return
		}
		fmt.Fprintf(m.Stderr, "\r\033[Kbuilding the %s: %d of %d %s", index, done, total, unit)
	}
}

// upgradeNotice says, on stderr whether or not it is a terminal (a server's log too), which
// migration an upgrade of an existing database is applying: one may take minutes on a large
// database, and a silent wait looks like a hang.
func (m *Main) upgradeNotice(migration string) {
	migration = strings.TrimSuffix(migration, ".sql")
	fmt.Fprintf(m.Stderr, "annals: upgrading the database: applying migration %s\n", migration)
}

// isPostgres reports whether a database location is a PostgreSQL connection URL.
func isPostgres(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// openStore opens the store at a database location. This is the one place that chooses a
// backend: a postgres:// or postgresql:// URL is PostgreSQL (pool size, statement timeout and
// connect timeout come from its pool_max_conns, statement_timeout and connect_timeout
// parameters; docs/POSTGRES.md), "sqlite:PATH" or any other value is a SQLite file.
func openStore(ctx context.Context, location string, readOnly bool) (annals.Store, error) {
	return openStoreWith(ctx, location, storeOpen{readOnly: readOnly})
}

// storeOpen is how a command opens the store.
type storeOpen struct {
	readOnly bool
	// queryOnly: the command only reads and runs once (search, list, show, export). A SQLite
	// file is opened read-only once it is up to date (no write lock, no checkpoint on close)
	// and read without a memory map (a one-shot process reads few pages; a fault in a map
	// reads the disk's whole read-ahead window). Issue 33 item 5; docs/BENCHMARKS.md.
	queryOnly bool
	// unmapped: a SQLite file read without the memory map, as queryOnly's. For annals import,
	// whose reads are point lookups: through the map, the pages it touched counted in its
	// resident memory (124 MB against 53 MB for the mixed corpus of docs/BENCHMARKS.md, issue
	// 33 item 7), at the same CPU.
	unmapped bool
	// longLived: the process stays open (annals serve), so its SQLite store merges the
	// full-text indexes' increments in the background once its writer is quiet; a one-shot
	// command never does (sqlite.Options.BackgroundMerges).
	longLived bool
	// progress and substring hear a SQLite upgrade's index builds: the chat search index
	// (chats) and the view's substring index (entries).
	progress, substring func(done, total int)
	// upgrading hears each migration a SQLite upgrade applies (sqlite.Options.Upgrading).
	upgrading func(migration string)
}

// openStoreWith is openStore with the open's mode and progress callbacks.
func openStoreWith(ctx context.Context, location string, o storeOpen) (annals.Store, error) {
	if isPostgres(location) {
		return postgres.Open(ctx, location, postgres.Options{ReadOnly: o.readOnly})
	}
	path := strings.TrimPrefix(location, "sqlite:")
	if path == "" {
		return nil, annals.Errorf(annals.EINVALID, "database location %q names no file (want sqlite:PATH, a file path or postgres://...)", location)
	}
	return sqlite.Open(ctx, path, o.sqliteOptions())
}

// sqliteOptions are the SQLite store's options for the open's mode.
func (o storeOpen) sqliteOptions() sqlite.Options {
	return sqlite.Options{ReadOnly: o.readOnly, QueryOnly: o.queryOnly, NoMemoryMap: o.queryOnly || o.unmapped,
		BackgroundMerges: o.longLived, Progress: o.progress, SubstringProgress: o.substring, Upgrading: o.upgrading}
}

// backendName names the backend of a location for reports.
func backendName(location string) string {
	if isPostgres(location) {
		return "postgres"
	}
	return "sqlite"
}

// displayLocation is a location fit for printing: a URL loses its password.
func displayLocation(location string) string {
	if !isPostgres(location) {
		return strings.TrimPrefix(location, "sqlite:")
	}
	u, err := url.Parse(location)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
