package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

var _ annals.OutboxDrop = (*DB)(nil)

// DropOp drops a refused operation and numbers the lane's later ones on from the remote's head;
// see annals.OutboxDrop.
func (db *DB) DropOp(ctx context.Context, chatID, opID string, baseSeq int64, baseDigest string) (*annals.ReplicationOp, error) {
	if err := annals.ValidateID("chat_id", chatID); err != nil {
		return nil, err
	}
	var dropped *annals.ReplicationOp
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		dropped, err = storecore.DropOp(&dropTx{outboxTx: outboxTx{ctx: ctx, tx: tx}, now: db.now()}, chatID, opID, baseSeq, baseDigest)
		return err
	})
	return dropped, err
}

// dropTx is storecore.DropTx over a SQLite write transaction; now stamps the mark.
type dropTx struct {
	outboxTx
	now time.Time
}

func (d *dropTx) QueuedOps(chatID string) ([]*annals.ReplicationOp, error) {
	rows, err := d.tx.QueryContext(d.ctx, `SELECT `+opColumns+` FROM replication_outbox WHERE chat_id = ? ORDER BY lane_seq`, chatID)
	if err != nil {
		return nil, storeErr("read outbox", err)
	}
	defer rows.Close()
	var ops []*annals.ReplicationOp
	for rows.Next() {
		op, err := scanOp(rows)
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("read outbox", err)
	}
	return ops, nil
}

func (d *dropTx) DeleteOp(op *annals.ReplicationOp) error {
	_, err := d.tx.ExecContext(d.ctx, `DELETE FROM replication_outbox WHERE seq = ?`, op.Seq)
	return storeErrOrNil("drop operation", err)
}

func (d *dropTx) UpdateOp(op *annals.ReplicationOp) error {
	_, err := d.tx.ExecContext(d.ctx, `UPDATE replication_outbox SET lane_seq = ?, payload = ?, digest = ? WHERE seq = ?`,
		op.LaneSeq, []byte(op.Payload), op.Digest, op.Seq)
	return storeErrOrNil("renumber operation", err)
}

func (d *dropTx) SetHead(chatID string, seq int64, digest string) error {
	return d.SetLaneHead(chatID, seq, digest)
}
