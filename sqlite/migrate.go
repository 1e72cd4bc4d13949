package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations returns the embedded migrations in version order.
func migrations() ([]storecore.Migration, error) { return storecore.ReadMigrations(migrationFiles) }

// migrate applies every pending migration, each in its own transaction together with its
// record in schema_migrations, so a crash leaves the schema at a whole version. The write lock
// taken at BEGIN IMMEDIATE serialises several processes opening the same file at once.
// migrate applies the pending migrations and reports whether it applied any.
//
// upgrading, when set, hears each migration before it is applied to a database that already
// had a schema (an upgrade, not a creation): some rebuild an index over every entry (0035
// retokenizes them all, minutes at a million entries), and the command says why it waits.
func migrate(ctx context.Context, db *sql.DB, upgrading func(migration string)) (bool, error) {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		return false, storeErr("create schema_migrations", err)
	}
	ms, err := migrations()
	if err != nil {
		return false, annals.Internal("read migrations", err)
	}
	if err := checkSchema(ctx, db); err != nil {
		return false, err
	}
	var had int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&had); err != nil {
		return false, storeErr("read schema_migrations", err)
	}
	if had == 0 {
		upgrading = nil
	}
	applied := false
	for _, m := range ms {
		did, err := applyMigration(ctx, db, m, upgrading)
		if err != nil {
			return applied, err
		}
		applied = applied || did
	}
	return applied, nil
}

func applyMigration(ctx context.Context, db *sql.DB, m storecore.Migration, upgrading func(string)) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, storeErr("begin migration", err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
		return false, storeErr("read schema_migrations", err)
	}
	if n > 0 {
		return false, nil
	}
	if upgrading != nil {
		upgrading(m.Name)
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return false, annals.Internal("apply migration "+m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, strftime('%s','now'))`, m.Version, m.Name); err != nil {
		return false, storeErr("record migration", err)
	}
	if err := tx.Commit(); err != nil {
		return false, storeErr("commit migration", err)
	}
	return true, nil
}

// checkSchema refuses a database whose schema is newer than this binary knows, instead of
// writing to tables it does not understand.
func checkSchema(ctx context.Context, db *sql.DB) error {
	ms, err := migrations()
	if err != nil {
		return annals.Internal("read migrations", err)
	}
	known := ms[len(ms)-1].Version
	var have sql.NullInt64
	err = db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&have)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return annals.Errorf(annals.EUNAVAILABLE, "the database has no annals schema (open it once without read-only mode to create it)")
		}
		return storeErr("read schema version", err)
	}
	if have.Valid && int(have.Int64) > known {
		return annals.Errorf(annals.EUNAVAILABLE, "the database schema is version %d, newer than this annals binary supports (%d); upgrade annals", have.Int64, known)
	}
	return nil
}

// SchemaVersion returns the highest applied migration.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := db.reader.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, storeErr("read schema version", err)
	}
	return int(v.Int64), nil
}
