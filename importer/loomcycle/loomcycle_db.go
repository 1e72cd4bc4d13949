package loomcycle

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The SQL a loomcycle import runs, per dialect. loomcycle keeps the same three tables on SQLite
// and on PostgreSQL (its internal/store/sqlite migrate() and internal/store/postgres/migrations);
// the readers differ only where the dialects do: how a table's columns are listed, and what
// orders rows (SQLite's rowid, PostgreSQL's keys). Everything read from either goes through the
// same mapping (loomcycle.go, loomcycle_events.go).

// lcQuerier is what the readers query: a SQLite connection, or a PostgreSQL snapshot.
type lcQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// lcDialect is one database engine's spelling of the reads.
type lcDialect struct {
	name string
	// columns lists a table's lowercased column names (empty when the table is missing).
	columns string
	// order is the ORDER BY of each table's full read, given the picked columns.
	order func(c *lcColumns, table string) string
	// rowid selects the engine's row number as annals_rowid, or "" when it has none.
	rowid string
}

var lcSQLite = lcDialect{
	name:    "sqlite",
	columns: `SELECT name FROM pragma_table_info(?)`,
	order:   func(*lcColumns, string) string { return "rowid" },
	rowid:   "rowid AS annals_rowid, ",
}

// lcPostgres orders by the keys loomcycle gives its tables: events by seq (a BIGSERIAL, the
// order they were appended in), runs by start, sessions by creation. The names are constants
// picked by pickColumn, never text from the database.
var lcPostgres = lcDialect{
	name:    "postgres",
	columns: `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`,
	order: func(c *lcColumns, table string) string {
		switch table {
		case "events":
			return lcOrder(c.e.id, c.e.seq)
		case "runs":
			return lcOrder(c.r.start, c.r.id)
		}
		return lcOrder(c.s.created, c.s.id)
	},
}

func lcOrder(cols ...string) string {
	var keep []string
	for _, c := range cols {
		if c != "" {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return "1"
	}
	return strings.Join(keep, ", ")
}

// lcOpen opens the source: a SQLite file read-only, or a PostgreSQL server in one read-only,
// repeatable-read transaction, so the three tables are read from one snapshot of a live
// runtime. done releases it.
func lcOpen(ctx context.Context, src *reader.Source) (q lcQuerier, d lcDialect, done func(), err error) {
	if src.DSN == "" {
		db, err := reader.OpenSourceDB(ctx, src.Path)
		if err != nil {
			return nil, d, nil, err
		}
		return db, lcSQLite, func() { db.Close() }, nil
	}
	cfg, err := pgx.ParseConfig(src.DSN)
	if err != nil {
		return nil, d, nil, annals.Errorf(annals.EINVALID, "%s is not a PostgreSQL connection URL this importer can use: %v", src.Path, err)
	}
	// Belt and braces: the session refuses writes whatever the transaction says.
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		db.Close()
		// The source is named by whoever reports this (never with its password): not again here.
		return nil, d, nil, fmt.Errorf("connecting to the server: %w", err)
	}
	return tx, lcPostgres, func() { _ = tx.Rollback(); db.Close() }, nil
}

// lcReadTable reads a whole table in the dialect's order, each row a map (see rowMap).
func lcReadTable(ctx context.Context, q lcQuerier, d lcDialect, c *lcColumns, table string) ([]map[string]any, error) {
	sel := "*"
	if table == "events" {
		sel = d.rowid + "*"
	}
	var out []map[string]any
	// table is one of three constants and the order names picked columns: no source text.
	err := lcEachRow(ctx, q, "SELECT "+sel+" FROM "+table+" ORDER BY "+d.order(c, table), func(m map[string]any) error {
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("loomcycle: reading %s: %w", table, err)
	}
	return out, nil
}

// lcEachRow runs query and hands each row to fn as a map (see rowMap), one at a time.
func lcEachRow(ctx context.Context, q lcQuerier, query string, fn func(map[string]any) error) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	for rows.Next() {
		m, err := reader.RowMap(rows, cols)
		if err != nil {
			return err
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return rows.Err()
}

// lcTime reads a loomcycle time exactly. loomcycle writes Unix nanoseconds as integers on
// SQLite (and for archived_at and summary_updated_at on PostgreSQL too) and TIMESTAMPTZ
// elsewhere on PostgreSQL; older or hand-made databases hold RFC 3339 text or Unix seconds,
// milliseconds or microseconds. Integers are converted with integer arithmetic, never through
// a float64, which keeps only about a quarter-microsecond of a present-day nanosecond stamp.
func lcTime(m map[string]any, col string) time.Time {
	if col == "" {
		return time.Time{}
	}
	var t time.Time
	switch v := m[col].(type) {
	case int64:
		t = lcUnix(v)
	case time.Time:
		t = v.UTC()
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			t = lcUnix(n)
		} else {
			return reader.ColTime(m, col)
		}
	default:
		return reader.ColTime(m, col)
	}
	if t.Before(annals.MinTime) || !t.Before(annals.MaxTime) {
		return time.Time{}
	}
	return t
}

// lcUnix reads a Unix epoch integer by its magnitude: nanoseconds (loomcycle's own), else
// microseconds, milliseconds or seconds. Zero is no time.
func lcUnix(n int64) time.Time {
	a := n
	if a < 0 {
		a = -a
	}
	switch {
	case n == 0:
		return time.Time{}
	case a >= 1e17:
		return time.Unix(0, n).UTC()
	case a >= 1e14:
		return time.UnixMicro(n).UTC()
	case a >= 1e11:
		return time.UnixMilli(n).UTC()
	}
	return time.Unix(n, 0).UTC()
}
