package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/annals-dev/annals"
)

// The chat documents (migration 0007): one chat_fts row per chat, rebuilt from the chat and its
// entries whenever a trigger marked the chat dirty. Rebuilding is set-based, a handful of
// statements for all the dirty chats of a transaction, because every statement that writes
// chat_fts makes FTS5 flush its pending terms to a new segment: one segment per transaction,
// not one per chat.

// entrySeparator sits between two entries' text in a chat document. It is a token (private-use
// characters are token characters for unicode61) between spaces, so a phrase never matches the
// end of one entry and the start of the next, as it cannot in the entry index.
const entrySeparator = " \uE002 "

// chatDocColumns are chat_fts's searchable columns, in table order; owner is not among them, so
// no user query can match an owner token.
var chatDocColumns = []string{"title", "description", "summary", "tags", "text", "reasoning", "tool_name", "tool_args", "tool_result"}

// headKey is a chat's head document key before collisions: its last activity, kept below the
// sealed blocks' rowids (firstSealedDoc).
const headKey = `min(c.last_activity, 4611686018427387903)`

// backfillBatch is how many chats one transaction of the backfill on open rebuilds.
const backfillBatch = 500

// flushChatDocs rebuilds the documents of the dirty chats with pk <= bound (all of them for
// math.MaxInt64) inside tx, with the default block limits, and clears their marks.
func flushChatDocs(ctx context.Context, tx txRunner, bound int64) error {
	return flushChatDocsIn(ctx, tx, bound, defaultBlockLimits())
}

// flushChatDocsIn is flushChatDocs with the block limits given. A chat marked full loses its
// sealed blocks and is packed again from its first entry; every other dirty chat keeps them and
// has its head rebuilt (sealing what has filled up). A deleted chat loses its documents.
func flushChatDocsIn(ctx context.Context, tx txRunner, bound int64, lim blockLimits) error {
	var any bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chat_docs_dirty WHERE chat_pk <= ?)`, bound).Scan(&any); err != nil {
		return storeErr("chat documents: dirty", err)
	}
	if !any {
		return nil
	}
	if err := dropSealedBlocks(ctx, tx, bound); err != nil {
		return err
	}
	const set = `(SELECT chat_pk FROM chat_docs_dirty WHERE chat_pk <= ?)`
	steps := []struct{ what, q string }{
		{"drop old", `DELETE FROM chat_fts WHERE rowid IN (SELECT doc FROM chat_docs WHERE chat_pk IN ` + set + `)`},
		{"forget old", `DELETE FROM chat_docs WHERE chat_pk IN ` + set},
		// Ties of last activity get consecutive keys below it, the smallest id on top, so that
		// walking the keys down gives the search order (last activity DESC, id).
		{"key", `INSERT OR IGNORE INTO chat_docs (doc, chat_pk)
			SELECT k, pk FROM (SELECT ` + headKey + ` - (row_number() OVER (PARTITION BY c.last_activity ORDER BY c.id) - 1) AS k, c.pk AS pk
			FROM chats c WHERE c.pk IN ` + set + `) WHERE NOT EXISTS (SELECT 1 FROM chat_blocks b WHERE b.doc = k)`},
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.q, bound); err != nil {
			return storeErr("chat documents: "+s.what, err)
		}
	}
	if err := keyCollisions(ctx, tx, bound); err != nil {
		return err
	}
	if err := sealBlocks(ctx, tx, bound, lim); err != nil {
		return err
	}
	if err := buildHeads(ctx, tx, bound); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM chat_docs_dirty WHERE chat_pk <= ?`, bound); err != nil {
		return storeErr("chat documents: clear", err)
	}
	return nil
}

