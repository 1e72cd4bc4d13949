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
// A database keeps a feed only once it serves one (migration 0027): a writer that has not seen
// it on asks annals_feed_serving(), which holds the shared side of the feed's advisory lock to
// the commit, and EnableFeed takes the exclusive side before its backfill.

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

// writeFeed writes the feed rows of the chats tx changed (last, before the commit), when the
// database keeps a feed.
func (db *DB) writeFeed(ctx context.Context, tx pgx.Tx) error {
	return db.feedMarks.Write(tx, &feedTx{db: db, ctx: ctx, tx: tx})
}

// EnableFeed makes the database keep a feed, its chats entering it now; see annals.FeedStore.
// It waits for the writers that found the feed off (the exclusive side of the feed's lock), so
// its backfill sees their changes, and every writer after it finds the feed on.
func (db *DB) EnableFeed(ctx context.Context) error {
	if db.feedMarks.On() {
		return nil
	}
	var on bool
	if err := db.pool.QueryRow(ctx, `SELECT serving FROM feed_state WHERE singleton = 1`).Scan(&on); err != nil {
		return db.storeErr("feed: read state", err)
	}
	if on { // on already: a read-only server serves it too
		db.feedMarks.SetOn()
		return nil
	}
	if db.readOnly {
		return storecore.ErrFeedOffReadOnly()
	}
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('annals.feed.' || current_schema()))`); err != nil {
			return db.storeErr("feed: lock", err)
		}
		var on bool
		if err := tx.QueryRow(ctx, `SELECT serving FROM feed_state WHERE singleton = 1`).Scan(&on); err != nil || on {
			return db.storeErrOrNil("feed: read state", err)
		}
		if err := storecore.BackfillFeed(&feedTx{db: db, ctx: ctx, tx: tx}); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE feed_state SET serving = true`)
		return db.storeErrOrNil("feed: turn on", err)
	})
	if err == nil {
		db.feedMarks.SetOn()
	}
	return err
}

type feedTx struct {
	db  *DB
	ctx context.Context
	tx  pgx.Tx
}

func (f *feedTx) FeedOn() (bool, error) {
	var on bool
	err := f.tx.QueryRow(f.ctx, `SELECT annals_feed_serving()`).Scan(&on)
	return on, f.db.storeErrOrNil("feed: read state", err)
}

func (f *feedTx) StaleFeedRows() ([]storecore.FeedMark, error) {
	return f.marks(`SELECT f.tenant_id, f.chat_id FROM feed_chats f WHERE NOT f.deleted
		AND NOT EXISTS (SELECT 1 FROM chats c WHERE c.id = f.chat_id AND c.tenant_id = f.tenant_id)
		ORDER BY f.tenant_id, f.seq`)
}

func (f *feedTx) HeldChats() ([]storecore.FeedMark, error) {
	return f.marks(`SELECT tenant_id, id FROM chats ORDER BY pk`)
}

// marks reads (tenant, chat) rows.
func (f *feedTx) marks(query string) ([]storecore.FeedMark, error) {
	rows, err := f.tx.Query(f.ctx, query)
	if err != nil {
		return nil, f.db.storeErr("feed: read chats", err)
	}
	defer rows.Close()
	var out []storecore.FeedMark
	for rows.Next() {
		var m storecore.FeedMark
		if err := rows.Scan(&m.TenantID, &m.ChatID); err != nil {
			return nil, f.db.storeErr("feed: read chats", err)
		}
		out = append(out, m)
	}
	return out, f.db.storeErrOrNil("feed: read chats", rows.Err())
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
