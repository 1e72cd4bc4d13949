package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"math"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// A mirror database (docs/REPLICATION.md, "The change feed and the mirror"): the copy of a
// remote's collection that annals replicate pull keeps, read-only for everyone else.

var _ annals.MirrorStore = (*DB)(nil)

// loadMirror reads whether the database is a mirror, so that its writes are refused (a
// read-only open of a schema from before mirrors has none).
func (db *DB) loadMirror(ctx context.Context) error {
	var n int
	if err := db.reader.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'mirror_state'`).Scan(&n); err != nil || n == 0 {
		return storeErrOrNil("find mirror state", err)
	}
	st, err := readMirrorState(ctx, db.reader)
	if err != nil || st == nil {
		return err
	}
	db.mirrorOf.Store(&st.Remote)
	return nil
}

func readMirrorState(ctx context.Context, q querier) (*annals.MirrorState, error) {
	var st annals.MirrorState
	var updated int64
	err := q.QueryRowContext(ctx, `SELECT remote, tenant_id, cursor, updated_at FROM mirror_state WHERE singleton = 1`).
		Scan(&st.Remote, &st.TenantID, &st.Cursor, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr("read mirror state", err)
	}
	st.UpdatedAt = fromNano(updated)
	return &st, nil
}

// MirrorState returns the mirror's record; see annals.MirrorStore.
func (db *DB) MirrorState(ctx context.Context) (*annals.MirrorState, error) {
	return readMirrorState(ctx, db.reader)
}

// ApplyMirror applies a page of a remote's feed in one transaction; see annals.MirrorStore.
func (db *DB) ApplyMirror(ctx context.Context, state *annals.MirrorState, chats []*annals.FeedChat) error {
	if db.readOnly {
		return errReadOnly()
	}
	err := db.runWriteTx(ctx, func(tx *sql.Tx) error {
		return storecore.ApplyMirror(&mirrorTx{replicaTx: replicaTx{db: db, ctx: ctx, tx: tx}}, state, chats, db.now())
	}, func(tx *sql.Tx) error { return flushChatDocsIn(ctx, db.wstmts.of(tx), math.MaxInt64, db.blockLimits()) })
	if err != nil {
		return err
	}
	remote := state.Remote
	db.mirrorOf.Store(&remote)
	return nil
}

// mirrorTx is storecore.MirrorTx over a SQLite write transaction.
type mirrorTx struct{ replicaTx }

func (m *mirrorTx) MirrorState() (*annals.MirrorState, error) { return readMirrorState(m.ctx, m.tx) }

func (m *mirrorTx) SetMirrorState(s *annals.MirrorState) error {
	_, err := m.tx.ExecContext(m.ctx, `INSERT INTO mirror_state (singleton, remote, tenant_id, cursor, updated_at) VALUES (1, ?, ?, ?, ?)
		ON CONFLICT (singleton) DO UPDATE SET remote = excluded.remote, tenant_id = excluded.tenant_id, cursor = excluded.cursor, updated_at = excluded.updated_at`,
		s.Remote, s.TenantID, s.Cursor, unixNano(s.UpdatedAt))
	return storeErrOrNil("write mirror state", err)
}

func (m *mirrorTx) HasChats() (bool, error) {
	var one int
	err := m.tx.QueryRowContext(m.ctx, `SELECT 1 FROM chats LIMIT 1`).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, storeErrOrNil("find a chat", err)
}

func (m *mirrorTx) ChatRef(chatID string) (*annals.ChatRef, error) {
	c, err := findChatByID(m.ctx, m.tx, chatID)
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ref := c.Ref()
	return &ref, nil
}
