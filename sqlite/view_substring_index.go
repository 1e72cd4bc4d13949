package sqlite

import (
	"context"
	"database/sql"
	"errors"
)

// substringBatch is how many entries one transaction of the substring index's build adds: big
// enough that a million entries take few commits, small enough that each holds the write lock
// for well under a second.
const substringBatch = 20000

// backfillSubstringIndex adds to entries_tri the entries migration 0009 found (the range in
// entries_tri_todo), in batches of batch entries (Open: substringBatch), reporting progress to report (when set) as
// entries done and total. Searches scan with LIKE until it is done, so a read-only open of a
// half-built file still answers right. Each batch moves the range's start in the same
// transaction, so a crash or a second process building at once never adds an entry twice.
func (db *DB) backfillSubstringIndex(ctx context.Context, report func(done, total int), batch int) error {
	var from, last int64
	err := db.writer.QueryRowContext(ctx, `SELECT done, last FROM entries_tri_todo`).Scan(&from, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return storeErr("substring index: read", err)
	}
	var total int
	if err := db.writer.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE pk > ? AND pk <= ?`, from, last).Scan(&total); err != nil {
		return storeErr("substring index: count", err)
	}
	done, batches := 0, 0
	for finished := false; !finished; {
		var n int64
		err := db.writeTxThen(ctx, func(tx *sql.Tx) error {
			var err error
			n, finished, err = substringIndexBatch(ctx, tx, batch)
			return err
		}, func(*sql.Tx) error { return nil })
		if err != nil {
			return err
		}
		done, batches = done+int(n), batches+1
		if report != nil {
			report(min(done, total), total)
		}
	}
	if batches < 2 {
		return nil
	}
	// One segment or more per batch otherwise, each one seeked by every lookup: merged once now,
	// as after a bulk load (Optimize).
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO entries_tri (entries_tri) VALUES ('optimize')`)
		return storeErrOrNil("substring index: optimize", err)
	})
}

// substringIndexBatch adds the next batch of entries to entries_tri and moves the range past
// it, deleting the range when it is done. It returns the entries added and whether it was the
// last batch.
func substringIndexBatch(ctx context.Context, tx *sql.Tx, batch int) (int64, bool, error) {
	var from, last int64
	err := tx.QueryRowContext(ctx, `SELECT done, last FROM entries_tri_todo`).Scan(&from, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, true, nil // another process finished it
	}
	if err != nil {
		return 0, false, storeErr("substring index: read", err)
	}
	bound := last
	err = tx.QueryRowContext(ctx, `SELECT pk FROM entries WHERE pk > ? AND pk <= ? ORDER BY pk LIMIT 1 OFFSET ?`, from, last, batch-1).Scan(&bound)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, false, storeErr("substring index: batch", err)
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO entries_tri (rowid, text, reasoning, tool_name, tool_args, tool_result)
		SELECT pk, text, reasoning, tool_name, tool_args, tool_result FROM entries WHERE pk > ? AND pk <= ?`, from, bound)
	if err != nil {
		return 0, false, storeErr("substring index: add", err)
	}
	n, _ := r.RowsAffected()
	if bound == last {
		_, err = tx.ExecContext(ctx, `DELETE FROM entries_tri_todo`)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE entries_tri_todo SET done = ?`, bound)
	}
	if err != nil {
		return 0, false, storeErr("substring index: progress", err)
	}
	return n, bound == last, nil
}
