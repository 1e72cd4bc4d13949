package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

var _ annals.OutboxGivenUp = (*DB)(nil)

// MarkGivenUp records a dropped operation's mark in the drop's transaction, with the lane's
// quarantine diagnostic (still held: the drop releases the lane after it commits).
func (d *dropTx) MarkGivenUp(g *annals.GivenUpOp) error {
	ids := g.EntryIDs
	if ids == nil {
		ids = []string{}
	}
	_, err := d.tx.Exec(d.ctx, `INSERT INTO replication_given_up
		(chat_id, op_id, lane_seq, kind, entry_ids, run_id, code, message, dropped_at)
		VALUES ($1, $2, $3, $4, $5, $6,
			COALESCE((SELECT code FROM replication_quarantine WHERE chat_id = $1 AND op_id = $2), ''),
			COALESCE((SELECT message FROM replication_quarantine WHERE chat_id = $1 AND op_id = $2), ''), $7)
		ON CONFLICT (chat_id, op_id) DO UPDATE SET lane_seq = EXCLUDED.lane_seq, kind = EXCLUDED.kind,
			entry_ids = EXCLUDED.entry_ids, run_id = EXCLUDED.run_id, code = EXCLUDED.code,
			message = EXCLUDED.message, dropped_at = EXCLUDED.dropped_at`,
		g.ChatID, g.OpID, g.LaneSeq, string(g.Kind), ids, g.RunID, unixNano(d.now))
	if err != nil {
		return d.db.storeErr("mark the operation given up", err)
	}
	return nil
}

// GivenUp returns the marks of dropped operations; see annals.OutboxGivenUp.
func (db *DB) GivenUp(ctx context.Context, chatID string) ([]*annals.GivenUpOp, error) {
	rows, err := db.pool.Query(ctx, `SELECT chat_id, op_id, lane_seq, kind, entry_ids, run_id, code, message, dropped_at
		FROM replication_given_up WHERE $1 = '' OR chat_id = $1 ORDER BY chat_id, lane_seq, op_id`, chatID)
	if err != nil {
		return nil, db.storeErr("read given-up operations", err)
	}
	defer rows.Close()
	out := []*annals.GivenUpOp{}
	for rows.Next() {
		var g annals.GivenUpOp
		var at int64
		if err := rows.Scan(&g.ChatID, &g.OpID, &g.LaneSeq, &g.Kind, &g.EntryIDs, &g.RunID, &g.Code, &g.Message, &at); err != nil {
			return nil, db.storeErr("read given-up operations", err)
		}
		if len(g.EntryIDs) == 0 {
			g.EntryIDs = nil
		}
		g.DroppedAt = fromNano(at)
		out = append(out, &g)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("read given-up operations", err)
	}
	return out, nil
}

// ForgetGivenUp removes a lane's marks; see annals.OutboxGivenUp.
func (db *DB) ForgetGivenUp(ctx context.Context, chatID string) (int, error) {
	if err := annals.ValidateID("chat_id", chatID); err != nil {
		return 0, err
	}
	var n int64
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM replication_given_up WHERE chat_id = $1`, chatID)
		if err != nil {
			return db.storeErr("forget given-up operations", err)
		}
		n = tag.RowsAffected()
		return nil
	})
	return int(n), err
}
