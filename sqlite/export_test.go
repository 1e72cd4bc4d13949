package sqlite

import "context"

// ExecForTest runs a statement on the writer, for tests that must set up states the API
// cannot produce (a schema from the future, say).
func (db *DB) ExecForTest(ctx context.Context, query string) error {
	_, err := db.writer.ExecContext(ctx, query)
	return err
}
