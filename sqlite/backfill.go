package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

var _ annals.OutboxBackfill = (*DB)(nil)

// QueueChat queues a chat recorded while the outbox was off as a new lane; see
// annals.OutboxBackfill.
func (db *DB) QueueChat(ctx context.Context, snap *annals.ChatSnapshot) (bool, error) {
	queued := false
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		host, err := outboxHost(ctx, tx)
		if err != nil {
			return err
		}
		if host == nil {
			return errOutboxOff()
		}
		var one int
		err = tx.QueryRowContext(ctx, `SELECT 1 FROM replication_lanes WHERE chat_id = ?`, snap.Chat.ID).Scan(&one)
		if err == nil {
			return nil // the chat has a lane: its changes are already queued or sent
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return storeErr("read lane", err)
		}
		var incarnation, lastSeq int64
		err = tx.QueryRowContext(ctx, `SELECT incarnation, last_seq FROM chats WHERE id = ?`, snap.Chat.ID).Scan(&incarnation, &lastSeq)
		if errors.Is(err, sql.ErrNoRows) {
			return annals.NotFound(snap.Chat.ID)
		}
		if err != nil {
			return storeErr("read chat", err)
		}
		if incarnation != snap.Chat.Incarnation || lastSeq != storecore.LastSeq(snap) {
			return errChangedSinceRead(snap.Chat.ID)
		}
		queued = true
		return db.writeOutbox(ctx, tx, host, storecore.SnapshotChanges(snap))
	})
	return queued, err
}

func errOutboxOff() error {
	return annals.Errorf(annals.EFORBIDDEN, "the replication outbox is off: turn it on (configure a remote) before queueing chats")
}

func errChangedSinceRead(id string) error {
	return annals.Errorf(annals.ECONFLICT, "chat %q changed while it was read for the outbox; read it again", id)
}
