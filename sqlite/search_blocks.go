package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/annals-dev/annals"
)

// The long chats of a chat search: those with sealed blocks (migration 0010). A chat of one
// document matches when its document does, and the index walks those newest first (with
// "multi" excluded from the MATCH). A long chat's text is spread over its blocks, so "a b" may
// hold with a in one block and b in another, and "a -b" fail with b in another block: its
// match is evaluated over the union of its blocks, each subexpression that is a plain
// disjunction one walk over the long chats' blocks. There are few of them (a block holds
// hundreds of entries; at 1M entries the long chats' blocks are a few thousand documents), so
// the walk reads every one of their matching blocks and the cost stays bounded by the long
// chats' share of the index, not by the matches of the whole index.

// longHit is a matching long chat and its relevance: the best bm25 of its blocks.
type longHit struct {
	pk int64
	bb *float64
}

// multiMatch is the owner narrowing of the long chats' documents: the owner's tokens and
// "multi". Their archived state is checked on the chat row (sealed blocks do not carry it).
func multiMatch(query string, f annals.ChatFilter) string {
	pos, _ := ownerMatch(f.Owner, true)
	return "(" + query + ") AND " + strings.Join(append(pos, `owner : "multi"`), " AND ")
}

// longChats finds the long chats matching text (expanded) in the columns cols, with the bm25 of
// their best block for the positive terms when rank is set. It answers nothing quickly on a
// database without long chats.
func longChats(ctx context.Context, tx *sql.Tx, text *annals.TextExpr, cols []string, f annals.ChatFilter, rank bool) ([]longHit, error) {
	var any bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chat_blocks)`).Scan(&any); err != nil || !any {
		return nil, storeErrOrNil("search long chats", err)
	}
	pos := positiveTerms(text, nil)
	best, err := longWalk(ctx, tx, anyOf(pos), cols, f, rank)
	if err != nil {
		return nil, err
	}
	set := map[int64]bool{}
	for pk := range best {
		set[pk] = true
	}
	if !isDisjunction(text) {
		if set, err = longEval(ctx, tx, text, cols, f); err != nil {
			return nil, err
		}
	}
	out := make([]longHit, 0, len(set))
	for pk := range set {
		h := longHit{pk: pk}
		if b, ok := best[pk]; ok && rank {
			h.bb = &b
		}
		out = append(out, h)
	}
	return out, nil
}

// longEval is the set of long chats in which e holds, their blocks taken as one document.
func longEval(ctx context.Context, tx *sql.Tx, e *annals.TextExpr, cols []string, f annals.ChatFilter) (map[int64]bool, error) {
	if isDisjunction(e) {
		best, err := longWalk(ctx, tx, e, cols, f, false)
		set := make(map[int64]bool, len(best))
		for pk := range best {
			set[pk] = true
		}
		return set, err
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

// longWalk reads every long-chat document matching the disjunction e: the chats, each with the
// best (lowest) bm25 of its matching blocks when rank is set.
func longWalk(ctx context.Context, tx *sql.Tx, e *annals.TextExpr, cols []string, f annals.ChatFilter, rank bool) (map[int64]float64, error) {
	m, err := ftsCompile(e, cols)
	if err != nil {
		return nil, err
	}
	score := "0.0"
	if rank {
		score = "bm25(chat_fts, " + docWeights + ")"
	}
	q := `SELECT coalesce(d.chat_pk, b.chat_pk), ` + score + ` FROM chat_fts LEFT JOIN chat_docs d ON d.doc = chat_fts.rowid
		LEFT JOIN chat_blocks b ON b.doc = chat_fts.rowid WHERE chat_fts MATCH ?`
	args := []any{multiMatch(m, f)}
	annals.TraceStatement(ctx, q, args)
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, ftsErr("search long chats", err)
	}
	defer rows.Close()
	best := map[int64]float64{}
	for rows.Next() {
		var pk sql.NullInt64
		var s float64
		if err := rows.Scan(&pk, &s); err != nil {
			return nil, storeErr("scan long chat", err)
		}
		if b, ok := best[pk.Int64]; pk.Valid && (!ok || s < b) {
			best[pk.Int64] = s
		}
	}
	return best, ftsErr("search long chats", rows.Err())
}

// longJSON encodes the long chats for the ranking statement, which reads them with json_each.
func longJSON(hits []longHit) string {
	rows := make([][2]any, len(hits))
	for i, h := range hits {
		rows[i] = [2]any{h.pk, h.bb}
	}
	b, _ := json.Marshal(rows) // int64 and *float64 always encode
	return string(b)
}
