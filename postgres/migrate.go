package postgres

import (
	"context"
	"embed"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations returns the embedded migrations in version order.
func migrations() ([]storecore.Migration, error) { return storecore.ReadMigrations(migrationFiles) }

// LatestVersion is the newest schema version this binary knows.
func LatestVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// migrate applies every pending migration, each in its own transaction together with its row in
// schema_migrations, so a crash leaves the schema at a whole version. The whole run holds a
// session advisory lock keyed by the schema, so several servers starting at once against a fresh
// database queue behind the first: the others then find every migration recorded and apply none.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return annals.Internal("read migrations", err)
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return db.storeErr("acquire connection for migrations", err)
	}
	defer conn.Release()
	// Opening is not serving: the configured statement timeout (tens of milliseconds, for
	// requests) must not fail a start that waits for another server's migrations behind the
	// lock, or a migration's bookkeeping on a busy machine. RESET restores the connection's
	// own setting before it returns to the pool.
	if _, err := conn.Exec(ctx, `SET statement_timeout = 0`); err != nil {
		return db.storeErr("prepare migrations", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `RESET statement_timeout`); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	// The key is per schema (current_schema()), so tests in separate schemas never wait on each
	// other, and servers on one schema always do.
	const key = `hashtextextended('annals.migrate.' || coalesce(current_schema(), ''), 0)`
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+key+`)`); err != nil {
		return db.storeErr("lock migrations", err)
	}
	defer func() {
		// Unlock even when ctx is done: the connection goes back to the pool.
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+key+`)`); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	if err := db.checkCurrentSchema(ctx, conn); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return db.storeErr("create schema_migrations", err)
	}
	if err := db.checkSchema(ctx, conn); err != nil {
		return err
	}
	for _, m := range ms {
		if err := db.applyMigration(ctx, conn, m); err != nil {
			return err
		}
	}
	return nil
}

// checkCurrentSchema fails clearly when the search_path names no schema that exists: the tables
// would otherwise land nowhere and the error would be PostgreSQL's "no schema has been selected".
func (db *DB) checkCurrentSchema(ctx context.Context, q querier) error {
	var schema *string
	if err := q.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return db.storeErr("read current schema", err)
	}
	if schema == nil {
		var path string
		_ = q.QueryRow(ctx, `SHOW search_path`).Scan(&path)
		return annals.Errorf(annals.EUNAVAILABLE, "PostgreSQL at %s: no schema of the search_path (%s) exists; create it or fix search_path in the connection string", db.addr, path)
	}
	return nil
}

func (db *DB) applyMigration(ctx context.Context, conn querier, m storecore.Migration) error {
	return db.inTx(ctx, conn, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, m.Version).Scan(&n); err != nil {
			return db.storeErr("read schema_migrations", err)
		}
		if n > 0 {
			return nil
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return db.storeErr("apply migration "+m.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name); err != nil {
			return db.storeErr("record migration", err)
		}
		return nil
	})
}

// inTx runs fn in a transaction on one connection (the migration lock is per session).
func (db *DB) inTx(ctx context.Context, conn querier, fn func(tx pgx.Tx) error) error {
	b, ok := conn.(interface {
		Begin(ctx context.Context) (pgx.Tx, error)
	})
	if !ok {
		return annals.Internal("begin", errors.New("connection cannot begin a transaction"))
	}
	tx, err := b.Begin(ctx)
	if err != nil {
		return db.storeErr("begin migration", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return db.storeErr("commit migration", err)
	}
	return nil
}

// checkSchema refuses a database whose schema is newer than this binary knows, instead of writing
// to tables it does not understand; for a read-only open it also refuses a missing schema.
func (db *DB) checkSchema(ctx context.Context, q querier) error {
	known := LatestVersion()
	var have *int
	err := q.QueryRow(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&have)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" {
			return annals.Errorf(annals.EUNAVAILABLE, "the database has no annals schema (open it once without read-only mode, or run annals migrate, to create it)")
		}
		return db.storeErr("read schema version", err)
	}
	if have != nil && *have > known {
		return annals.Errorf(annals.EUNAVAILABLE, "the database schema is version %d, newer than this annals binary supports (%d); upgrade annals", *have, known)
	}
	return nil
}

// SchemaVersion returns the highest applied migration.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v *int
	if err := db.pool.QueryRow(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, db.storeErr("read schema version", err)
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}

// ExecForTest runs a statement, for tests that must set up states the API cannot produce (a
// schema from the future, say).
func (db *DB) ExecForTest(ctx context.Context, query string, args ...any) error {
	_, err := db.pool.Exec(ctx, query, args...)
	return err
}

// Analyze refreshes the planner's statistics of every annals table and reclaims dead row
// versions, for after a bulk load (a copy or an ingest into this database): autovacuum would get
// there, but until it does the planner guesses, and every append has left a dead version of its
// chat row, each with an entry in the list's activity index that a first page must step over
// (42-62 ms for a first page at 1M entries before, issue 16). VACUUM cannot run in a
// transaction, so each table is its own statement.
func (db *DB) Analyze(ctx context.Context) error {
	if db.readOnly {
		return errReadOnly()
	}
	if _, err := db.foldVocab(ctx); err != nil {
		return err
	}
	for _, t := range []string{"chats", "chat_meta", "chat_attributes", "entries", "entry_sources", "runs", "chat_embeddings", "chat_vocab", "chat_vocab_delta"} {
		if _, err := db.pool.Exec(ctx, `VACUUM (ANALYZE) `+t); err != nil {
			return db.storeErr("analyze "+t, err)
		}
	}
	return nil
}
