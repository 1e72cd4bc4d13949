package bench

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

// The same SQL through the same driver is the second baseline: the store's traced statements,
// run with their bound arguments on a connection of the store's own driver (modernc's SQLite
// with the store's reader settings, or pgx), each row read and dropped. Each statement is
// prepared once, at the warm-up, as the store's statement cache does (pgx caches the statements
// it prepares per connection), so a sample is the statements' execution, not their compilation. annals over this is the
// library's own overhead (parsing, compiling, scanning into values); this over the native
// client is the driver's cost, which annals shares with every Go program on that driver.

// driverSide opens a replay connection for the target's backend.
func driverSide(ctx context.Context, hooks SQLiteHooks, t *target, stmts []annals.Statement) (*side, error) {
	switch t.backend {
	case "sqlite":
		db, err := hooks.OpenReplay(t.dbPath)
		if err != nil {
			return nil, err
		}
		prepared := make([]*sql.Stmt, len(stmts))
		run := func(ctx context.Context) error {
			for i, s := range stmts {
				if prepared[i] == nil {
					p, err := db.PrepareContext(ctx, s.SQL)
					if err != nil {
						return fmt.Errorf("replay: %w", err)
					}
					prepared[i] = p
				}
				if err := drainSQL(ctx, prepared[i], s.Args); err != nil {
					return err
				}
			}
			return nil
		}
		closeAll := func() error {
			for _, p := range prepared {
				if p != nil {
					p.Close()
				}
			}
			return db.Close()
		}
		return replaySide(run, closeAll), nil
	case "postgres":
		conn, err := pgx.Connect(ctx, t.dsn)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		run := func(ctx context.Context) error {
			for _, s := range stmts {
				if err := drainPgx(ctx, conn, s); err != nil {
					return err
				}
			}
			return nil
		}
		return replaySide(run, func() error { return conn.Close(context.Background()) }), nil
	}
	return nil, fmt.Errorf("no driver replay for backend %q", t.backend)
}

// replaySide is the side of a replay: one run of every statement warms it, then each sample
// is one more.
func replaySide(run func(context.Context) error, closeFn func() error) *side {
	return &side{name: "same driver", warm: run, close: closeFn, next: func(ctx context.Context) (sample, error) {
		return timeCall(func() error { return run(ctx) })
	}}
}

// drainSQL runs one prepared statement and reads every row, as the store does.
func drainSQL(ctx context.Context, stmt *sql.Stmt, args []any) error {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(any)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	return rows.Err()
}

// drainPgx is drainSQL on a pgx connection: every row's values decoded.
func drainPgx(ctx context.Context, conn *pgx.Conn, s annals.Statement) error {
	rows, err := conn.Query(ctx, s.SQL, s.Args...)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if _, err := rows.Values(); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	return rows.Err()
}
