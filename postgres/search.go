package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// Ranking. ts_rank plays the part of SQLite's bm25, with field weights in the same proportions
// (ts_rank takes weights in 0..1, ordered {D, C, B, A}): a title match means more than a word in a
// long tool result. ts_rank values are small (a single mention scores about 0.03..0.1), so they
// are scaled into bm25's usual range before the structural terms and recency blend in, with the
// same constants as the SQLite store.
const (
	// entries.tsv: D tool result, C tool name and arguments, B reasoning, A text.
	entryRankWeights = `'{0.25, 0.7, 0.25, 0.5}'`
	// chat_meta.meta_tsv: D tags, C summary, B description, A title.
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
	// expanded maps the ORs a prefix's expansion made (expandSearch) to the prefix: each is one
	// term of the query, matched by one index scan of the OR of its words, as the prefix was.
	expanded map[*annals.TextExpr]*annals.TextExpr
}

// leaf reports whether e is one term of the query: a term, or the expansion of a prefix.
func (p *searchPlan) leaf(e *annals.TextExpr) bool {
	return e.Op == annals.TextTerm || p.expanded[e] != nil
}

// planSearch expands the prefixes of f's text (expandSearch) and resolves the filter into the
// pieces the queries need.
func (db *DB) planSearch(ctx context.Context, f annals.SearchFilter) (*searchPlan, error) {
	expanded, err := db.expandSearch(ctx, &f)
	if err != nil {
		return nil, err
	}
	p, err := planFilter(f)
	if err != nil {
		return nil, err
	}
	p.expanded = expanded
	return p, nil
}

func planFilter(f annals.SearchFilter) (*searchPlan, error) {
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
		p.entryWhere.In("e.kind", kinds)
	}
	if len(f.Tools) > 0 {
		// tool_name is COLLATE "C", so lower() folds ASCII only: the same comparison as SQLite's
		// lower(), against the Go-lowered names.
		tools := make([]string, len(f.Tools))
		for i, t := range f.Tools {
			tools[i] = strings.ToLower(t)
		}
		p.entryWhere.In("lower(e.tool_name)", tools)
	}
	if fq := facetQuery(f.Roles, f.Tools); fq != "" {
		// The same filters as lexemes of the entry index's second column (facets.go): the
		// index intersects them with the words' postings before a row is read.
		p.entryWhere.Add(entryFacets+" @@ ?::tsquery", fq)
	}
	if f.After != nil {
		p.entryWhere.Add("e.time >= ?", unixNano(*f.After))
	}
	if f.Before != nil {
		p.entryWhere.Add("e.time < ?", unixNano(*f.Before))
	}
	// Entry-level filters describe entries; a metadata match cannot satisfy them.
	if len(p.entryWhere.Conds) > 0 {
		p.useMeta = false
	}
	return p, nil
}

// chatQuery is a chat-level text query resolved into SQL: the leaf terms, each compiled for the
// entry and metadata vectors, and the boolean expression over per-chat term flags.
type chatQuery struct {
	entryTerms, metaTerms []string // tsquery of leaf i, per vector
}

// compileChat numbers the leaf terms of e and builds the chat-level condition: the query holds
// over the whole chat, each term matching its metadata or any of its entries, as the SQLite
// store's INTERSECT / UNION / EXCEPT of per-term chat sets does.
func (p *searchPlan) compileChat(e *annals.TextExpr, q *chatQuery) (string, error) {
	switch {
	case p.leaf(e):
		et, err := tsExpr(e, p.entryW)
		if err != nil {
			return "", err
		}
		mt, _ := tsExpr(e, p.metaW)
		i := len(q.entryTerms)
		q.entryTerms, q.metaTerms = append(q.entryTerms, et), append(q.metaTerms, mt)
		return "m.t" + itoa(int64(i)), nil
	case e.Op == annals.TextOr, e.Op == annals.TextAnd:
		var pos, neg []string
		for _, it := range e.Items {
			if it.Op == annals.TextNot {
				if e.Op == annals.TextOr {
					return "", annals.Errorf(annals.EINVALID, "an exclusion (-word) cannot be one side of OR; combine it with words instead")
				}
				if len(it.Items) != 1 {
					return "", annals.Errorf(annals.EINVALID, "unknown query node")
				}
				c, err := p.compileChat(it.Items[0], q)
				if err != nil {
					return "", err
				}
				neg = append(neg, "NOT "+c)
				continue
			}
			c, err := p.compileChat(it, q)
			if err != nil {
				return "", err
			}
			pos = append(pos, c)
		}
		if len(pos) == 0 {
			return "", errOnlyExclusions()
		}
		op := " AND "
		if e.Op == annals.TextOr {
			op = " OR "
		}
		return "(" + strings.Join(append(pos, neg...), op) + ")", nil
	}
	return "", errOnlyExclusions()
}

