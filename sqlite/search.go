package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
)

// Ranking weights. bm25 column weights favour where a term says most about a chat: a title
// match means more than a word in a long tool result.
const (
	entryWeights = "1.0, 0.5, 2.0, 0.75, 0.5" // text, reasoning, tool_name, tool_args, tool_result
	metaWeights  = "10.0, 4.0, 3.0, 5.0"      // title, description, summary, tags
	// recencyHalfLifeDays: a chat this many days old gets half the recency bonus of a fresh one.
	recencyHalfLifeDays = 30.0
	// recencyBonus is the most relevance recency can add (25%): enough to order near-equal
	// matches, too little to lift a weak match over a strong one.
	recencyBonus = 0.25
	maxSnippets  = 3
	// metaMatchBonus and entryCountBonus: see the score expression in SearchChats.
	metaMatchBonus  = 1.0
	entryCountBonus = 0.5
)

// searchPlan is a SearchFilter resolved into the FTS5 pieces the queries need.
type searchPlan struct {
	f          annals.SearchFilter
	entryCols  []string // nil: all entry columns
	metaCols   []string // nil: all metadata columns
	useEntries bool
	useMeta    bool
	entryWhere *where // entry-level filters on alias e
	open, shut string
}

func planSearch(f annals.SearchFilter) (*searchPlan, error) {
	p := &searchPlan{f: f, useEntries: true, useMeta: true, open: f.MarkOpen, shut: f.MarkClose}
	if p.open == "" && p.shut == "" {
		p.open, p.shut = "[", "]"
	}
	if len(f.Fields) > 0 {
		p.useEntries, p.useMeta = false, false
		for _, fld := range f.Fields {
			switch fld {
			case annals.FieldBody:
				p.entryCols, p.useEntries = append(p.entryCols, "text", "reasoning"), true
			case annals.FieldTools:
				p.entryCols, p.useEntries = append(p.entryCols, "tool_name", "tool_args", "tool_result"), true
			case annals.FieldTitle, annals.FieldDescription, annals.FieldSummary, annals.FieldTags:
				p.metaCols, p.useMeta = append(p.metaCols, fld), true
			default:
				return nil, annals.Errorf(annals.EINVALID, "unknown search field %q (want any of: %s)", fld, strings.Join(annals.SearchFields, ", "))
			}
		}
	}
	switch f.Sort {
	case "", annals.SortRelevance, annals.SortRecent:
	default:
		return nil, annals.Errorf(annals.EINVALID, "unknown sort %q (want relevance or recent)", f.Sort)
	}
	p.entryWhere = &where{}
	if len(f.Roles) > 0 {
		marks := make([]string, len(f.Roles))
		for i, r := range f.Roles {
			if _, err := annals.ParseEntryKind(string(r)); err != nil {
				return nil, err
			}
			marks[i] = "?"
			p.entryWhere.args = append(p.entryWhere.args, string(r))
		}
		p.entryWhere.conds = append(p.entryWhere.conds, "e.kind IN ("+strings.Join(marks, ", ")+")")
	}
	if len(f.Tools) > 0 {
		marks := make([]string, len(f.Tools))
		for i, t := range f.Tools {
			marks[i] = "?"
			p.entryWhere.args = append(p.entryWhere.args, strings.ToLower(t))
		}
		p.entryWhere.conds = append(p.entryWhere.conds, "lower(e.tool_name) IN ("+strings.Join(marks, ", ")+")")
	}
	if f.After != nil {
		p.entryWhere.add("e.time >= ?", unixNano(*f.After))
	}
	if f.Before != nil {
		p.entryWhere.add("e.time < ?", unixNano(*f.Before))
	}
	// Entry-level filters describe entries; a metadata match cannot satisfy them.
	if len(p.entryWhere.conds) > 0 {
		p.useMeta = false
	}
	return p, nil
}

