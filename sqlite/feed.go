package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// The change feed on SQLite (docs/REPLICATION.md, migrations 0029 and 0033). SQLite has one
// writer, so a tenant's sequences commit in the order they are taken, and a writer reads the
// feed's state (on or off) as the last commit left it: turning it on is a write like another.

var _ annals.FeedStore = (*DB)(nil)

// feedTouch marks a chat as changed by tx, for the feed written before it commits.
func (db *DB) feedTouch(tx *sql.Tx, chatID, tenantID string, deleted bool) {
	db.feedMarks.Touch(tx, chatID, tenantID, deleted)
}

// writeFeed writes the feed rows of the chats tx changed (last, before the commit), when the
// database keeps a feed.
func (db *DB) writeFeed(ctx context.Context, tx *sql.Tx) error {
	return db.feedMarks.Write(tx, &feedTx{ctx: ctx, tx: tx})
}

// EnableFeed makes the database keep a feed, its chats entering it now; see annals.FeedStore.
func (db *DB) EnableFeed(ctx context.Context) error {
	if db.feedMarks.On() {
		return nil
	}
	var on bool
	if err := db.reader.QueryRowContext(ctx, `SELECT serving FROM feed_state`).Scan(&on); err != nil {
		return storeErr("feed: read state", err)
	}
	if on { // on already: a read-only server serves it too
		db.feedMarks.SetOn()
		return nil
	}
	if db.readOnly {
		return storecore.ErrFeedOffReadOnly()
	}
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		f := &feedTx{ctx: ctx, tx: tx}
		if on, err := f.FeedOn(); err != nil || on {
			return err
		}
		if err := storecore.BackfillFeed(f); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE feed_state SET serving = 1`)
		return storeErrOrNil("feed: turn on", err)
	})
	if err == nil {
		db.feedMarks.SetOn()
	}
	return err
}

type feedTx struct {
	ctx context.Context
	tx  *sql.Tx
}

func (f *feedTx) FeedOn() (bool, error) {
	var on bool
	err := f.tx.QueryRowContext(f.ctx, `SELECT serving FROM feed_state`).Scan(&on)
	return on, storeErrOrNil("feed: read state", err)
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
	rows, err := f.tx.QueryContext(f.ctx, query)
	if err != nil {
		return nil, storeErr("feed: read chats", err)
	}
	defer rows.Close()
	var out []storecore.FeedMark
	for rows.Next() {
		var m storecore.FeedMark
		if err := rows.Scan(&m.TenantID, &m.ChatID); err != nil {
			return nil, storeErr("feed: read chats", err)
		}
		out = append(out, m)
	}
	return out, storeErrOrNil("feed: read chats", rows.Err())
}

func (f *feedTx) ChatTenants(ids []string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		var tenant string
		err := f.tx.QueryRowContext(f.ctx, `SELECT tenant_id FROM chats WHERE id = ?`, id).Scan(&tenant)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, storeErr("feed: find chat", err)
		}
		out[id] = tenant
	}
	return out, nil
}

func (f *feedTx) AppendFeed(tenantID string, marks []storecore.FeedMark) error {
	var last int64
	err := f.tx.QueryRowContext(f.ctx, `INSERT INTO feed_seqs (tenant_id, seq) VALUES (?, ?)
		ON CONFLICT (tenant_id) DO UPDATE SET seq = feed_seqs.seq + excluded.seq RETURNING seq`, tenantID, len(marks)).Scan(&last)
	if err != nil {
		return storeErr("feed: next sequence", err)
	}
	first := last - int64(len(marks)) + 1
	for i, m := range marks {
		if _, err := f.tx.ExecContext(f.ctx, `INSERT INTO feed_chats (tenant_id, chat_id, seq, deleted) VALUES (?, ?, ?, ?)
			ON CONFLICT (tenant_id, chat_id) DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted`,
			tenantID, m.ChatID, first+int64(i), m.Deleted); err != nil {
			return storeErr("feed: write chat", err)
		}
	}
	return nil
}

// FeedChanges returns a tenant's feed after a sequence; see annals.FeedStore.
func (db *DB) FeedChanges(ctx context.Context, tenantID string, after int64, limit int) ([]*annals.FeedChange, error) {
	if limit < 1 {
		return nil, annals.Errorf(annals.EINVALID, "limit must be at least 1")
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT seq, chat_id, deleted FROM feed_chats
		WHERE tenant_id = ? AND seq > ? ORDER BY seq LIMIT ?`, tenantID, after, limit)
	if err != nil {
		return nil, storeErr("read feed", err)
	}
	defer rows.Close()
	out := []*annals.FeedChange{}
	for rows.Next() {
		var c annals.FeedChange
		if err := rows.Scan(&c.Seq, &c.ChatID, &c.Deleted); err != nil {
			return nil, storeErr("read feed", err)
		}
		out = append(out, &c)
	}
	return out, storeErrOrNil("read feed", rows.Err())
}

// ChatFieldStamps returns the stamps of a chat's human layer; see annals.FeedStore.
func (db *DB) ChatFieldStamps(ctx context.Context, chatID string) (map[string]annals.FieldStamp, error) {
	return fieldStamps(ctx, db.reader, chatID)
}