// buildHeads writes the head documents of the dirty chats (pk <= bound): metadata, the entries
// after the last sealed block, and the owner tokens, "multi" for a chat with sealed blocks and
// "archived" for an archived one.
func buildHeads(ctx context.Context, tx txRunner, bound int64) error {
	_, err := tx.ExecContext(ctx, `WITH `+headsCTE+` INSERT INTO chat_fts (rowid, title, description, summary, tags, text, reasoning, tool_name, tool_args, tool_result, owner)
		SELECT d.doc, `+indexed("c.title")+`, `+indexed("c.description")+`, `+indexed("c.summary")+`, `+indexed("c.tags")+`,
			`+indexed("x.text")+`, `+indexed("x.reasoning")+`, `+indexed("x.tool_name")+`, `+indexed("x.tool_args")+`, `+indexed("x.tool_result")+`,
			`+ownerTokens+` || CASE WHEN EXISTS (SELECT 1 FROM chat_blocks b WHERE b.chat_pk = c.pk) THEN ' multi' ELSE '' END
			|| CASE WHEN c.archived_at IS NULL THEN '' ELSE ' archived' END
		FROM chats c JOIN chat_docs d ON d.chat_pk = c.pk
		LEFT JOIN (SELECT e.chat_pk, group_concat(nullif(e.text, ''), ?1) AS text, group_concat(nullif(e.reasoning, ''), ?1) AS reasoning,
				group_concat(nullif(e.tool_name, ''), ?1) AS tool_name, group_concat(nullif(e.tool_args, ''), ?1) AS tool_args,
				group_concat(nullif(e.tool_result, ''), ?1) AS tool_result
			FROM heads h `+headEntries+` GROUP BY e.chat_pk) x ON x.chat_pk = c.pk
		WHERE c.pk IN (SELECT chat_pk FROM chat_docs_dirty WHERE chat_pk <= ?2)`, entrySeparator, bound)
	return storeErrOrNil("chat documents: build", err)
}

// keyCollisions gives a key to the dirty chats whose last activity collided with another chat's
// key: the next free one below it. Rare (two chats active in the same nanosecond), so one by one.
func keyCollisions(ctx context.Context, tx txRunner, bound int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT c.pk, `+headKey+` FROM chats c
		WHERE c.pk IN (SELECT chat_pk FROM chat_docs_dirty WHERE chat_pk <= ?)
		AND NOT EXISTS (SELECT 1 FROM chat_docs d WHERE d.chat_pk = c.pk)`, bound)
	if err != nil {
		return storeErr("chat documents: collisions", err)
	}
	type pending struct{ pk, key int64 }
	var todo []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.pk, &p.key); err != nil {
			rows.Close()
			return storeErr("chat documents: collisions", err)
		}
		todo = append(todo, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return storeErr("chat documents: collisions", err)
	}
	for _, p := range todo {
		for key := p.key - 1; ; key-- {
			r, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO chat_docs (doc, chat_pk)
				SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM chat_blocks WHERE doc = ?1)`, key, p.pk)
			if err != nil {
				return storeErr("chat documents: key", err)
			}
			if n, _ := r.RowsAffected(); n == 1 {
				break
			}
		}
	}
	return nil
}

// backfillChatDocs builds the documents an upgrade marked (or a crash left) dirty, in batches of
// backfillBatch chats per transaction, reporting progress to report (when set). Searches fall
// back to the entry index until it is done, so a read-only open of a half-built database still
// answers correctly.
func (db *DB) backfillChatDocs(ctx context.Context, report func(done, total int)) error {
	var total int
	if err := db.writer.QueryRowContext(ctx, `SELECT count(*) FROM chat_docs_dirty`).Scan(&total); err != nil {
		return storeErr("chat documents: count", err)
	}
	for done := 0; done < total; done += backfillBatch {
		err := db.writeTxThen(ctx, func(tx *sql.Tx) error {
			var bound int64
			err := tx.QueryRowContext(ctx, `SELECT chat_pk FROM chat_docs_dirty ORDER BY chat_pk LIMIT 1 OFFSET ?`, backfillBatch-1).Scan(&bound)
			if err == sql.ErrNoRows {
				bound = math.MaxInt64
			} else if err != nil {
				return storeErr("chat documents: batch", err)
			}
			return flushChatDocsIn(ctx, tx, bound, db.blockLimits())
		}, func(*sql.Tx) error { return nil })
		if err != nil {
			return err
		}
		if report != nil {
			report(min(done+backfillBatch, total), total)
		}
	}
	if total < backfillBatch {
		return nil
	}
	// Built in many transactions, the index holds a segment or more per batch; every query
	// seeks each one. Merged once now, as a bulk load should be (Optimize).
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO chat_fts (chat_fts) VALUES ('optimize')`)
		return storeErrOrNil("chat documents: optimize", err)
	})
}

// chatDocsReady reports whether every chat's document is built; q runs in the search's read
// transaction.
func chatDocsReady(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (bool, error) {
	var dirty bool
	if err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chat_docs_dirty)`).Scan(&dirty); err != nil {
		return false, storeErr("chat documents: ready", err)
	}
	return !dirty, nil
}

