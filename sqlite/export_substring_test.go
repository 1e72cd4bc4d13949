package sqlite

import (
	"context"
	"database/sql"
)

// BuildSubstringIndexForTest runs the on-open build of the substring index with a batch size of
// the test's choosing.
func (db *DB) BuildSubstringIndexForTest(ctx context.Context, report func(done, total int), batch int) error {
	return db.backfillSubstringIndex(ctx, report, batch)
}

// UndoSubstringIndexForTest puts the file back where an upgrade to migration 0009 finds it with
// entries already stored: the index and its triggers dropped, then the migration run again, so
// every entry is left for the build. Migration 0009's own triggers are dropped again after it,
// as 0012 replaced them with the queue's.
func (db *DB) UndoSubstringIndexForTest(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{`DROP TABLE entries_tri`, `DROP TABLE entries_tri_todo`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		for _, m := range ms {
			if m.Version != 9 {
				continue
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return err
			}
		}
		for _, q := range []string{`DROP TRIGGER entries_tri_insert`, `DROP TRIGGER entries_tri_delete`, `DROP TRIGGER entries_tri_update`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}
