package sqlite

import (
	"context"
	"encoding/json"

	"github.com/annals-dev/annals"
)

// An entry search of a small owner (issue 33 item 3): the newest-first walk of the entry index
// (searchEntriesTopK) reads every tenant's matches until it has found k of the owner's, so a
// tenant holding 1% of the data walked the whole of a common word's matches, a row lookup of
// each (measured at 1M entries: 26x the CPU of the same search over every tenant). Instead the
// walk is driven from the owner's chats: each chat's entries lie between its smallest and
// largest entry rowid, so one range of the entry index per chat holds the owner's matches
// (FTS5 seeks to a rowid range), and the work is the matches inside those ranges. bm25 is then
// computed in one more pass over the candidates, as a cursor per chat would repeat its
// document-frequency pass per chat.
//
// An index that holds the owner's tokens (migration 0036, search_owner.go) narrows a small
// owner's walk to its own postings however its chats are spread; the ranges serve a database
// opened read-only before that upgrade, and an owner too large for its tokens.
//
// The ranges pay off while they are few and narrow: a chat written over weeks spans other
// tenants' entries too. ownerSpans returns them only when the owner has at most
// ownerRangeChats chats in the filters and their ranges cover at most 1/ownerRangeShare of the
// entry rowids; otherwise the walk runs as before.
const (
	ownerRangeChats = 1000
	ownerRangeShare = 4
)

// ownerSpans is the [chat pk, smallest, largest entry pk] of each chat through the chat
// filters cw, as JSON for json_each, or "" when the owner is every tenant or its chats are too
// many or too wide for ranges.
func (db *DB) ownerSpans(ctx context.Context, owner annals.Owner, cw *where) (string, error) {
	if owner.AllTenants || db.noOwnerRanges {
		return "", nil
	}
	q := `SELECT c.pk, (SELECT min(x.pk) FROM entries x WHERE x.chat_pk = c.pk), (SELECT max(x.pk) FROM entries x WHERE x.chat_pk = c.pk),
		(SELECT max(pk) FROM entries) FROM chats c WHERE ` + cw.SQL() + ` LIMIT ?`
	args := append(append([]any{}, cw.Args...), ownerRangeChats+1)
	annals.TraceStatement(ctx, q, args)
	rows, err := db.stmts.query(ctx, q, args...)
	if err != nil {
		return "", storeErr("owner's chats", err)
	}
	defer rows.Close()
	var spans [][3]int64
	var width, top int64
	for rows.Next() {
		var pk int64
		var lo, hi, last *int64
		if err := rows.Scan(&pk, &lo, &hi, &last); err != nil {
			return "", storeErr("owner's chats", err)
		}
		if last != nil {
			top = *last
		}
		if lo == nil || hi == nil {
			continue // no entries
		}
		spans = append(spans, [3]int64{pk, *lo, *hi})
		width += *hi - *lo + 1
	}
	if err := rows.Err(); err != nil {
		return "", storeErr("owner's chats", err)
	}
	if len(spans) > ownerRangeChats || width*ownerRangeShare > top {
		return "", nil
	}
	if spans == nil {
		spans = [][3]int64{}
	}
	raw, err := json.Marshal(spans)
	if err != nil {
		return "", storeErr("owner's chats", err)
	}
	return string(raw), nil
}

// spansCTE is og, the owner's chats' ranges ownerSpans encoded, read back from its JSON (one
// argument).
const spansCTE = `og(pk, lo, hi) AS MATERIALIZED (SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2 FROM json_each(?) j)`

// spanMatches is the FROM and WHERE of the entries in the owner's chats' ranges (og) matching
// the entry MATCH (the first argument after og's), with the entry and chat filters written
// after it: one range of the entry index per chat, each entry checked against its chat.
func (p *searchPlan) spanMatches() string {
	return `og CROSS JOIN entries_fts CROSS JOIN ` + p.filtered() + ` CROSS JOIN chats c
	WHERE entries_fts.rowid BETWEEN og.lo AND og.hi AND e.pk = entries_fts.rowid AND e.chat_pk = og.pk AND c.pk = e.chat_pk
	AND entries_fts MATCH ?`
}

// rangeWalk is scored's entry arm for a small owner under an entry-level filter (tool:, role:,
// after:, before:): the walk of the newest matching entries (searchEntryRanking) over the
// owner's chats' ranges instead of every tenant's matches, then bm25 for the entries it kept in
// one pass over the candidates (a cursor per chat would repeat bm25's document-frequency pass
// per chat). It adds og and walk to r's CTEs.
func (p *searchPlan) rangeWalk(r *rankingCTEs, cw *where, spans string, walk int) (string, error) {
	score, scoreArgs, err := p.rank(entriesRank, r.bodyAny, entryWeights)
	if err != nil {
		return "", err
	}
	cond := p.spanMatches()
	r.args = append(r.args, spans, p.narrow(r.bodyAny))
	if len(p.entryWhere.Conds) > 0 {
		cond += " AND " + p.entryWhere.SQL()
		r.args = append(r.args, p.entryWhere.Args...)
	}
	r.args = append(append(append(r.args, cw.Args...), walk), append(scoreArgs, r.bodyAny)...)
	r.with = append(r.with, spansCTE, `walk(epk, pk) AS MATERIALIZED (SELECT e.pk, e.chat_pk FROM `+cond+` AND `+cw.SQL()+`
		ORDER BY e.pk DESC LIMIT ?)`)
	return `SELECT w.epk AS epk, w.pk AS pk, s.bb AS bb, 1 AS bn, NULL AS mb FROM walk w JOIN (SELECT rowid AS epk, ` + score + ` AS bb
		FROM entries_fts WHERE entries_fts MATCH ? AND +rowid IN (SELECT epk FROM walk)) s ON s.epk = w.epk`, nil
}
