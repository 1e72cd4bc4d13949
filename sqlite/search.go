package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/query"
)

// Ranking weights. bm25 column weights favour where a term says most about a chat: a title
// match means more than a word in a long tool result.
const (
	// text, reasoning, tool_name, tool_args, tool_result, facets (the kind and tool tokens a
	// role: or tool: search adds to its MATCH: no weight, a score is the words'; search_facets.go)
	entryWeights = "1.0, 0.5, 2.0, 0.75, 0.5, 0.0"
	metaWeights  = "10.0, 4.0, 3.0, 5.0" // title, description, summary, tags
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
	// entries names entries as alias e where a statement reads only the entry filter index's
	// columns (search_filter.go); set by the store, "" reads "entries e".
	entries string
	// facets: the entry index holds the kind and tool tokens (search_facets.go); set by the store.
	// unselective: the filters keep most of the words' newest matches, so the scored walks
	// leave the tokens out (probeFacets).
	facets, unselective bool
	// owner: the FTS5 expression of the owner's tokens (search_owner.go) every entry MATCH of
	// the plan carries, "" when the owner is every tenant or too large to narrow by them.
	owner string
	// rank is the store's rankScore in the search's context: the score of a MATCH's rows.
	rank func(t rankTable, match, weights string) (string, []any, error)
}

// filtered is how the statements name entries (alias e) looked up by pk when they read only
// pk, chat_pk, kind, lower(tool_name), time and entryBytes: through the entry filter index when
// there is one.
func (p *searchPlan) filtered() string {
	if p.entries == "" {
		return "entries e"
	}
	return p.entries
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
			p.entryWhere.Args = append(p.entryWhere.Args, string(r))
		}
		p.entryWhere.Conds = append(p.entryWhere.Conds, "e.kind IN ("+strings.Join(marks, ", ")+")")
	}
	if len(f.Tools) > 0 {
		marks := make([]string, len(f.Tools))
		for i, t := range f.Tools {
			marks[i] = "?"
			p.entryWhere.Args = append(p.entryWhere.Args, strings.ToLower(t))
		}
		p.entryWhere.Conds = append(p.entryWhere.Conds, "lower(e.tool_name) IN ("+strings.Join(marks, ", ")+")")
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
			q := `SELECT DISTINCT e.chat_pk AS pk FROM entries_fts JOIN ` + p.filtered() + ` ON e.pk = entries_fts.rowid WHERE entries_fts MATCH ?`
			args = append(args, p.narrow(m))
			if len(p.entryWhere.Conds) > 0 {
				q += " AND " + p.entryWhere.SQL()
				args = append(args, p.entryWhere.Args...)
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

// SearchChats ranks chats; see annals.SearchStore. A query with words and no entry-level
// filter is answered from the chat documents (search_docs.go); the rest by ranking entries
// (search_entries.go).
func (db *DB) SearchChats(ctx context.Context, f annals.SearchFilter) ([]annals.ChatHit, int, error) {
	p, err := planSearch(f)
	if err != nil {
		return nil, 0, err
	}
	p.entries, p.facets = db.entryFilter, db.facets
	p.rank = db.ranker(ctx)
	cw, err := chatWhere(f.Chat)
	if err != nil {
		return nil, 0, err
	}
	limit := annals.EffectiveLimit(f.Limit, annals.DefaultListLimit, annals.MaxListLimit)
	if f.Offset < 0 {
		return nil, 0, annals.Errorf(annals.EINVALID, "offset must not be negative")
	}
	if p.useChatDocs() && !db.entryRanking {
		hits, total, done, err := db.searchChatDocsTx(ctx, p, limit)
		if done || err != nil {
			annals.SearchReportFrom(ctx).SetPath("chat documents")
			return hits, total, err
		}
	}
	if p.f.Text, err = db.expandForEntries(ctx, p.f.Text); err != nil {
		return nil, 0, err
	}
	if err := db.planOwner(ctx, nil, p); err != nil {
		return nil, 0, err
	}
	annals.SearchReportFrom(ctx).SetPath(p.entryPath(""))
	hits, total, err := db.searchEntryRanking(ctx, p, cw, limit)
	return storecore.OrderOnly(f, hits), total, err
}

// searchChatDocsTx runs searchChatDocs in one read transaction, so its statements see one
// snapshot. done is false when the chat index is not built yet (an upgrade's backfill was
// interrupted, or an older binary wrote since): the entry-level ranking answers instead.
func (db *DB) searchChatDocsTx(ctx context.Context, p *searchPlan, limit int) (hits []annals.ChatHit, total int, done bool, err error) {
	sqlTx, err := db.reader.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, false, storeErr("begin search", err)
	}
	tx := &readTx{tx: sqlTx, cache: db.stmts}
	defer tx.end(ctx)
	ready, err := chatDocsReady(ctx, tx)
	if err != nil || !ready {
		return nil, 0, false, err
	}
	hits, total, err = db.searchChatDocs(ctx, tx, p, limit)
	return hits, total, true, err
}

// expandForEntries expands the prefix terms of text (expandPrefixes) for a search on the entry
// index. The words come from the chat index's vocabulary, which holds every word of every entry
// once the chat documents are built; until then (an upgrade's backfill not finished) the
// prefixes stay, and FTS5 answers them itself.
func (db *DB) expandForEntries(ctx context.Context, text *annals.TextExpr) (*annals.TextExpr, error) {
	if text == nil {
		return text, nil
	}
	// One snapshot for the index's version and its words (vocabCache).
	tx, err := db.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, storeErr("begin search", err)
	}
	defer func() { _ = tx.Rollback() }() // read-only: nothing to undo
	ready, err := chatDocsReady(ctx, tx)
	if err != nil || !ready {
		return text, err
	}
	x, _, err := db.expandPrefixes(ctx, tx, text, map[*annals.TextExpr]*annals.TextExpr{})
	return x, err
}

