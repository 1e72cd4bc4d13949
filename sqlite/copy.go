package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/annals-dev/annals"
)

var _ annals.ChatCopier = (*DB)(nil)

// ChatIDsAfter walks every chat id in byte order; see annals.ChatCopier.
func (db *DB) ChatIDsAfter(ctx context.Context, after string, limit int) ([]string, error) {
	if limit < 1 {
		return nil, annals.Errorf(annals.EINVALID, "limit must be at least 1")
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT id FROM chats WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, storeErr("walk chats", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, storeErr("scan chat id", err)
		}
		out = append(out, id)
	}
	return out, storeErrOrNil("walk chats", rows.Err())
}

// RestoreChat sets a chat's metadata and activity time exactly; see annals.ChatCopier.
func (db *DB) RestoreChat(ctx context.Context, c *annals.Chat) (*annals.Chat, error) {
	if c == nil {
		return nil, annals.Errorf(annals.EINVALID, "chat is required")
	}
	tags := c.Tags
	if err := (&annals.ChatUpdate{Title: &c.Title, Description: &c.Description, Summary: &c.Summary, Tags: &tags}).Validate(); err != nil {
		return nil, err
	}
	tags = dedupe(tags)
	var archived, summarized *int64
	if c.ArchivedAt != nil {
		n := unixNano(*c.ArchivedAt)
		archived = &n
	}
	if c.SummaryUpdatedAt != nil {
		n := unixNano(*c.SummaryUpdatedAt)
		summarized = &n
	}
	var out *annals.Chat
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		var pk int64
		err := tx.QueryRowContext(ctx, `SELECT pk FROM chats WHERE id = ?`, c.ID).Scan(&pk)
		if err == sql.ErrNoRows {
			return annals.NotFound(c.ID)
		}
		if err != nil {
			return storeErr("find chat", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE chats SET title = ?, title_fold = ?, description = ?, tags = ?, pinned = ?,
				archived_at = ?, summary = ?, summary_updated_at = ?, last_activity = ?, title_generated = ? WHERE pk = ?`,
			c.Title, strings.ToLower(c.Title), c.Description, joinTags(tags), c.Pinned,
			archived, c.Summary, summarized, unixNano(c.LastActivity), c.Title != "" && c.TitleGenerated, pk); err != nil {
			return storeErr("restore chat", err)
		}
		w := &writer{ctx: ctx, tx: tx}
		defer w.close()
		db.feedTouch(tx, c.ID, "", false)
		if err := w.replaceTags(pk, tags); err != nil {
			return err
		}
		out, err = findChatByID(ctx, tx, c.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