// chatSet builds a query yielding the pk of every chat in which e holds, treating the chat as
// one document: each term may match its metadata or any one of its entries.
func (p *searchPlan) chatSet(e *annals.TextExpr) (string, []any, error) {
	switch e.Op {
	case annals.TextTerm:
		var parts []string
		var args []any
		if p.useEntries {
			m, err := ftsCompile(e, p.entryCols)
			if err != nil {
				return "", nil, err
			}
			q := `SELECT DISTINCT e.chat_pk AS pk FROM entries_fts JOIN entries e ON e.pk = entries_fts.rowid WHERE entries_fts MATCH ?`
			args = append(args, m)
			if len(p.entryWhere.conds) > 0 {
				q += " AND " + p.entryWhere.sql()
				args = append(args, p.entryWhere.args...)
			}
			parts = append(parts, q)
		}
		if p.useMeta {
			m, err := ftsCompile(e, p.metaCols)
			if err != nil {
				return "", nil, err
			}
			parts = append(parts, `SELECT rowid AS pk FROM chats_fts WHERE chats_fts MATCH ?`)
			args = append(args, m)
		}
		if len(parts) == 0 {
			return `SELECT NULL AS pk WHERE 0`, nil, nil
		}
		return strings.Join(parts, " UNION "), args, nil
	case annals.TextOr, annals.TextAnd:
		var pos, neg []string
		var posArgs, negArgs []any
		for _, it := range e.Items {
			if it.Op == annals.TextNot {
				if e.Op == annals.TextOr {
					return "", nil, annals.Errorf(annals.EINVALID, "an exclusion (-word) cannot be one side of OR; combine it with words instead")
				}
				q, a, err := p.chatSet(it.Items[0])
				if err != nil {
					return "", nil, err
				}
				neg, negArgs = append(neg, q), append(negArgs, a...)
				continue
			}
			q, a, err := p.chatSet(it)
			if err != nil {
				return "", nil, err
			}
			pos, posArgs = append(pos, q), append(posArgs, a...)
		}
		if len(pos) == 0 {
			return "", nil, errOnlyExclusions()
		}
		op := " INTERSECT "
		if e.Op == annals.TextOr {
			op = " UNION "
		}
		wrapped := make([]string, len(pos))
		for i, q := range pos {
			wrapped[i] = "SELECT pk FROM (" + q + ")"
		}
		out := strings.Join(wrapped, op)
		for _, q := range neg {
			out += " EXCEPT SELECT pk FROM (" + q + ")"
		}
		return out, append(posArgs, negArgs...), nil
	}
	return "", nil, errOnlyExclusions()
}