// SearchChats ranks chats; see annals.SearchStore. Words and prefixes run on the chat documents
// (searchChatDocs), the rest on the entry index (searchEntryRanking).
func (db *DB) SearchChats(ctx context.Context, f annals.SearchFilter) ([]annals.ChatHit, int, error) {
	p, err := db.planSearch(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	f = p.f // its prefixes expanded
	cw, err := chatWhere(f.Chat)
	if err != nil {
		return nil, 0, err
	}
	limit := annals.EffectiveLimit(f.Limit, annals.DefaultListLimit, annals.MaxListLimit)
	if f.Offset < 0 {
		return nil, 0, annals.Errorf(annals.EINVALID, "offset must not be negative")
	}

	if p.useChatDocs() {
		annals.SearchReportFrom(ctx).SetPath("chat documents")
		return db.searchChatDocs(ctx, p, limit)
	}
	annals.SearchReportFrom(ctx).SetPath("entry index")
	return db.searchEntryRanking(ctx, p, cw, limit)
}

// aggFlags folds per-row term flags per chat: a term holds for the chat when any row matched it.
func aggFlags(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, ", bool_or(t%d) AS t%d", i, i)
	}
	return b.String()
}

// nullFlags stands in for the flags of a vector a search does not read.
func nullFlags(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, ", NULL::boolean AS t%d", i)
	}
	return b.String()
}

// pageEntries fills up to f.Snippets excerpts per hit from the chat's best-matching entries, in
// one query for the whole page: the inner query ranks keys only, the outer reads the content of
// the few entries kept. With count it also sets each hit's Matches: the chat's entries that
// match the query by themselves (storecore.MatchCountDiffers), counted among the entries
// holding any positive word. With perChat it finds them by reading the page chats' entries (the
// match is written so that no index can serve it) instead of the entry index, whose posting
// lists a common word makes long.
func (db *DB) pageEntries(ctx context.Context, q querier, p *searchPlan, pos []*annals.TextExpr, pks []int64, hits []annals.ChatHit, count, perChat bool) error {
	n := min(p.f.Snippets, maxSnippets)
	tq := tsAny(pos, p.entryW)
	counted, countArgs := "count(*)", []any(nil)
	if count {
		for i := range hits {
			hits[i].Matches = 0
		}
		if !storecore.IsDisjunction(p.f.Text) {
			whole, err := tsExpr(p.f.Text, p.entryW)
			if err != nil {
				return err
			}
			counted, countArgs = "count(*) FILTER (WHERE e.tsv @@ ?::tsquery)", []any{whole}
		}
	}
	w := &where{}
	match := "e.tsv @@ ?::tsquery"
	if perChat {
		match = "(e.tsv @@ ?::tsquery) IS TRUE"
	}
	w.Add("e.chat_pk = ANY(?::bigint[]) AND "+match, pks, tq)
	w.Conds = append(w.Conds, p.entryWhere.Conds...)
	w.Args = append(w.Args, p.entryWhere.Args...)
	sql := `SELECT s.chat_pk, s.n, e.seq, e.kind, e.tool_name, e.text, e.reasoning, e.tool_args, e.tool_result
		FROM (SELECT e.pk, e.chat_pk, row_number() OVER (PARTITION BY e.chat_pk
				ORDER BY ts_rank(` + entryRankWeights + `, e.tsv, ?::tsquery, ` + itoa(rankNorm) + `) DESC, e.seq) AS rn,
				` + counted + ` OVER (PARTITION BY e.chat_pk) AS n
			FROM entries e WHERE ` + w.SQL() + `) s
		JOIN entries e ON e.pk = s.pk WHERE s.rn <= greatest(?, 1) ORDER BY s.chat_pk, s.rn`
	args := append(append(append([]any{tq}, countArgs...), w.Args...), n)
	sql = rebind(sql)
	annals.TraceStatement(ctx, sql, args)
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return db.storeErr("snippets", err)
	}
	defer rows.Close()
	index := make(map[int64]int, len(pks))
	for i, pk := range pks {
		index[pk] = i
	}
	for rows.Next() {
		var pk, matches int64
		var s annals.Snippet
		var kind, args string
		var text, reasoning, result []byte
		if err := rows.Scan(&pk, &matches, &s.Seq, &kind, &s.Tool, &text, &reasoning, &args, &result); err != nil {
			return db.storeErr("scan snippet", err)
		}
		h := &hits[index[pk]]
		if count {
			h.Matches = int(matches)
		}
		if n == 0 {
			continue
		}
		s.Kind = annals.EntryKind(kind)
		s.Text = buildSnippet(p.fieldTexts(string(text), string(reasoning), s.Tool, args, string(result)), pos, p.open, p.shut)
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
