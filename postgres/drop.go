package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

var _ annals.OutboxDrop = (*DB)(nil)

// DropOp drops a refused operation and numbers the lane's later ones on from the remote's head;
// see annals.OutboxDrop. The lane's row is locked first, as every writer of the lane does after
// its chat's.
func (db *DB) DropOp(ctx context.Context, chatID, opID string, baseSeq int64, baseDigest string) (*annals.ReplicationOp, error) {
	if err := annals.ValidateID("chat_id", chatID); err != nil {
		return nil, err
	}
	var dropped *annals.ReplicationOp
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		var err error
		dropped, err = storecore.DropOp(&dropTx{db: db, ctx: ctx, tx: tx, now: db.now()}, chatID, opID, baseSeq, baseDigest)
		return err
	})
	return dropped, err
}

// dropTx is storecore.DropTx over a PostgreSQL transaction; now stamps the mark.
type dropTx struct {
	db  *DB
	ctx context.Context
	tx  pgx.Tx
	now time.Time
}

func (d *dropTx) QueuedOps(chatID string) ([]*annals.ReplicationOp, error) {
	if _, err := d.tx.Exec(d.ctx, `SELECT 1 FROM replication_lanes WHERE chat_id = $1 FOR UPDATE`, chatID); err != nil {
		return nil, d.db.storeErr("lock lane", err)
	}
	rows, err := d.tx.Query(d.ctx, `SELECT `+opColumns+` FROM replication_outbox WHERE chat_id = $1 ORDER BY lane_seq`, chatID)
	if err != nil {
		return nil, d.db.storeErr("read outbox", err)
	}
	defer rows.Close()
	var ops []*annals.ReplicationOp
	for rows.Next() {
		op, err := d.db.scanOp(rows)
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if err := rows.Err(); err != nil {
		return nil, d.db.storeErr("read outbox", err)
	}
	return ops, nil
}

func (d *dropTx) DeleteOp(op *annals.ReplicationOp) error {
	if _, err := d.tx.Exec(d.ctx, `DELETE FROM replication_outbox WHERE seq = $1`, op.Seq); err != nil {
		return d.db.storeErr("drop operation", err)
	}
	return nil
}

func (d *dropTx) UpdateOp(op *annals.ReplicationOp) error {
	if _, err := d.tx.Exec(d.ctx, `UPDATE replication_outbox SET lane_seq = $2, payload = $3, digest = $4 WHERE seq = $1`,
		op.Seq, op.LaneSeq, []byte(op.Payload), op.Digest); err != nil {
		return d.db.storeErr("renumber operation", err)
	}
	return nil
}

func (d *dropTx) SetHead(chatID string, seq int64, digest string) error {
	if _, err := d.tx.Exec(d.ctx, `UPDATE replication_lanes SET last_seq = $2, last_digest = $3 WHERE chat_id = $1`, chatID, seq, digest); err != nil {
		return d.db.storeErr("write lane head", err)
	}
	return nil
}
