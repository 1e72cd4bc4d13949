package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

// reindexPlaceholders rebuilds the vectors of the rows migration 0007 queued (rows that held a
// redaction placeholder before placeholders stopped being words), with the chat documents
// built from them, and empties the queue. After the migration the queue is empty and this costs
// one query.
func (db *DB) reindexPlaceholders(ctx context.Context) error {
	var queued bool
	if err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM placeholder_reindex)`).Scan(&queued); err != nil {
		return db.storeErr("placeholder re-index", err)
	}
	if !queued {
		return nil
	}
	return db.writeTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+entryColumns+`, e.pk FROM placeholder_reindex q
			JOIN entries e ON e.pk = q.entry_pk JOIN chats c ON c.pk = e.chat_pk ORDER BY e.pk`)
		if err != nil {
			return db.storeErr("placeholder re-index: entries", err)
		}
		type entryRow struct {
			pk int64
			e  *annals.Entry
		}
		var entries []entryRow
		for rows.Next() {
			var r entryRow
			if r.e, err = scanEntry(rows, &r.pk); err != nil {
				rows.Close()
				return db.storeErr("placeholder re-index: scan entry", err)
			}
			entries = append(entries, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return db.storeErr("placeholder re-index: entries", err)
		}
		pks := make([]int64, len(entries))
		for i, r := range entries {
			pks[i] = r.pk
			if _, err := tx.Exec(ctx, `UPDATE entries SET tsv = $1 WHERE pk = $2`, entryTSV(r.e), r.pk); err != nil {
				return db.storeErr("placeholder re-index: entry", err)
			}
		}
		if err := db.rebuildDocsOf(ctx, tx, pks); err != nil {
			return err
		}
		type chatRow struct {
			pk                       int64
			title, description, summ []byte
			tags                     []string
		}
		crows, err := tx.Query(ctx, `SELECT c.pk, c.title, c.description, c.summary, m.tags FROM placeholder_reindex q
			JOIN chats c ON c.pk = q.chat_pk JOIN chat_meta m ON m.chat_pk = c.pk`)
		if err != nil {
			return db.storeErr("placeholder re-index: chats", err)
		}
		var chats []chatRow
		for crows.Next() {
			var r chatRow
			if err := crows.Scan(&r.pk, &r.title, &r.description, &r.summ, &r.tags); err != nil {
				crows.Close()
				return db.storeErr("placeholder re-index: scan chat", err)
			}
			chats = append(chats, r)
		}
		crows.Close()
		if err := crows.Err(); err != nil {
			return db.storeErr("placeholder re-index: chats", err)
		}
		for _, r := range chats {
			if _, err := tx.Exec(ctx, `UPDATE chat_meta SET meta_tsv = $1 WHERE chat_pk = $2`, metaTSV(string(r.title), string(r.description), string(r.summ), r.tags), r.pk); err != nil {
				return db.storeErr("placeholder re-index: chat", err)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM placeholder_reindex`); err != nil {
			return db.storeErr("placeholder re-index: clear", err)
		}
		return nil
	})
}
