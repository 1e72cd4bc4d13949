package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// The change feed on PostgreSQL (docs/REPLICATION.md, migration 0023). A transaction takes its
// tenant's sequences last, just before it commits, and holds the tenant's feed_seqs row until
// then: the writers of one tenant commit their feed rows in sequence order (a reader that saw
// sequence n has seen every sequence before it), and the lock is held only for the commit.

var _ annals.FeedStore = (*DB)(nil)

// feedTouchPK marks the chat of row pk, which this capture locked, as changed.
func (w *writer) feedTouchPK(pk int64) {
	for id, c := range w.chats {
		if c.pk == pk {
			w.db.feedMarks.Touch(w.tx, id, c.tenantID, false)
			return
		}
	}
}

// writeFeed writes the feed rows of the chats tx changed (last, before the commit).
func (db *DB) writeFeed(ctx context.Context, tx pgx.Tx) error {
	marks := db.feedMarks.Take(tx)
	if len(marks) == 0 {
		return nil
	}
	return storecore.WriteFeed(&feedTx{db: db, ctx: ctx, tx: tx}, marks)
}

type feedTx struct {
	db  *DB
	ctx context.Context
	tx  pgx.Tx
}

func (f *feedTx) ChatTenants(ids []string) (map[string]string, error) {
	rows, err := f.tx.Query(f.ctx, `SELECT id, tenant_id FROM chats WHERE id = ANY($1::text[])`, ids)
	if err != nil {
		return nil, f.db.storeErr("feed: find chats", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, tenant string
		if err := rows.Scan(&id, &tenant); err != nil {
			return nil, f.db.storeErr("feed: find chats", err)
		}
		out[id] = tenant
	}
	return out, f.db.storeErrOrNil("feed: find chats", rows.Err())
}

// AppendFeed takes the tenant's sequences and writes the chats' rows in one statement: the
// counter's row stays locked until the commit.
func (f *feedTx) AppendFeed(tenantID string, marks []storecore.FeedMark) error {
	ids := make([]string, len(marks))
	deleted := make([]bool, len(marks))
	for i, m := range marks {
		ids[i], deleted[i] = m.ChatID, m.Deleted
	}
	_, err := f.tx.Exec(f.ctx, `WITH s AS (
			INSERT INTO feed_seqs (tenant_id, seq) VALUES ($1, $4)
			ON CONFLICT (tenant_id) DO UPDATE SET seq = feed_seqs.seq + excluded.seq RETURNING seq)
		INSERT INTO feed_chats (tenant_id, chat_id, seq, deleted)
		SELECT $1, u.c, s.seq - $4 + u.n, u.d FROM s, unnest($2::text[], $3::boolean[]) WITH ORDINALITY AS u(c, d, n)
		ON CONFLICT (tenant_id, chat_id) DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted`,
		tenantID, ids, deleted, int64(len(marks)))
	if err != nil {
		return f.db.storeErr("feed: write chats", err)
	}
	return nil
}

// FeedChanges returns a tenant's feed after a sequence; see annals.FeedStore.
func (db *DB) FeedChanges(ctx context.Context, tenantID string, after int64, limit int) ([]*annals.FeedChange, error) {
	if limit < 1 {
		return nil, annals.Errorf(annals.EINVALID, "limit must be at least 1")
	}
	rows, err := db.pool.Query(ctx, `SELECT seq, chat_id, deleted FROM feed_chats
		WHERE tenant_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, tenantID, after, limit)
	if err != nil {
		return nil, db.storeErr("read feed", err)
	}
	defer rows.Close()
	out := []*annals.FeedChange{}
	for rows.Next() {
		var c annals.FeedChange
		if err := rows.Scan(&c.Seq, &c.ChatID, &c.Deleted); err != nil {
			return nil, db.storeErr("read feed", err)
		}
		out = append(out, &c)
	}
	return out, db.storeErrOrNil("read feed", rows.Err())
}

// ChatFieldStamps returns the stamps of a chat's human layer; see annals.FeedStore.
func (db *DB) ChatFieldStamps(ctx context.Context, chatID string) (map[string]annals.FieldStamp, error) {
	return db.fieldStamps(ctx, db.pool, chatID)
}
