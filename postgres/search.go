package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
)

// Ranking. ts_rank plays the part of SQLite's bm25, with field weights in the same proportions
// (ts_rank takes weights in 0..1, ordered {D, C, B, A}): a title match means more than a word in a
// long tool result. ts_rank values are small (a single mention scores about 0.03..0.1), so they
// are scaled into bm25's usual range before the structural terms and recency blend in, with the
// same constants as the SQLite store.
const (
	// entries.tsv: D tool result, C tool name and arguments, B reasoning, A text.
	entryRankWeights = `'{0.25, 0.7, 0.25, 0.5}'`
	// chats.meta_tsv: D tags, C summary, B description, A title.
	metaRankWeights = `'{0.5, 0.3, 0.4, 1.0}'`
	// rankNorm 1 divides by 1 + log(document length), as bm25 discounts long documents.
	rankNorm  = 1
	rankScale = 20.0

	recencyHalfLifeDays = 30.0
	recencyBonus        = 0.25
	maxSnippets         = 3
	metaMatchBonus      = 1.0
	entryCountBonus     = 0.5
)

// Snippet fields of an entry, in the order SQLite's snippet() considers its columns.
const (
	fieldText = iota
	fieldReasoning
	fieldToolName
	fieldToolArgs
	fieldToolResult
)

// searchPlan is a SearchFilter resolved into the pieces the queries need.
type searchPlan struct {
	f annals.SearchFilter
	// entryW and metaW restrict lexemes to field weights; "" means every field.
	entryW, metaW string
	// snipFields are the entry fields snippets are cut from.
	snipFields []int
	useEntries bool
	useMeta    bool
	entryWhere *where // entry-level filters on alias e
	open, shut string
}

