package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

var _ annals.OutboxRepair = (*DB)(nil)

// ResetLane queues the repair of a lane: its queue and quarantine dropped, a reset to snap (nil:
// the chat's tombstone) queued after its head; see annals.OutboxRepair. The chat's row is locked
// first, as every writer of the chat does, then the lane's.
func (db *DB) ResetLane(ctx context.Context, chatID string, snap *annals.ChatSnapshot) error {
	return db.writeTx(ctx, func(tx pgx.Tx) error {
		host, err := db.outboxHost(ctx, tx)
		if err != nil {
			return err
		}
		if host == nil {
			return annals.Errorf(annals.EFORBIDDEN, "the replication outbox is off: turn it on (configure a remote) before repairing lanes")
		}
		changed := annals.Errorf(annals.ECONFLICT, "chat %q changed while it was read for the outbox; read it again", chatID)
		var incarnation, lastSeq int64
		err = tx.QueryRow(ctx, `SELECT incarnation, last_seq FROM chats WHERE id = $1 FOR UPDATE`, chatID).Scan(&incarnation, &lastSeq)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if snap != nil {
				return changed
			}
		case err != nil:
			return db.storeErr("read chat", err)
		case snap == nil || incarnation != snap.Chat.Incarnation || lastSeq != storecore.LastSeq(snap):
			return changed
		}
		var one int
		err = tx.QueryRow(ctx, `SELECT 1 FROM replication_lanes WHERE chat_id = $1 FOR UPDATE`, chatID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return annals.Errorf(annals.ENOTFOUND, "chat %q has no replication lane (run 'annals replicate backfill')", chatID)
		}
		if err != nil {
			return db.storeErr("read lane", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM replication_outbox WHERE chat_id = $1`, chatID); err != nil {
			return db.storeErr("drop the lane's queue", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM replication_quarantine WHERE chat_id = $1`, chatID); err != nil {
			return db.storeErr("release the lane", err)
		}
		return db.writeOutbox(ctx, tx, host, storecore.ResetChanges(chatID, snap))
	})
}
