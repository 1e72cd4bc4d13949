package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

var _ annals.OutboxRepair = (*DB)(nil)

// ResetLane queues the repair of a lane: its queue and quarantine dropped, a reset to snap (nil:
// the chat's tombstone) queued after its head; see annals.OutboxRepair.
func (db *DB) ResetLane(ctx context.Context, chatID string, snap *annals.ChatSnapshot) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		host, err := outboxHost(ctx, tx)
		if err != nil {
			return err
		}
		if host == nil {
			return errOutboxOff()
		}
		var one int
		err = tx.QueryRowContext(ctx, `SELECT 1 FROM replication_lanes WHERE chat_id = ?`, chatID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return annals.Errorf(annals.ENOTFOUND, "chat %q has no replication lane (run 'annals replicate backfill')", chatID)
		}
		if err != nil {
			return storeErr("read lane", err)
		}
		var incarnation, lastSeq int64
		err = tx.QueryRowContext(ctx, `SELECT incarnation, last_seq FROM chats WHERE id = ?`, chatID).Scan(&incarnation, &lastSeq)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if snap != nil {
				return errChangedSinceRead(chatID)
			}
		case err != nil:
			return storeErr("read chat", err)
		case snap == nil || incarnation != snap.Chat.Incarnation || lastSeq != storecore.LastSeq(snap):
			return errChangedSinceRead(chatID)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM replication_outbox WHERE chat_id = ?`, chatID); err != nil {
			return storeErr("drop the lane's queue", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM replication_quarantine WHERE chat_id = ?`, chatID); err != nil {
			return storeErr("release the lane", err)
		}
		return db.writeOutbox(ctx, tx, host, storecore.ResetChanges(chatID, snap))
	})
}