// ownerMatch is the FTS5 expression that narrows chat_fts to the owner's documents (and, unless
// archived chats are included, to unarchived ones), to be ANDed with the query: the tokens
// migration 0007 puts in the owner column. It is built from hex digits only. "" for every owner
// and archived included.
func ownerMatch(o annals.Owner, includeArchived bool) (pos []string, not string) {
	tok := func(prefix, v string) string { return `owner : "` + prefix + hex.EncodeToString([]byte(v)) + `"` }
	if !o.AllTenants {
		pos = append(pos, tok("t", o.TenantID))
		if o.UserID != "" {
			pos = append(pos, tok("u", o.UserID))
		}
		if o.AgentID != "" {
			pos = append(pos, tok("a", o.AgentID))
		}
	}
	if !includeArchived {
		not = `owner : "archived"`
	}
	return pos, not
}

// chatDocMatch combines a compiled query with the owner narrowing, for the chats of one
// document: the long chats ("multi", migration 0010) are matched over their blocks apart.
func chatDocMatch(query string, f annals.ChatFilter) string {
	pos, not := ownerMatch(f.Owner, f.IncludeArchived)
	m := "(" + query + ")"
	if len(pos) > 0 {
		m += " AND " + strings.Join(pos, " AND ")
	}
	if not != "" {
		m = "(" + m + ") NOT " + not
	}
	return "(" + m + `) NOT owner : "multi"`
}

// walkMatch is the MATCH of a search's walk over every document (sqlite/search_blocks.go): the
// walk's body (walkBody: the query's own documents, and the long chats' documents when the
// query is not a plain disjunction) in the owner's scope.
func walkMatch(body string, f annals.ChatFilter) string {
	pos, not := ownerMatch(f.Owner, f.IncludeArchived)
	m := "(" + body + ")"
	if len(pos) > 0 {
		m += " AND " + strings.Join(pos, " AND ")
	}
	if not != "" {
		m = "(" + m + ") NOT " + not
	}
	return m
}

// checkChatDocs verifies what FTS5's integrity check cannot see in a contentless index: nothing
// is left dirty, every chat has exactly one head document keyed near its last activity, the
// sealed blocks are sound, and the index holds exactly those documents.
func checkChatDocs(ctx context.Context, tx *sql.Tx) error {
	var dirty, chats, docs, orphans, stale, blocks, rows int
	err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM chat_docs_dirty), (SELECT count(*) FROM chats),
		(SELECT count(*) FROM chat_docs), (SELECT count(*) FROM chat_docs d WHERE NOT EXISTS (SELECT 1 FROM chats c WHERE c.pk = d.chat_pk)),
		(SELECT count(*) FROM chat_docs d JOIN chats c ON c.pk = d.chat_pk WHERE d.doc > c.last_activity),
		(SELECT count(*) FROM chat_blocks), (SELECT count(*) FROM chat_fts_docsize)`).Scan(&dirty, &chats, &docs, &orphans, &stale, &blocks, &rows)
	if err != nil {
		return err
	}
	if dirty != 0 || docs != chats || orphans != 0 || stale != 0 || rows != docs+blocks {
		return fmt.Errorf("chat documents inconsistent: %d dirty, %d chats, %d documents (%d orphaned, %d keyed after their activity), %d blocks, %d indexed",
			dirty, chats, docs, orphans, stale, blocks, rows)
	}
	return checkChatBlocks(ctx, tx)
}
