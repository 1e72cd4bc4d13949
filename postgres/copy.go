package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

var _ annals.ChatCopier = (*DB)(nil)

// ChatIDsAfter walks every chat id in byte order; see annals.ChatCopier.
func (db *DB) ChatIDsAfter(ctx context.Context, after string, limit int) ([]string, error) {
	if limit < 1 {
		return nil, annals.Errorf(annals.EINVALID, "limit must be at least 1")
	}
	rows, err := db.pool.Query(ctx, `SELECT id FROM chats WHERE id > $1 ORDER BY id LIMIT $2`, after, limit)
	if err != nil {
		return nil, db.storeErr("walk chats", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, db.storeErr("scan chat id", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("walk chats", err)
	}
	return out, nil
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
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		db.feedMarks.Touch(tx, c.ID, "", false)
		tag, err := tx.Exec(ctx, `UPDATE chats SET title = $1, title_fold = $2, description = $3, tags = $4, pinned = $5,
				archived_at = $6, summary = $7, summary_updated_at = $8, last_activity = $9, title_generated = $11
			WHERE id = $10`,
			[]byte(c.Title), []byte(strings.ToLower(c.Title)), []byte(c.Description), tags, c.Pinned,
			archived, []byte(c.Summary), summarized, unixNano(c.LastActivity), c.ID, c.Title != "" && c.TitleGenerated)
		if err != nil {
			return db.storeErr("restore chat", err)
		}
		if tag.RowsAffected() == 0 {
			return annals.NotFound(c.ID)
		}
		if err := db.writeMeta(ctx, tx, c.ID, c.Title, c.Description, c.Summary, tags); err != nil {
			return err
		}
		out, err = db.findChatByID(ctx, tx, c.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