// SearchEntries finds entries; see annals.SearchStore.
func (db *DB) SearchEntries(ctx context.Context, f annals.SearchFilter) ([]annals.EntryHit, int, error) {
	p, err := planSearch(f)
	if err != nil {
		return nil, 0, err
	}
	p.entries, p.facets = db.entryFilter, db.facets
	p.rank = db.ranker(ctx)
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
	if f.Text, err = db.expandForEntries(ctx, f.Text); err != nil {
		return nil, 0, err
	}
	if err := db.planOwner(ctx, nil, p); err != nil {
		return nil, 0, err
	}
	annals.SearchReportFrom(ctx).SetPath(p.entryPath(""))
	w := &where{}
	from := `entries e JOIN chats c ON c.pk = e.chat_pk`
	rank := "0.0"
	var rankArgs []any
	var match string
	if f.Text != nil {
		if match, err = ftsCompile(f.Text, p.entryCols); err != nil {
			return nil, 0, err
		}
		from = `entries_fts JOIN ` + p.filtered() + ` ON e.pk = entries_fts.rowid JOIN chats c ON c.pk = e.chat_pk`
		if err := db.probeFacets(ctx, p, match); err != nil {
			return nil, 0, err
		}
		w.Add("entries_fts MATCH ?", p.narrowScored(match))
		if rank, rankArgs, err = p.rank(entriesRank, p.narrowScored(match), entryWeights); err != nil {
			return nil, 0, err
		}
	}
	w.Conds = append(w.Conds, cw.Conds...)
	w.Args = append(w.Args, cw.Args...)
	w.Conds = append(w.Conds, p.entryWhere.Conds...)
	w.Args = append(w.Args, p.entryWhere.Args...)
	excluded, err := p.excludedChats(f.Text)
	if err != nil {
		return nil, 0, err
	}
	if excluded != nil {
		w.Conds = append(w.Conds, excluded.Conds...)
		w.Args = append(w.Args, excluded.Args...)
	}

	if f.Text != nil && f.Sort != annals.SortRecent {
		return db.searchEntriesTopK(ctx, p, cw, w, f.Text, match, limit)
	}
	order := "r, time DESC, pk DESC"
	if f.Sort == annals.SortRecent || f.Text == nil {
		order = "time DESC, pk DESC"
	}
	// The page is chosen on narrow rows (pk, rank, and the total as a window count, so the
	// matches are scanned once), and only its entries are read whole and get a snippet: a
	// snippet costs a tokenization of the entry, too much to pay for every match. bm25() cannot
	// be evaluated where the window is, so the matches are scored in a subquery that LIMIT -1
	// keeps from being flattened.
	page := `page AS MATERIALIZED (SELECT pk, time, r, count(*) OVER () AS total FROM (SELECT e.pk AS pk, e.time AS time, ` + rank + ` AS r FROM ` +
		from + ` WHERE ` + w.SQL() + ` LIMIT -1) ORDER BY ` + order + ` LIMIT ? OFFSET ?)`
	args := append(append(rankArgs, w.Args...), limit, f.Offset)
	var q string
	if f.Text != nil {
		// The snippets are cut in Go from the page's entries (runEntrySearch).
		q = `WITH ` + page + ` SELECT ` + entryColumns + `, p.r, '', p.total
			FROM page p JOIN entries e ON e.pk = p.pk JOIN chats c ON c.pk = e.chat_pk
			ORDER BY p.r, p.time DESC, p.pk DESC`
	} else {
		q = `WITH ` + page + ` SELECT ` + entryColumns + `, p.r, '', p.total
			FROM page p JOIN entries e ON e.pk = p.pk JOIN chats c ON c.pk = e.chat_pk ORDER BY p.time DESC, p.pk DESC`
	}
	if f.Sort == annals.SortRecent && f.Text != nil {
		q = strings.Replace(q, "ORDER BY p.r, p.time DESC, p.pk DESC", "ORDER BY p.time DESC, p.pk DESC", 1)
	}
	hits, total, err := db.runEntrySearch(ctx, p, f.Text, q, args)
	if err != nil {
		return nil, 0, err
	}
	if len(hits) == 0 && f.Offset > 0 {
		// Past the end: the page carries no total, so count.
		countQ := `SELECT count(*) FROM ` + from + ` WHERE ` + w.SQL()
		annals.TraceStatement(ctx, countQ, w.Args)
		if err := db.reader.QueryRowContext(ctx, countQ, w.Args...).Scan(&total); err != nil {
			return nil, 0, ftsErr("count entry search", err)
		}
	}
	return hits, total, nil
}