// SearchChats ranks chats; see annals.SearchStore.
func (db *DB) SearchChats(ctx context.Context, f annals.SearchFilter) ([]annals.ChatHit, int, error) {
	p, err := planSearch(f)
	if err != nil {
		return nil, 0, err
	}
	cw, err := chatWhere(f.Chat)
	if err != nil {
		return nil, 0, err
	}
	limit := annals.EffectiveLimit(f.Limit, annals.DefaultListLimit, annals.MaxListLimit)
	if f.Offset < 0 {
		return nil, 0, annals.Errorf(annals.EINVALID, "offset must not be negative")
	}

	var with []string
	var args []any
	switch {
	case f.Text != nil:
		set, setArgs, err := p.chatSet(f.Text)
		if err != nil {
			return nil, 0, err
		}
		with = append(with, "matched(pk) AS ("+set+")")
		args = append(args, setArgs...)
	case len(p.entryWhere.conds) > 0:
		with = append(with, "matched(pk) AS (SELECT DISTINCT e.chat_pk FROM entries e WHERE "+p.entryWhere.sql()+")")
		args = append(args, p.entryWhere.args...)
	default:
		with = append(with, "matched(pk) AS (SELECT pk FROM chats)")
	}

	pos := positiveTerms(f.Text, nil)
	rankBody, rankMeta := p.useEntries && len(pos) > 0, p.useMeta && len(pos) > 0
	var bodyAny, metaAny string
	if rankBody {
		if bodyAny, err = ftsCompile(anyOf(pos), p.entryCols); err != nil {
			return nil, 0, err
		}
	}
	if rankMeta {
		if metaAny, err = ftsCompile(anyOf(pos), p.metaCols); err != nil {
			return nil, 0, err
		}
	}
	if rankBody {
		// bm25() cannot be called inside an aggregate, so rows are scored in a subquery that
		// LIMIT -1 keeps from being flattened into the GROUP BY.
		q := `body(pk, best, n) AS (SELECT pk, min(r), count(*) FROM (SELECT e.chat_pk AS pk, bm25(entries_fts, ` + entryWeights + `) AS r
			FROM entries_fts JOIN entries e ON e.pk = entries_fts.rowid
			WHERE entries_fts MATCH ? AND e.chat_pk IN (SELECT pk FROM matched)`
		args = append(args, bodyAny)
		if len(p.entryWhere.conds) > 0 {
			q += " AND " + p.entryWhere.sql()
			args = append(args, p.entryWhere.args...)
		}
		with = append(with, q+" LIMIT -1) GROUP BY pk)")
	} else {
		with = append(with, "body(pk, best, n) AS (SELECT NULL, NULL, NULL WHERE 0)")
	}
	if rankMeta {
		with = append(with, `meta(pk, best) AS (SELECT rowid, bm25(chats_fts, `+metaWeights+`) FROM chats_fts
			WHERE chats_fts MATCH ? AND rowid IN (SELECT pk FROM matched))`)
		args = append(args, metaAny)
	} else {
		with = append(with, "meta(pk, best) AS (SELECT NULL, NULL WHERE 0)")
	}

	from := ` FROM chats c JOIN matched m ON m.pk = c.pk LEFT JOIN body b ON b.pk = c.pk LEFT JOIN meta x ON x.pk = c.pk WHERE ` + cw.sql()
	prefix := "WITH " + strings.Join(with, ", ")

	var total int
	countQ, countArgs := prefix+" SELECT count(*)"+from, append(args, cw.args...)
	annals.TraceStatement(ctx, countQ, countArgs)
	if err := db.reader.QueryRowContext(ctx, countQ, countArgs...).Scan(&total); err != nil {
		return nil, 0, ftsErr("count search", err)
	}

	// Relevance: bm25 is negative, lower is better, so negate. bm25's idf vanishes for a term
	// found in more than half the documents, so two structural terms keep ranking meaningful
	// there too: a metadata match, and the number of matching entries (saturating). Recency
	// then multiplies by up to (1 + recencyBonus), decaying with age.
	now := float64(unixNano(db.now()))
	score := fmt.Sprintf(`((coalesce(-b.best, 0) + coalesce(-x.best, 0) + (x.best IS NOT NULL) * %g + %g * coalesce(b.n, 0) / (coalesce(b.n, 0) + 4.0))
		* (1.0 + %g / (1.0 + max(0.0, (? - c.last_activity) / 86400e9) / %g)))`, metaMatchBonus, entryCountBonus, recencyBonus, recencyHalfLifeDays)
	order := "score DESC, c.last_activity DESC, c.id"
	if f.Sort == annals.SortRecent {
		order = "c.last_activity DESC, c.id"
	}
	q := prefix + ` SELECT ` + chatColumns + `, c.pk, ` + score + ` AS score, coalesce(b.n, 0)` + from +
		` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	qargs := append(append(append([]any{}, args...), now), cw.args...)
	qargs = append(qargs, limit, f.Offset)
	annals.TraceStatement(ctx, q, qargs)
	rows, err := db.reader.QueryContext(ctx, q, qargs...)
	if err != nil {
		return nil, 0, ftsErr("search chats", err)
	}
	defer rows.Close()
	hits := []annals.ChatHit{}
	var pks []int64
	for rows.Next() {
		var h annals.ChatHit
		var pk int64
		c, err := scanChat(suffixScanner{rows: rows, extra: []any{&pk, &h.Score, &h.Matches}})
		if err != nil {
			return nil, 0, storeErr("scan search hit", err)
		}
		h.Chat = c
		hits = append(hits, h)
		pks = append(pks, pk)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, ftsErr("search chats", err)
	}
	rows.Close()
	if f.Snippets > 0 && rankBody && len(hits) > 0 {
		if err := db.snippets(ctx, p, bodyAny, pks, hits); err != nil {
			return nil, 0, err
		}
	}
	return hits, total, nil
}

// snippets fills up to f.Snippets excerpts per hit from the chat's best-matching entries, in
// one query for the whole page.
func (db *DB) snippets(ctx context.Context, p *searchPlan, match string, pks []int64, hits []annals.ChatHit) error {
	n := min(p.f.Snippets, maxSnippets)
	marks := make([]string, len(pks))
	args := []any{p.open, p.shut, match}
	for i, pk := range pks {
		marks[i] = "?"
		args = append(args, pk)
	}
	q := `SELECT e.chat_pk, e.seq, e.kind, e.tool_name,
			snippet(entries_fts, -1, ?, ?, '…', 16), bm25(entries_fts, ` + entryWeights + `) AS r
		FROM entries_fts JOIN entries e ON e.pk = entries_fts.rowid
		WHERE entries_fts MATCH ? AND e.chat_pk IN (` + strings.Join(marks, ", ") + `)`
	if len(p.entryWhere.conds) > 0 {
		q += " AND " + p.entryWhere.sql()
		args = append(args, p.entryWhere.args...)
	}
	q += ` ORDER BY e.chat_pk, r, e.seq`
	annals.TraceStatement(ctx, q, args)
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return ftsErr("snippets", err)
	}
	defer rows.Close()
	index := make(map[int64]int, len(pks))
	for i, pk := range pks {
		index[pk] = i
	}
	for rows.Next() {
		var pk int64
		var s annals.Snippet
		var kind string
		var r float64
		if err := rows.Scan(&pk, &s.Seq, &kind, &s.Tool, &s.Text, &r); err != nil {
			return storeErr("scan snippet", err)
		}
		h := &hits[index[pk]]
		if len(h.Snippets) >= n {
			continue
		}
		s.Kind = annals.EntryKind(kind)
		h.Snippets = append(h.Snippets, s)
	}
	return ftsErr("snippets", rows.Err())
}

// SearchEntries finds entries; see annals.SearchStore.
func (db *DB) SearchEntries(ctx context.Context, f annals.SearchFilter) ([]annals.EntryHit, int, error) {
	p, err := planSearch(f)
	if err != nil {
		return nil, 0, err
	}
	if !p.useEntries {
		return nil, 0, annals.Errorf(annals.EINVALID, "an entry search needs the body or tools field")
	}
	cw, err := chatWhere(f.Chat)
	if err != nil {
		return nil, 0, err
	}
	limit := annals.EffectiveLimit(f.Limit, annals.DefaultListLimit, annals.MaxListLimit)
	if f.Offset < 0 {
		return nil, 0, annals.Errorf(annals.EINVALID, "offset must not be negative")
	}
	w := &where{}
	var from string
	var rank, snip string
	var pre []any
	if f.Text != nil {
		expr, err := ftsCompile(f.Text, p.entryCols)
		if err != nil {
			return nil, 0, err
		}
		from = `entries_fts JOIN entries e ON e.pk = entries_fts.rowid JOIN chats c ON c.pk = e.chat_pk`
		w.add("entries_fts MATCH ?", expr)
		rank = `bm25(entries_fts, ` + entryWeights + `)`
		snip = `snippet(entries_fts, -1, ?, ?, '…', 16)`
		pre = []any{p.open, p.shut}
	} else {
		from = `entries e JOIN chats c ON c.pk = e.chat_pk`
		rank, snip = "0.0", "''"
	}
	w.conds = append(w.conds, cw.conds...)
	w.args = append(w.args, cw.args...)
	w.conds = append(w.conds, p.entryWhere.conds...)
	w.args = append(w.args, p.entryWhere.args...)

	var total int
	countQ := `SELECT count(*) FROM ` + from + ` WHERE ` + w.sql()
	annals.TraceStatement(ctx, countQ, w.args)
	if err := db.reader.QueryRowContext(ctx, countQ, w.args...).Scan(&total); err != nil {
		return nil, 0, ftsErr("count entry search", err)
	}
	order := "r, e.time DESC, e.pk DESC"
	if f.Sort == annals.SortRecent || f.Text == nil {
		order = "e.time DESC, e.pk DESC"
	}
	q := `SELECT ` + entryColumns + `, ` + rank + ` AS r, ` + snip + ` FROM ` + from + ` WHERE ` + w.sql() + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	args := append(append(pre, w.args...), limit, f.Offset)
	annals.TraceStatement(ctx, q, args)
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, ftsErr("search entries", err)
	}
	defer rows.Close()
	hits := []annals.EntryHit{}
	for rows.Next() {
		var h annals.EntryHit
		e, err := scanEntry(suffixScanner{rows: rows, extra: []any{&h.Score, &h.Snippet}})
		if err != nil {
			return nil, 0, storeErr("scan entry hit", err)
		}
		h.Entry, h.Score = e, -h.Score
		hits = append(hits, h)
	}
	return hits, total, ftsErr("search entries", rows.Err())
}

// suffixScanner scans the caller's targets, then extra trailing columns.
type suffixScanner struct {
	rows  interface{ Scan(...any) error }
	extra []any
}

func (s suffixScanner) Scan(dest ...any) error {
	return s.rows.Scan(append(dest, s.extra...)...)
}

// ftsErr classifies an FTS5 failure. Queries are compiled from a parsed tree with every token
// quoted, so an FTS5 syntax error here is a bug in annals, not in the caller's input.
func ftsErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return storeErr(op, err)
}
