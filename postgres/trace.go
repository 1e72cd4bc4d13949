package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

// The read statements the benchmark harness times (search, the chat list, related's
// candidates) run through these two, so that a trace on the context (annals.TraceStatement)
// sees exactly the SQL and arguments PostgreSQL gets, numbered as psql can replay them.

// tracedQuery numbers q's placeholders, reports it to the context's trace and runs it.
func (db *DB) tracedQuery(ctx context.Context, q string, args ...any) (pgx.Rows, error) {
	q = rebind(q)
	annals.TraceStatement(ctx, q, args)
	return db.pool.Query(ctx, q, args...)
}

// tracedQueryRow is tracedQuery for a statement of one row.
func (db *DB) tracedQueryRow(ctx context.Context, q string, args ...any) pgx.Row {
	q = rebind(q)
	annals.TraceStatement(ctx, q, args)
	return db.pool.QueryRow(ctx, q, args...)
}
