package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

// The push worker's state on PostgreSQL (docs/REPLICATION.md, migration 0013).

var _ annals.PushStateStore = (*DB)(nil)

// QuarantineLane records a lane's quarantine; see annals.PushStateStore.
func (db *DB) QuarantineLane(ctx context.Context, q *annals.LaneQuarantine) error {
	if db.readOnly {
		return errReadOnly()
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO replication_quarantine (chat_id, op_id, status, code, message, at) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (chat_id) DO UPDATE SET op_id = excluded.op_id, status = excluded.status, code = excluded.code,
			message = excluded.message, at = excluded.at`, q.ChatID, q.OpID, q.Status, q.Code, q.Message, unixNano(q.At))
	if err != nil {
		return db.storeErr("quarantine lane", err)
	}
	return nil
}

// ReleaseLane removes a lane's quarantine; see annals.PushStateStore.
func (db *DB) ReleaseLane(ctx context.Context, chatID string) (bool, error) {
	if db.readOnly {
		return false, errReadOnly()
	}
	tag, err := db.pool.Exec(ctx, `DELETE FROM replication_quarantine WHERE chat_id = $1`, chatID)
	if err != nil {
		return false, db.storeErr("release lane", err)
	}
	return tag.RowsAffected() > 0, nil
}

// Quarantined returns the quarantined lanes; see annals.PushStateStore.
func (db *DB) Quarantined(ctx context.Context) ([]*annals.LaneQuarantine, error) {
	rows, err := db.pool.Query(ctx, `SELECT chat_id, op_id, status, code, message, at FROM replication_quarantine ORDER BY chat_id`)
	if err != nil {
		return nil, db.storeErr("read quarantined lanes", err)
	}
	defer rows.Close()
	out := []*annals.LaneQuarantine{}
	for rows.Next() {
		var q annals.LaneQuarantine
		var at int64
		if err := rows.Scan(&q.ChatID, &q.OpID, &q.Status, &q.Code, &q.Message, &at); err != nil {
			return nil, db.storeErr("read quarantined lanes", err)
		}
		q.At = fromNano(at)
		out = append(out, &q)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("read quarantined lanes", err)
	}
	return out, nil
}

// RecordPush stores the time of the last acknowledged push; see annals.PushStateStore.
func (db *DB) RecordPush(ctx context.Context, at time.Time) error {
	if db.readOnly {
		return errReadOnly()
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO replication_push (singleton, last_success) VALUES (1, $1)
		ON CONFLICT (singleton) DO UPDATE SET last_success = excluded.last_success`, unixNano(at))
	if err != nil {
		return db.storeErr("record push", err)
	}
	return nil
}

// LastPush reads the time of the last acknowledged push; see annals.PushStateStore.
func (db *DB) LastPush(ctx context.Context) (time.Time, error) {
	var at int64
	err := db.pool.QueryRow(ctx, `SELECT last_success FROM replication_push WHERE singleton = 1`).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, db.storeErr("read last push", err)
	}
	return fromNano(at), nil
}