func planSearch(f annals.SearchFilter) (*searchPlan, error) {
	p := &searchPlan{f: f, useEntries: true, useMeta: true, open: f.MarkOpen, shut: f.MarkClose,
		snipFields: []int{fieldText, fieldReasoning, fieldToolName, fieldToolArgs, fieldToolResult}}
	if p.open == "" && p.shut == "" {
		p.open, p.shut = "[", "]"
	}
	if len(f.Fields) > 0 {
		p.useEntries, p.useMeta = false, false
		p.snipFields = nil
		var metaFields []string
		for _, fld := range f.Fields {
			switch fld {
			case annals.FieldBody:
				p.entryW += string([]byte{wText, wReasoning})
				p.snipFields = append(p.snipFields, fieldText, fieldReasoning)
				p.useEntries = true
			case annals.FieldTools:
				p.entryW += string([]byte{wTool, wResult})
				p.snipFields = append(p.snipFields, fieldToolName, fieldToolArgs, fieldToolResult)
				p.useEntries = true
			case annals.FieldTitle, annals.FieldDescription, annals.FieldSummary, annals.FieldTags:
				metaFields = append(metaFields, fld)
				p.useMeta = true
			default:
				return nil, annals.Errorf(annals.EINVALID, "unknown search field %q (want any of: %s)", fld, strings.Join(annals.SearchFields, ", "))
			}
		}
		if len(metaFields) > 0 {
			p.metaW, _ = metaWeights(metaFields)
		}
	}
	switch f.Sort {
	case "", annals.SortRelevance, annals.SortRecent:
	default:
		return nil, annals.Errorf(annals.EINVALID, "unknown sort %q (want relevance or recent)", f.Sort)
	}
	p.entryWhere = &where{}
	if len(f.Roles) > 0 {
		kinds := make([]string, len(f.Roles))
		for i, r := range f.Roles {
			if _, err := annals.ParseEntryKind(string(r)); err != nil {
				return nil, err
			}
			kinds[i] = string(r)
		}
		p.entryWhere.in("e.kind", kinds)
	}
	if len(f.Tools) > 0 {
		// tool_name is COLLATE "C", so lower() folds ASCII only: the same comparison as SQLite's
		// lower(), against the Go-lowered names.
		tools := make([]string, len(f.Tools))
		for i, t := range f.Tools {
			tools[i] = strings.ToLower(t)
		}
		p.entryWhere.in("lower(e.tool_name)", tools)
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
// one document: each term may match its metadata or any one of its entries. Terms are sets of
// chats combined with INTERSECT, UNION and EXCEPT, exactly as the SQLite store does.
func (p *searchPlan) chatSet(e *annals.TextExpr) (string, []any, error) {
	switch e.Op {
	case annals.TextTerm:
		var parts []string
		var args []any
		if p.useEntries {
			q, err := tsTerm(e, p.entryW)
			if err != nil {
				return "", nil, err
			}
			w := &where{}
			w.add("e.tsv @@ ?::tsquery", q)
			w.addTenant("e", p.f.Chat.Owner)
			w.conds = append(w.conds, p.entryWhere.conds...)
			w.args = append(w.args, p.entryWhere.args...)
			parts = append(parts, `(SELECT DISTINCT e.chat_pk AS pk FROM entries e WHERE `+w.sql()+`)`)
			args = append(args, w.args...)
		}
		if p.useMeta {
			q, err := tsTerm(e, p.metaW)
			if err != nil {
				return "", nil, err
			}
			w := &where{}
			w.add("x.meta_tsv @@ ?::tsquery", q)
			w.addTenant("x", p.f.Chat.Owner)
			parts = append(parts, `(SELECT x.pk FROM chats x WHERE `+w.sql()+`)`)
			args = append(args, w.args...)
		}
		if len(parts) == 0 {
			return `(SELECT NULL::bigint AS pk WHERE false)`, nil, nil
		}
		return "(" + strings.Join(parts, " UNION ") + ")", args, nil
	case annals.TextOr, annals.TextAnd:
		var pos, neg []string
		var posArgs, negArgs []any
		for _, it := range e.Items {
			if it.Op == annals.TextNot {
				if e.Op == annals.TextOr {
					return "", nil, annals.Errorf(annals.EINVALID, "an exclusion (-word) cannot be one side of OR; combine it with words instead")
				}
				if len(it.Items) != 1 {
					return "", nil, annals.Errorf(annals.EINVALID, "unknown query node")
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
		out := "(" + strings.Join(pos, op) + ")"
		for _, q := range neg {
			out = "(" + out + " EXCEPT " + q + ")"
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

	var matched string
	var matchedArgs []any
	switch {
	case f.Text != nil:
		matched, matchedArgs, err = p.chatSet(f.Text)
		if err != nil {
			return nil, 0, err
		}
	case len(p.entryWhere.conds) > 0:
		w := &where{}
		w.addTenant("e", f.Chat.Owner)
		w.conds = append(w.conds, p.entryWhere.conds...)
		w.args = append(w.args, p.entryWhere.args...)
		matched, matchedArgs = `(SELECT DISTINCT e.chat_pk AS pk FROM entries e WHERE `+w.sql()+`)`, w.args
	default:
		matched = `(SELECT pk FROM chats)`
	}
	with := "WITH matched AS MATERIALIZED " + matched

	var total int
	countQ := with + ` SELECT count(*) FROM chats c JOIN matched m ON m.pk = c.pk WHERE ` + cw.sql()
	if err := db.pool.QueryRow(ctx, rebind(countQ), append(append([]any{}, matchedArgs...), cw.args...)...).Scan(&total); err != nil {
		return nil, 0, db.storeErr("count search", err)
	}

	args := append([]any{}, matchedArgs...)
	pos := positiveTerms(f.Text, nil)
	rankBody, rankMeta := p.useEntries && len(pos) > 0, p.useMeta && len(pos) > 0
	var bodyQ string
	if rankBody {
		q := tsAny(pos, p.entryW)
		w := &where{}
		w.add("e.chat_pk IN (SELECT pk FROM matched) AND e.tsv @@ ?::tsquery", q)
		w.conds = append(w.conds, p.entryWhere.conds...)
		w.args = append(w.args, p.entryWhere.args...)
		bodyQ = `, body AS (SELECT e.chat_pk AS pk, max(ts_rank(` + entryRankWeights + `, e.tsv, ?::tsquery, ` + itoa(rankNorm) + `)) AS best, count(*) AS n
			FROM entries e WHERE ` + w.sql() + ` GROUP BY e.chat_pk)`
		args = append(append(args, q), w.args...)
	} else {
		bodyQ = `, body AS (SELECT NULL::bigint AS pk, NULL::real AS best, NULL::bigint AS n WHERE false)`
	}
	var metaQ string
	if rankMeta {
		q := tsAny(pos, p.metaW)
		metaQ = `, meta AS (SELECT x.pk, ts_rank(` + metaRankWeights + `, x.meta_tsv, ?::tsquery, ` + itoa(rankNorm) + `) AS best
			FROM chats x WHERE x.pk IN (SELECT pk FROM matched) AND x.meta_tsv @@ ?::tsquery)`
		args = append(args, q, q)
	} else {
		metaQ = `, meta AS (SELECT NULL::bigint AS pk, NULL::real AS best WHERE false)`
	}

	// Relevance blends the best matching entry, the metadata match (plus a bonus for having
	// one), and the number of matching entries (saturating); recency then multiplies by up to
	// (1 + recencyBonus), decaying with age. The same expression as the SQLite store.
	score := fmt.Sprintf(`((%g * coalesce(b.best, 0)::float8 + %g * coalesce(x.best, 0)::float8 + (CASE WHEN x.best IS NOT NULL THEN %g ELSE 0 END)
			+ %g * coalesce(b.n, 0)::float8 / (coalesce(b.n, 0) + 4.0)::float8)
		* (1.0 + %g / (1.0 + greatest(0.0, (?::bigint - c.last_activity)::float8 / 86400e9) / %g)))::float8`,
		rankScale, rankScale, metaMatchBonus, entryCountBonus, recencyBonus, recencyHalfLifeDays)
	args = append(args, unixNano(db.now()))
	order := "score DESC, c.last_activity DESC, c.id"
	if f.Sort == annals.SortRecent {
		order = "c.last_activity DESC, c.id"
	}
	q := with + bodyQ + metaQ + ` SELECT ` + chatColumns + `, c.pk, ` + score + ` AS score, coalesce(b.n, 0)
		FROM chats c JOIN matched m ON m.pk = c.pk LEFT JOIN body b ON b.pk = c.pk LEFT JOIN meta x ON x.pk = c.pk
		WHERE ` + cw.sql() + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	args = append(append(args, cw.args...), limit, f.Offset)
	rows, err := db.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, 0, db.storeErr("search chats", err)
	}
	defer rows.Close()
	hits := []annals.ChatHit{}
	var pks []int64
	for rows.Next() {
		var h annals.ChatHit
		var pk, n int64
		c, err := scanChat(rows, &pk, &h.Score, &n)
		if err != nil {
			return nil, 0, db.storeErr("scan search hit", err)
		}
		h.Chat, h.Matches = c, int(n)
		hits = append(hits, h)
		pks = append(pks, pk)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, db.storeErr("search chats", err)
	}
	rows.Close()
	if f.Snippets > 0 && rankBody && len(hits) > 0 {
		if err := db.snippets(ctx, p, pos, pks, hits); err != nil {
			return nil, 0, err
		}
	}
	return hits, total, nil
}

// snippets fills up to f.Snippets excerpts per hit from the chat's best-matching entries, in
// one query for the whole page: the inner query ranks keys only, the outer reads the content of
// the few entries kept.
func (db *DB) snippets(ctx context.Context, p *searchPlan, pos []*annals.TextExpr, pks []int64, hits []annals.ChatHit) error {
	n := min(p.f.Snippets, maxSnippets)
	q := tsAny(pos, p.entryW)
	w := &where{}
	w.add("e.chat_pk = ANY(?::bigint[]) AND e.tsv @@ ?::tsquery", pks, q)
	w.conds = append(w.conds, p.entryWhere.conds...)
	w.args = append(w.args, p.entryWhere.args...)
	sql := `SELECT s.chat_pk, e.seq, e.kind, e.tool_name, e.text, e.reasoning, e.tool_args, e.tool_result
		FROM (SELECT e.pk, e.chat_pk, row_number() OVER (PARTITION BY e.chat_pk
				ORDER BY ts_rank(` + entryRankWeights + `, e.tsv, ?::tsquery, ` + itoa(rankNorm) + `) DESC, e.seq) AS rn
			FROM entries e WHERE ` + w.sql() + `) s
		JOIN entries e ON e.pk = s.pk WHERE s.rn <= ? ORDER BY s.chat_pk, s.rn`
	args := append(append([]any{q}, w.args...), n)
	rows, err := db.pool.Query(ctx, rebind(sql), args...)
	if err != nil {
		return db.storeErr("snippets", err)
	}
	defer rows.Close()
	index := make(map[int64]int, len(pks))
	for i, pk := range pks {
		index[pk] = i
	}
	for rows.Next() {
		var pk int64
		var s annals.Snippet
		var kind, args string
		var text, reasoning, result []byte
		if err := rows.Scan(&pk, &s.Seq, &kind, &s.Tool, &text, &reasoning, &args, &result); err != nil {
			return db.storeErr("scan snippet", err)
		}
		s.Kind = annals.EntryKind(kind)
		s.Text = buildSnippet(p.fieldTexts(string(text), string(reasoning), s.Tool, args, string(result)), pos, p.open, p.shut)
		h := &hits[index[pk]]
		h.Snippets = append(h.Snippets, s)
	}
	if err := rows.Err(); err != nil {
		return db.storeErr("snippets", err)
	}
	return nil
}

// fieldTexts lists an entry's fields in snippet order, blanking those outside the plan's fields.
func (p *searchPlan) fieldTexts(text, reasoning, toolName, args, result string) []string {
	all := []string{text, reasoning, toolName, args, result}
	out := make([]string, len(all))
	for _, i := range p.snipFields {
		out[i] = all[i]
	}
	return out
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
	rank := "0.0::real"
	var pre []any
	pos := positiveTerms(f.Text, nil)
	if f.Text != nil {
		expr, err := tsExpr(f.Text, p.entryW)
		if err != nil {
			return nil, 0, err
		}
		w.add("e.tsv @@ ?::tsquery", expr)
		rank = `ts_rank(` + entryRankWeights + `, e.tsv, ?::tsquery, ` + itoa(rankNorm) + `)`
		pre = []any{tsAny(pos, p.entryW)}
	}
	w.addTenant("e", f.Chat.Owner)
	w.conds = append(w.conds, cw.conds...)
	w.args = append(w.args, cw.args...)
	w.conds = append(w.conds, p.entryWhere.conds...)
	w.args = append(w.args, p.entryWhere.args...)
	from := `entries e JOIN chats c ON c.pk = e.chat_pk`

	var total int
	if err := db.pool.QueryRow(ctx, rebind(`SELECT count(*) FROM `+from+` WHERE `+w.sql()), w.args...).Scan(&total); err != nil {
		return nil, 0, db.storeErr("count entry search", err)
	}
	order := "r DESC, e.time DESC, e.pk DESC"
	if f.Sort == annals.SortRecent || f.Text == nil {
		order = "e.time DESC, e.pk DESC"
	}
	q := `SELECT ` + entryColumns + `, ` + rank + ` AS r FROM ` + from + ` WHERE ` + w.sql() + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	args := append(append(pre, w.args...), limit, f.Offset)
	rows, err := db.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, 0, db.storeErr("search entries", err)
	}
	defer rows.Close()
	hits := []annals.EntryHit{}
	for rows.Next() {
		var h annals.EntryHit
		var r float32
		e, err := scanEntry(rows, &r)
		if err != nil {
			return nil, 0, db.storeErr("scan entry hit", err)
		}
		h.Entry, h.Score = e, rankScale*float64(r)
		if f.Text != nil {
			var name, args, result string
			if e.Tool != nil {
				name, args, result = e.Tool.Name, string(e.Tool.Arguments), e.Tool.Result
			}
			h.Snippet = buildSnippet(p.fieldTexts(e.Text, e.Reasoning, name, args, result), pos, p.open, p.shut)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, db.storeErr("search entries", err)
	}
	return hits, total, nil
}
