package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// The long chats of a chat search: those with sealed blocks (migration 0010). A chat of one
// document matches when its document does. A long chat's text is spread over its blocks, so
// "a b" may hold with a in one block and b in another, and "a -b" fail with b in another block:
// its match is evaluated over the union of its blocks, each subexpression that is a plain
// disjunction one walk over the long chats' documents ("multi" in the MATCH), with no score.
// There are few of them (a block holds hundreds of entries), so the cost is bounded by the long
// chats' share of the index, not by the matches of the whole index.
//
// The scores come from the search's one scored walk (candidates, search_docs.go): sealed blocks
// have the highest rowids, so walking down it reads every long chat's matching blocks first,
// then the chat heads newest first; a long chat scores its best document. One scored walk, not
// two: a scored statement reads each phrase's document count (ftsrank_counts.go; counted over
// the whole index when not kept, which for a phrase of common words is most of the search).

// multiMatch is the owner narrowing of the long chats' documents: the owner's tokens and
// "multi". Their archived state is checked on the chat row (sealed blocks do not carry it).
func multiMatch(query string, f annals.ChatFilter) string {
	pos, _ := ownerMatch(f.Owner, true)
	return "(" + query + ") AND " + strings.Join(append(pos, `owner : "multi"`), " AND ")
}

// longChats finds the long chats matching text (expanded) in the columns cols, and how many
// long-chat documents there are in all (an upper bound on those a walk meets). It answers
// nothing quickly on a database without long chats.
func longChats(ctx context.Context, tx queryer, text *annals.TextExpr, cols []string, f annals.ChatFilter) ([]int64, int, error) {
	var docs int
	err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM chat_blocks) + (SELECT count(DISTINCT chat_pk) FROM chat_blocks)`).Scan(&docs)
	if err != nil || docs == 0 {
		return nil, 0, storeErrOrNil("search long chats", err)
	}
	set, err := longEval(ctx, tx, text, cols, f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]int64, 0, len(set))
	for pk := range set {
		out = append(out, pk)
	}
	return out, docs, nil
}

// longEval is the set of long chats in which e holds, their blocks taken as one document.
func longEval(ctx context.Context, tx queryer, e *annals.TextExpr, cols []string, f annals.ChatFilter) (map[int64]bool, error) {
	if storecore.IsDisjunction(e) {
		return longWalk(ctx, tx, e, cols, f)
	}
	var acc map[int64]bool
	var neg []map[int64]bool
	for _, it := range e.Items {
		if it.Op == annals.TextNot {
			s, err := longEval(ctx, tx, it.Items[0], cols, f)
			if err != nil {
				return nil, err
			}
			neg = append(neg, s)
			continue
		}
		s, err := longEval(ctx, tx, it, cols, f)
		if err != nil {
			return nil, err
		}
		acc = combine(acc, s, e.Op == annals.TextOr)
	}
	for pk := range acc {
		for _, s := range neg {
			if s[pk] {
				delete(acc, pk)
			}
		}
	}
	return acc, nil
}

// combine is the union (or) or the intersection of acc and s; a nil acc is the first operand.
func combine(acc, s map[int64]bool, or bool) map[int64]bool {
	if acc == nil {
		return s
	}
	if or {
		for pk := range s {
			acc[pk] = true
		}
		return acc
	}
	for pk := range acc {
		if !s[pk] {
			delete(acc, pk)
		}
	}
	return acc
}

// longWalk is the set of long chats with a document matching the disjunction e.
func longWalk(ctx context.Context, tx queryer, e *annals.TextExpr, cols []string, f annals.ChatFilter) (map[int64]bool, error) {
	m, err := ftsCompile(e, cols)
	if err != nil {
		return nil, err
	}
	q := `SELECT coalesce(d.chat_pk, b.chat_pk) FROM chat_fts LEFT JOIN chat_docs d ON d.doc = chat_fts.rowid
		LEFT JOIN chat_blocks b ON b.doc = chat_fts.rowid WHERE chat_fts MATCH ?`
	args := []any{multiMatch(m, f)}
	annals.TraceStatement(ctx, q, args)
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, ftsErr("search long chats", err)
	}
	defer rows.Close()
	set := map[int64]bool{}
	for rows.Next() {
		var pk sql.NullInt64
		if err := rows.Scan(&pk); err != nil {
			return nil, storeErr("scan long chat", err)
		}
		if pk.Valid {
			set[pk.Int64] = true
		}
	}
	return set, ftsErr("search long chats", rows.Err())
}

// longJSON encodes the long chats for the ranking statement, which reads them with json_each.
func longJSON(pks []int64) string {
	b, _ := json.Marshal(pks) // int64s always encode
	return string(b)
}
