package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

var _ annals.OutboxBackfill = (*DB)(nil)

// QueueChat queues a chat recorded while the outbox was off as a new lane; see
// annals.OutboxBackfill. The chat's row is locked first, as every writer of the chat does.
func (db *DB) QueueChat(ctx context.Context, snap *annals.ChatSnapshot) (bool, error) {
	queued := false
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		queued = false
		host, err := db.outboxHost(ctx, tx)
		if err != nil {
			return err
		}
		if host == nil {
			return annals.Errorf(annals.EFORBIDDEN, "the replication outbox is off: turn it on (configure a remote) before queueing chats")
		}
		var incarnation, lastSeq int64
		err = tx.QueryRow(ctx, `SELECT incarnation, last_seq FROM chats WHERE id = $1 FOR UPDATE`, snap.Chat.ID).Scan(&incarnation, &lastSeq)
		if errors.Is(err, pgx.ErrNoRows) {
			return annals.NotFound(snap.Chat.ID)
		}
		if err != nil {
			return db.storeErr("read chat", err)
		}
		var one int
		err = tx.QueryRow(ctx, `SELECT 1 FROM replication_lanes WHERE chat_id = $1`, snap.Chat.ID).Scan(&one)
		if err == nil {
			return nil // the chat has a lane: its changes are already queued or sent
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return db.storeErr("read lane", err)
		}
		if incarnation != snap.Chat.Incarnation || lastSeq != storecore.LastSeq(snap) {
			return annals.Errorf(annals.ECONFLICT, "chat %q changed while it was read for the outbox; read it again", snap.Chat.ID)
		}
		queued = true
		return db.writeOutbox(ctx, tx, host, storecore.SnapshotChanges(snap))
	})
	return queued, err
}
