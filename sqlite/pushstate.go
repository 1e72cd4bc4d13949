package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/annals-dev/annals"
)

// The push worker's state on SQLite (docs/REPLICATION.md, migration 0019).

var _ annals.PushStateStore = (*DB)(nil)

// QuarantineLane records a lane's quarantine; see annals.PushStateStore.
func (db *DB) QuarantineLane(ctx context.Context, q *annals.LaneQuarantine) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO replication_quarantine (chat_id, op_id, status, code, message, at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (chat_id) DO UPDATE SET op_id = excluded.op_id, status = excluded.status, code = excluded.code,
				message = excluded.message, at = excluded.at`, q.ChatID, q.OpID, q.Status, q.Code, q.Message, unixNano(q.At))
		return storeErrOrNil("quarantine lane", err)
	})
}

// ReleaseLane removes a lane's quarantine; see annals.PushStateStore.
func (db *DB) ReleaseLane(ctx context.Context, chatID string) (bool, error) {
	var n int64
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `DELETE FROM replication_quarantine WHERE chat_id = ?`, chatID)
		if err != nil {
			return storeErr("release lane", err)
		}
		n, _ = r.RowsAffected()
		return nil
	})
	return n > 0, err
}

// Quarantined returns the quarantined lanes; see annals.PushStateStore.
func (db *DB) Quarantined(ctx context.Context) ([]*annals.LaneQuarantine, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT chat_id, op_id, status, code, message, at FROM replication_quarantine ORDER BY chat_id`)
	if err != nil {
		return nil, storeErr("read quarantined lanes", err)
	}
	defer rows.Close()
	out := []*annals.LaneQuarantine{}
	for rows.Next() {
		var q annals.LaneQuarantine
		var at int64
		if err := rows.Scan(&q.ChatID, &q.OpID, &q.Status, &q.Code, &q.Message, &at); err != nil {
			return nil, storeErr("read quarantined lanes", err)
		}
		q.At = fromNano(at)
		out = append(out, &q)
	}
	return out, storeErrOrNil("read quarantined lanes", rows.Err())
}

// RecordPush stores the time of the last acknowledged push; see annals.PushStateStore.
func (db *DB) RecordPush(ctx context.Context, at time.Time) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error { return recordPushIn(ctx, tx, at) })
}

// recordPushIn stores the time of the last acknowledged push in tx.
func recordPushIn(ctx context.Context, tx *sql.Tx, at time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO replication_push (singleton, last_success) VALUES (1, ?)
		ON CONFLICT (singleton) DO UPDATE SET last_success = excluded.last_success`, unixNano(at))
	return storeErrOrNil("record push", err)
}

// LastPush reads the time of the last acknowledged push; see annals.PushStateStore.
func (db *DB) LastPush(ctx context.Context) (time.Time, error) {
	var at int64
	err := db.reader.QueryRowContext(ctx, `SELECT last_success FROM replication_push WHERE singleton = 1`).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, storeErr("read last push", err)
	}
	return fromNano(at), nil
}
