package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
)

// ftsLiteral turns a term into an FTS5 string: a quoted phrase with inner quotes doubled, so no
// term can ever be read as FTS5 query syntax. FTS5 tokenizes the phrase with the same tokenizer
// as the index, so "emag.ro" becomes the adjacent tokens emag, ro.
func ftsLiteral(term string) string {
	return `"` + strings.ReplaceAll(term, `"`, `""`) + `"`
}

func ftsAnd(terms []string) (string, error) {
	if len(terms) == 0 {
		return "", annals.Errorf(annals.EINVALID, "a text match needs at least one term")
	}
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = ftsLiteral(t)
	}
	return strings.Join(parts, " AND "), nil
}

// MatchEntries finds entries containing every term; see annals.TextIndex.
func (db *DB) MatchEntries(ctx context.Context, m annals.TextMatch) ([]annals.EntryRef, error) {
	q, err := ftsAnd(m.Terms)
	if err != nil {
		return nil, err
	}
	w := &where{}
	w.Add("entries_fts MATCH ?", q)
	w.AddOwner("c", m.Owner)
	limit := m.Limit
	if limit <= 0 {
		limit = -1
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT c.id, e.seq FROM entries_fts
		JOIN entries e ON e.pk = entries_fts.rowid JOIN chats c ON c.pk = e.chat_pk
		WHERE `+w.SQL()+` ORDER BY c.id, e.seq LIMIT ?`, append(w.Args, limit)...)
	if err != nil {
		return nil, storeErr("match entries", err)
	}
	defer rows.Close()
	out := []annals.EntryRef{}
	for rows.Next() {
		var r annals.EntryRef
		if err := rows.Scan(&r.ChatID, &r.Seq); err != nil {
			return nil, storeErr("scan match", err)
		}
		out = append(out, r)
	}
	return out, storeErrOrNil("match entries", rows.Err())
}

// MatchChats finds chats whose metadata contains every term; see annals.TextIndex.
func (db *DB) MatchChats(ctx context.Context, m annals.TextMatch) ([]string, error) {
	q, err := ftsAnd(m.Terms)
	if err != nil {
		return nil, err
	}
	w := &where{}
	w.Add("chats_fts MATCH ?", q)
	w.AddOwner("c", m.Owner)
	limit := m.Limit
	if limit <= 0 {
		limit = -1
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT c.id FROM chats_fts JOIN chats c ON c.pk = chats_fts.rowid
		WHERE `+w.SQL()+` ORDER BY c.id LIMIT ?`, append(w.Args, limit)...)
	if err != nil {
		return nil, storeErr("match chats", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, storeErr("scan match", err)
		}
		out = append(out, id)
	}
	return out, storeErrOrNil("match chats", rows.Err())
}

// CheckIndex runs FTS5's integrity check on the four indexes: it fails if any index entry
// disagrees with the rows it was built from (for the contentless chat index, with itself and
// with the chats it must hold, see checkChatDocs). Tests call it after every kind of write.
func (db *DB) CheckIndex(ctx context.Context) error {
	if err := db.writeTx(ctx, func(tx *sqlTx) error { return checkChatDocs(ctx, tx) }); err != nil {
		return annals.Internal("check chat_fts", err)
	}
	for _, table := range []string{"entries_fts", "chats_fts", "chat_fts", "entries_tri"} {
		// entries_fts and chats_fts hold the index text, not their content tables' text
		// (migration 0013): FTS5 compares them with that text in checkIndexText instead.
		rank := 1
		if _, ok := indexTextSources[table]; ok {
			rank = 0
		}
		q := fmt.Sprintf(`INSERT INTO %s (%s, rank) VALUES ('integrity-check', %d)`, table, table, rank)
		if err := db.writeTx(ctx, func(tx *sqlTx) error {
			_, err := tx.ExecContext(ctx, q)
			return err
		}); err != nil {
			return annals.Internal("check "+table, err)
		}
	}
	for table := range indexTextSources {
		if err := db.writeTx(ctx, func(tx *sqlTx) error { return checkIndexText(ctx, tx, table) }); err != nil {
			return annals.Internal("check "+table+" against its rows", err)
		}
	}
	return nil
}

// indexTextSources are the columns and the rows of the two external-content indexes, as they
// are indexed: through indexed().
var indexTextSources = map[string]struct{ cols, rows string }{
	"entries_fts": {indexedEntryColumns + `, facets`, `SELECT pk, ` + indexed("text") + `, ` + indexed("reasoning") + `, ` + indexed("tool_name") + `, ` +
		indexed("tool_args") + `, ` + indexed("tool_result") + `, facets FROM entries_fts_content WHERE pk NOT IN (SELECT pk FROM entries_unindexed)`},
	"chats_fts": {`title, description, summary, tags`, `SELECT pk, ` + indexed("title") + `, ` + indexed("description") + `, ` +
		indexed("summary") + `, ` + indexed("tags") + ` FROM chats`},
}

// checkIndexText compares an external-content index with a scratch index built from its rows
// now, the same way: both must hold the same instances (term, row, column, offset), so a row
// indexed with other text, a ghost row or a missing one fails.
func checkIndexText(ctx context.Context, tx *sqlTx, table string) error {
	src := indexTextSources[table]
	steps := []string{
		`CREATE VIRTUAL TABLE temp.check_want_fts USING fts5 (` + src.cols + `, tokenize = 'unicode61 remove_diacritics 2')`,
		`INSERT INTO temp.check_want_fts (rowid, ` + src.cols + `) ` + src.rows,
		`CREATE VIRTUAL TABLE temp.check_have USING fts5vocab (main, ` + table + `, instance)`,
		`CREATE VIRTUAL TABLE temp.check_want USING fts5vocab (temp, check_want_fts, instance)`,
	}
	defer func() {
		for _, t := range []string{"check_have", "check_want", "check_want_fts"} {
			_, _ = tx.ExecContext(ctx, `DROP TABLE IF EXISTS temp.`+t)
		}
	}()
	for _, q := range steps {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	var extra, missing int
	if err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM (SELECT term, doc, col, offset FROM temp.check_have EXCEPT SELECT term, doc, col, offset FROM temp.check_want)),
		(SELECT count(*) FROM (SELECT term, doc, col, offset FROM temp.check_want EXCEPT SELECT term, doc, col, offset FROM temp.check_have))`).Scan(&extra, &missing); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if extra > 0 || missing > 0 {
		return fmt.Errorf("%d instances the rows do not hold, %d the index lacks", extra, missing)
	}
	return nil
}

// Optimize merges each full-text index into one segment. FTS5 merges segments as it writes, but
// a bulk load leaves a dozen or more (15 in the entry index after 1M entries): every query
// cursor seeks each segment, and a chat search opens one cursor per chat of its page, so a merged
// index halves the snippet pass (docs/BENCHMARKS.md). At 1M entries it takes seconds; writers
// wait meanwhile. Meant for after a bulk load, not for every write.
func (db *DB) Optimize(ctx context.Context) error {
	for _, table := range []string{"entries_fts", "chats_fts", "chat_fts", "entries_tri"} {
		q := `INSERT INTO ` + table + ` (` + table + `) VALUES ('optimize')`
		if err := db.writeTx(ctx, func(tx *sqlTx) error {
			_, err := tx.ExecContext(ctx, q)
			return err
		}); err != nil {
			return storeErr("optimize "+table, err)
		}
	}
	return nil
}

func storeErrOrNil(op string, err error) error {
	if err == nil {
		return nil
	}
	return storeErr(op, err)
}
