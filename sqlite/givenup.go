package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/annals-dev/annals"
)

var _ annals.OutboxGivenUp = (*DB)(nil)

// MarkGivenUp records a dropped operation's mark in the drop's transaction, with the lane's
// quarantine diagnostic (still held: the drop releases the lane after it commits).
func (d *dropTx) MarkGivenUp(g *annals.GivenUpOp) error {
	ids, err := json.Marshal(nonNil(g.EntryIDs))
	if err != nil {
		return annals.Errorf(annals.EINTERNAL, "encode the given-up entries: %v", err)
	}
	_, err = d.tx.ExecContext(d.ctx, `INSERT OR REPLACE INTO replication_given_up
		(chat_id, op_id, lane_seq, kind, entry_ids, run_id, code, message, dropped_at)
		VALUES (?, ?, ?, ?, ?, ?,
			COALESCE((SELECT code FROM replication_quarantine WHERE chat_id = ? AND op_id = ?), ''),
			COALESCE((SELECT message FROM replication_quarantine WHERE chat_id = ? AND op_id = ?), ''), ?)`,
		g.ChatID, g.OpID, g.LaneSeq, string(g.Kind), string(ids), g.RunID, g.ChatID, g.OpID, g.ChatID, g.OpID, unixNano(d.now))
	return storeErrOrNil("mark the operation given up", err)
}

// GivenUp returns the marks of dropped operations; see annals.OutboxGivenUp.
func (db *DB) GivenUp(ctx context.Context, chatID string) ([]*annals.GivenUpOp, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT chat_id, op_id, lane_seq, kind, entry_ids, run_id, code, message, dropped_at
		FROM replication_given_up WHERE ? = '' OR chat_id = ? ORDER BY chat_id, lane_seq, op_id`, chatID, chatID)
	if err != nil {
		return nil, storeErr("read given-up operations", err)
	}
	defer rows.Close()
	out := []*annals.GivenUpOp{}
	for rows.Next() {
		var g annals.GivenUpOp
		var ids string
		var at int64
		if err := rows.Scan(&g.ChatID, &g.OpID, &g.LaneSeq, &g.Kind, &ids, &g.RunID, &g.Code, &g.Message, &at); err != nil {
			return nil, storeErr("read given-up operations", err)
		}
		if err := json.Unmarshal([]byte(ids), &g.EntryIDs); err != nil {
			return nil, storeErr("read given-up entries", err)
		}
		if len(g.EntryIDs) == 0 {
			g.EntryIDs = nil
		}
		g.DroppedAt = fromNano(at)
		out = append(out, &g)
	}
	return out, storeErrOrNil("read given-up operations", rows.Err())
}

// ForgetGivenUp removes a lane's marks; see annals.OutboxGivenUp.
func (db *DB) ForgetGivenUp(ctx context.Context, chatID string) (int, error) {
	if err := annals.ValidateID("chat_id", chatID); err != nil {
		return 0, err
	}
	var n int64
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM replication_given_up WHERE chat_id = ?`, chatID)
		if err != nil {
			return storeErr("forget given-up operations", err)
		}
		n, err = res.RowsAffected()
		return storeErrOrNil("forget given-up operations", err)
	})
	return int(n), err
}

// nonNil is ids, or an empty list for none (stored as [], never null).
func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}