// runEntrySearch runs an entry search's statement and reads its page and total. Each hit's
// snippet is cut in Go from the entry's searched fields (query.Snippet, as a chat search's and
// PostgreSQL's are) with text's positive terms (its prefixes expanded, one term per word): FTS5's
// snippet() was one more pass over the page's range of the entry index, to find where in 50
// entries the terms are.
func (db *DB) runEntrySearch(ctx context.Context, p *searchPlan, text *annals.TextExpr, q string, args []any) ([]annals.EntryHit, int, error) {
	terms := query.PositiveTerms(text, nil)
	annals.TraceStatement(ctx, q, args)
	rows, err := db.stmts.query(ctx, q, args...)
	if err != nil {
		return nil, 0, ftsErr("search entries", err)
	}
	defer rows.Close()
	hits := []annals.EntryHit{}
	total := 0
	for rows.Next() {
		var h annals.EntryHit
		e, err := scanEntry(suffixScanner{rows: rows, extra: []any{&h.Score, &h.Snippet, &total}})
		if err != nil {
			return nil, 0, storeErr("scan entry hit", err)
		}
		h.Entry, h.Score = e, -h.Score
		if len(terms) > 0 {
			h.Snippet = query.Snippet(p.entryFields(e), terms, query.Fold, p.open, p.shut)
		}
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
