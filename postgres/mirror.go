package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// A mirror database (docs/REPLICATION.md, "The change feed and the mirror"): the copy of a
// remote's collection that annals replicate pull keeps, read-only for everyone else.

var _ annals.MirrorStore = (*DB)(nil)

// loadMirror reads whether the database is a mirror, so that its writes are refused (a
// read-only open of a schema from before mirrors has none).
func (db *DB) loadMirror(ctx context.Context) error {
	var exists bool
	if err := db.pool.QueryRow(ctx, `SELECT to_regclass('mirror_state') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return db.storeErrOrNil("find mirror state", err)
	}
	st, err := db.readMirrorState(ctx, db.pool)
	if err != nil || st == nil {
		return err
	}
	db.mirrorOf.Store(&st.Remote)
	return nil
}

func (db *DB) readMirrorState(ctx context.Context, q querier) (*annals.MirrorState, error) {
	var st annals.MirrorState
	var updated int64
	err := q.QueryRow(ctx, `SELECT remote, tenant_id, cursor, updated_at FROM mirror_state WHERE singleton = 1`).
		Scan(&st.Remote, &st.TenantID, &st.Cursor, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, db.storeErr("read mirror state", err)
	}
	st.UpdatedAt = fromNano(updated)
	return &st, nil
}

// MirrorState returns the mirror's record; see annals.MirrorStore.
func (db *DB) MirrorState(ctx context.Context) (*annals.MirrorState, error) {
	return db.readMirrorState(ctx, db.pool)
}

// ApplyMirror applies a page of a remote's feed in one transaction; see annals.MirrorStore.
func (db *DB) ApplyMirror(ctx context.Context, state *annals.MirrorState, chats []*annals.FeedChat) error {
	if db.readOnly {
		return errReadOnly()
	}
	err := db.runWriteTx(ctx, func(tx pgx.Tx) error {
		// One puller at a time: the state row (or the table, before the first) is locked first.
		if _, err := tx.Exec(ctx, `LOCK TABLE mirror_state IN EXCLUSIVE MODE`); err != nil {
			return db.storeErr("lock mirror state", err)
		}
		return storecore.ApplyMirror(&mirrorTx{replicaTx: *newReplicaTx(ctx, db, tx, nil)}, state, chats, db.now())
	})
	if err != nil {
		return err
	}
	remote := state.Remote
	db.mirrorOf.Store(&remote)
	return nil
}

// mirrorTx is storecore.MirrorTx over a PostgreSQL write transaction.
type mirrorTx struct{ replicaTx }

func (m *mirrorTx) MirrorState() (*annals.MirrorState, error) {
	return m.db.readMirrorState(m.ctx, m.tx)
}

func (m *mirrorTx) SetMirrorState(s *annals.MirrorState) error {
	_, err := m.tx.Exec(m.ctx, `INSERT INTO mirror_state (singleton, remote, tenant_id, cursor, updated_at) VALUES (1, $1, $2, $3, $4)
		ON CONFLICT (singleton) DO UPDATE SET remote = excluded.remote, tenant_id = excluded.tenant_id, cursor = excluded.cursor, updated_at = excluded.updated_at`,
		s.Remote, s.TenantID, s.Cursor, unixNano(s.UpdatedAt))
	return m.db.storeErrOrNil("write mirror state", err)
}

func (m *mirrorTx) HasChats() (bool, error) {
	var one int
	err := m.tx.QueryRow(m.ctx, `SELECT 1 FROM chats LIMIT 1`).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, m.db.storeErrOrNil("find a chat", err)
}

func (m *mirrorTx) ChatRef(chatID string) (*annals.ChatRef, error) {
	c, err := m.db.findChatByID(m.ctx, m.tx, chatID)
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ref := c.Ref()
	return &ref, nil
}
