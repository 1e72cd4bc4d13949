package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/annals-dev/annals"
)

// CheckIndex verifies the full-text columns against the rows they were built from: every entry's
// tsv and every chat's chat_meta row (tags, meta_tsv) must equal what the current tokenizer builds from the stored
// text. It reads everything, so it is for tests and maintenance, not for a hot path. The
// conformance suite runs it after every subtest (storetest.IndexChecker).
func (db *DB) CheckIndex(ctx context.Context) error {
	rows, err := db.pool.Query(ctx, `SELECT `+entryColumns+`, e.tsv FROM entries e JOIN chats c ON c.pk = e.chat_pk ORDER BY e.pk`)
	if err != nil {
		return db.storeErr("check entries index", err)
	}
	defer rows.Close()
	for rows.Next() {
		var stored pgtype.TSVector
		e, err := scanEntry(rows, &stored)
		if err != nil {
			return db.storeErr("scan entry", err)
		}
		if want := entryTSV(e); want.String() != stored.String() {
			return annals.Internal("check index", fmt.Errorf("entry %s#%d: tsv %q, want %q", e.ChatID, e.Seq, stored.String(), want.String()))
		}
	}
	if err := rows.Err(); err != nil {
		return db.storeErr("check entries index", err)
	}
	rows.Close()
	crows, err := db.pool.Query(ctx, `SELECT c.id, c.title, c.description, c.summary, m.tags, m.meta_tsv FROM chats c JOIN chat_meta m ON m.chat_pk = c.pk ORDER BY c.pk`)
	if err != nil {
		return db.storeErr("check chats index", err)
	}
	defer crows.Close()
	metaRows := 0
	for crows.Next() {
		var id string
		var title, desc, summary []byte
		var tags []string
		var stored pgtype.TSVector
		if err := crows.Scan(&id, &title, &desc, &summary, &tags, &stored); err != nil {
			return db.storeErr("scan chat", err)
		}
		// chat_meta.tags must be the chat's tags, and meta_tsv built from them.
		if want := metaTSV(string(title), string(desc), string(summary), tags); want.String() != stored.String() {
			return annals.Internal("check index", fmt.Errorf("chat %s: meta_tsv %q, want %q", id, stored.String(), want.String()))
		}
		metaRows++
	}
	if err := crows.Err(); err != nil {
		return db.storeErr("check chats index", err)
	}
	var chats int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM chats`).Scan(&chats); err != nil {
		return db.storeErr("count chats", err)
	}
	if chats != metaRows {
		return annals.Internal("check index", fmt.Errorf("%d chats but %d chat_meta rows", chats, metaRows))
	}
	return db.checkChatDocs(ctx)
}
