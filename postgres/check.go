package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
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
	if err := db.checkChatDocs(ctx); err != nil {
		return err
	}
	if err := db.checkViewBlocks(ctx); err != nil {
		return err
	}
	return db.checkVocab(ctx)
}

// checkViewBlocks verifies the query view's blocks (migration 0028), which its triggers keep
// through every insert, delete and update of an entry: every entry lies in exactly one block of
// its chat, every block lies inside one 64-aligned bucket of seqs, and its body and tenant are
// what its entries give now (so a redacted or truncated text never stays in a block).
func (db *DB) checkViewBlocks(ctx context.Context) error {
	var problem string
	err := db.pool.QueryRow(ctx, `SELECT coalesce(
		(SELECT format('entry %s#%s lies in %s blocks', c.id, e.seq, count(b.chat_pk))
			FROM entries e JOIN chats c ON c.pk = e.chat_pk
			LEFT JOIN entry_view_blocks b ON b.chat_pk = e.chat_pk AND e.seq BETWEEN b.first_seq AND b.last_seq
			GROUP BY e.pk, c.id, e.seq HAVING count(b.chat_pk) <> 1 LIMIT 1),
		(SELECT format('block %s:%s-%s is not what its entries give', b.chat_pk, b.first_seq, b.last_seq)
			FROM entry_view_blocks b
			LEFT JOIN LATERAL (SELECT min(e.tenant_id) AS tenant_id,
				string_agg(annals_view_block_text(e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result), E'\x1e' ORDER BY e.seq) AS body
				FROM entries e WHERE e.chat_pk = b.chat_pk AND e.seq BETWEEN b.first_seq AND b.last_seq) x ON true
			WHERE b.first_seq >> 6 <> b.last_seq >> 6 OR x.body IS DISTINCT FROM b.body OR x.tenant_id IS DISTINCT FROM b.tenant_id LIMIT 1),
		'')`).Scan(&problem)
	if err != nil {
		return db.storeErr("check view blocks", err)
	}
	if problem != "" {
		return annals.Internal("check index", fmt.Errorf("query view blocks: %s", problem))
	}
	return nil
}

// checkVocab verifies that the vocabulary's counts and deltas (migration 0018) sum to what a
// build from scratch gives (the view chat_vocab_built), so the triggers' upkeep through every
// capture, truncate, rescan and delete is checked against the one definition.
func (db *DB) checkVocab(ctx context.Context) error {
	var tenant, word string
	var kept, want int64
	err := db.pool.QueryRow(ctx, `SELECT coalesce(k.tenant_id, b.tenant_id), coalesce(k.word, b.word), coalesce(k.docs, 0), coalesce(b.docs, 0)
		FROM (SELECT tenant_id, word, sum(docs)::bigint AS docs FROM (SELECT tenant_id, word, docs FROM chat_vocab
				UNION ALL SELECT tenant_id, word, docs FROM chat_vocab_delta) x GROUP BY 1, 2 HAVING sum(docs) <> 0) k
		FULL JOIN chat_vocab_built b ON b.tenant_id = k.tenant_id AND b.word = k.word
		WHERE k.docs IS DISTINCT FROM b.docs LIMIT 1`).Scan(&tenant, &word, &kept, &want)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return db.storeErr("check vocabulary", err)
	}
	return annals.Internal("check index", fmt.Errorf("vocabulary of tenant %q: word %q in %d documents, a rebuild gives %d", tenant, word, kept, want))
}
