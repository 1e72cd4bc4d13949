package sqlite

import (
	"context"
	"database/sql"
)

// Counts returns how many chats and entries the database holds, across every tenant. It reads
// the chats table only (entry counts are kept on each chat), so it is cheap enough for a
// metrics scrape. It is for operators (the server's /metrics), never for a caller's answer.
func (db *DB) Counts(ctx context.Context) (chats, entries int64, err error) {
	var sum sql.NullInt64
	if err := db.reader.QueryRowContext(ctx, `SELECT count(*), sum(entry_count) FROM chats`).Scan(&chats, &sum); err != nil {
		return 0, 0, storeErr("count chats", err)
	}
	return chats, sum.Int64, nil
}
