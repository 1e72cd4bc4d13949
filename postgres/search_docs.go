package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// Chat search over the chat documents (migration 0006): rank chats, not entries, reading no
// vector at all.
//
//  1. hits: one GIN bitmap scan of chat_docs per query term (ANDed with the caller's owner
//     lexemes) and one per term and frequency marker, plus the metadata index per term. A
//     bitmap scan of a plain lexeme needs no recheck, so it returns chat keys without reading
//     a document: the cost is the index's posting lists, not the matching rows' text.
//  2. fold per chat: which terms it has (the query's AND / OR / NOT over them) and, per
//     positive term, the highest frequency marker: the chats that match, and how many (the
//     total).
//  3. the newest docCandidates of them (chats_search, an index-only scan) are scored: BM25 over
//     the bucketed term frequencies and the chat's entry count, the metadata's ts_rank, recency.
//  4. the page's chats only: their chat rows, and from the entry index their matching entries
//     (the match count and the snippets).
//
// Sort recent needs no candidates beyond the page. Phrases, field filters and entry-level
// filters go to the entry index (SearchChats): a document keeps no positions and no fields.

// docCandidates is how many of the newest matching chats relevance ranks, as in the SQLite
// store.
const docCandidates = 1000

// perChatEntriesAbove is the number of matching chats above which the page's matching entries
// are found by reading the page chats' entries rather than the entry index: the index's posting
// lists then hold ~100k entries at 1M (0.1-0.2 s to read), the page's chats a few thousand.
const perChatEntriesAbove = 200

// BM25's constants, FTS5's defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// tfMarkers are the term-frequency markers migration 0006 writes: ' 2word' for a word that
// occurs at least twice in the document, and so on.
var tfMarkers = []int{2, 4, 8, 16}

// docLeaf is one leaf term of the query, in compileChat's numbering.
type docLeaf struct {
	term    *annals.TextExpr
	negated bool
	// prefix is the prefix term an expansion (term, an OR of words) stands for, else nil.
	prefix *annals.TextExpr
}

func (p *searchPlan) docLeaves(e *annals.TextExpr, negated bool, out []docLeaf) []docLeaf {
	if p.leaf(e) {
		return append(out, docLeaf{term: e, negated: negated, prefix: p.expanded[e]})
	}
	if e.Op == annals.TextNot {
		negated = true
	}
	for _, it := range e.Items {
		out = p.docLeaves(it, negated, out)
	}
	return out
}

// words are the terms a leaf stands for: itself, or the words of a prefix's expansion.
func (l docLeaf) words() []*annals.TextExpr {
	if l.term.Op == annals.TextTerm {
		return []*annals.TextExpr{l.term}
	}
	return l.term.Items
}

// useChatDocs reports whether a search can run on the chat documents: words, every one a
// single token (a phrase needs positions), no field restriction and no entry-level filter.
func (p *searchPlan) useChatDocs() bool {
	if p.f.Text == nil || len(p.f.Fields) > 0 || len(p.entryWhere.Conds) > 0 || len(query.PositiveTerms(p.f.Text, nil)) == 0 {
		return false
	}
	for _, l := range p.docLeaves(p.f.Text, false, nil) {
		for _, w := range l.words() {
			if len(w.Tokens) != 1 {
				return false
			}
		}
	}
	return true
}

// ownerLexemes is the tsquery that narrows chat_docs to the owner's documents ("" for every
// tenant): the lexemes migration 0006 writes.
func ownerLexemes(o annals.Owner) string {
	if o.AllTenants {
		return ""
	}
	tok := func(prefix, v string) string {
		sum := sha256.Sum256([]byte(v))
		return " & ' " + prefix + hex.EncodeToString(sum[:]) + "'"
	}
	s := tok("t", o.TenantID)
	if o.UserID != "" {
		s += tok("u", o.UserID)
	}
	if o.AgentID != "" {
		s += tok("a", o.AgentID)
	}
	return s
}

// markerQuery is the tsquery of a leaf's frequency marker. An expansion's is its prefix's
// (' 2re':*, one merged posting stream, where the OR of 64 words' markers walks 64 of them for
// each of the four markers): its frequency is then the highest among every word of the prefix,
// not only the searched ones, an approximation of the ranking only, not of what matches.
func markerQuery(l docLeaf, n int) string {
	words := l.words()
	if l.prefix != nil {
		words = []*annals.TextExpr{{Op: annals.TextTerm, Tokens: l.prefix.Tokens[len(l.prefix.Tokens)-1:], Prefix: true}}
	}
	var b strings.Builder
	for i, t := range words {
		if i > 0 {
			b.WriteString(" | ")
		}
		tsLexeme(&b, " "+itoa(int64(n))+lexeme(t.Tokens[0]))
		if t.Prefix {
			b.WriteString(":*")
		}
	}
	return b.String()
}

// docHits builds step 1 and 2: the hits CTE and the per-chat fold m (pk, t0.., f0.., meta).
func (p *searchPlan) docHits(q *chatQuery, leaves []docLeaf, args *[]any) string {
	owner := ownerLexemes(p.f.Chat.Owner)
	var parts []string
	scan := func(i, bucket int, tsq string) {
		parts = append(parts, fmt.Sprintf(`SELECT chat_pk, %d, %d FROM chat_docs WHERE tsv @@ ?::tsquery`, i, bucket))
		*args = append(*args, "("+tsq+")"+owner)
	}
	for i := range leaves {
		scan(i, 1, q.entryTerms[i])
	}
	if p.useMeta {
		for i := range leaves {
			w := &where{}
			w.Add("meta_tsv @@ ?::tsquery", q.metaTerms[i])
			w.addTenant("chat_meta", p.f.Chat.Owner)
			parts = append(parts, fmt.Sprintf(`SELECT chat_pk, %d, 0 FROM chat_meta WHERE `, i)+w.SQL())
			*args = append(*args, w.Args...)
		}
	}
	var fold strings.Builder
	for i, l := range leaves {
		fmt.Fprintf(&fold, ", bool_or(t = %d) AS t%d", i, i)
		if !l.negated {
			fmt.Fprintf(&fold, ", bool_or(t = %d AND b = 1) AS f%d", i, i)
		}
	}
	return `hits(pk, t, b) AS MATERIALIZED (` + strings.Join(parts, " UNION ALL ") + `),
		m AS (SELECT pk` + fold.String() + `, bool_or(b = 0) AS meta FROM hits GROUP BY pk)`
}

// docMarkers is tf, the frequency markers of the matches: one GIN scan per positive term and
// marker, its rows cut to the candidates' key range first (the newest chats are mostly the
// latest created, so this drops most markers of a common word at no cost; at 1M entries 28k
// rows went into the grouping before). They are kept to the candidates exactly by
// docFeatures's grouping, not by a semi-join:
// the planner has no statistics for chat documents (ANALYZE skips values over 1 KB, and a chat's
// tsvector is larger), so it estimates one row for every step and a semi-join or a join with
// the candidates became a nested loop over them (a member's common-term search at 100k entries:
// 345 ms, most of it rescanning 1,000 candidates per row).
func (p *searchPlan) docMarkers(leaves []docLeaf, args *[]any) string {
	owner := ownerLexemes(p.f.Chat.Owner)
	var parts []string
	for i, l := range leaves {
		if l.negated {
			continue
		}
		for _, n := range tfMarkers {
			parts = append(parts, fmt.Sprintf(`SELECT chat_pk, %d, %d FROM chat_docs WHERE tsv @@ ?::tsquery
				AND chat_pk + 0 BETWEEN (SELECT min(pk) FROM cand) AND (SELECT max(pk) FROM cand)`, i, n))
			*args = append(*args, "("+markerQuery(l, n)+")"+owner)
		}
	}
	if len(parts) == 0 {
		return `tf(pk, t, b) AS MATERIALIZED (SELECT NULL::bigint, NULL::int, NULL::int WHERE false)`
	}
	return `tf(pk, t, b) AS MATERIALIZED (` + strings.Join(parts, " UNION ALL ") + `)`
}

// docFeatures is feat, one row per candidate with what its score needs: its chat's activity, id
// and entry count and its flags (from cand), its highest marker per positive term g0.. (from
// tf) and its metadata rank mr (of the candidates whose metadata matched). The three are put
// together by grouping their union by chat, which costs the same whatever the planner believes
// about their sizes (see docMarkers); with useMeta the metadata query is an argument.
func (p *searchPlan) docFeatures(leaves []docLeaf, metaQuery string, args *[]any) string {
	candCols, markCols, metaCols, agg := []string{}, []string{}, []string{}, []string{}
	for i, l := range leaves {
		if l.negated {
			continue
		}
		candCols = append(candCols, fmt.Sprintf("f%[1]d, NULL::int AS g%[1]d", i))
		markCols = append(markCols, fmt.Sprintf("NULL, CASE WHEN t = %d THEN b END", i))
		metaCols = append(metaCols, "NULL, NULL")
		agg = append(agg, fmt.Sprintf("bool_or(f%[1]d) AS f%[1]d, max(g%[1]d) AS g%[1]d", i))
	}
	union := `SELECT pk, true AS c, last_activity, id, entry_count, meta, ` + strings.Join(candCols, ", ") + `, NULL::real AS mr FROM cand
		UNION ALL SELECT pk, false, NULL, NULL, NULL, NULL, ` + strings.Join(markCols, ", ") + `, NULL FROM tf`
	if p.useMeta {
		union += `
		UNION ALL SELECT r.pk, false, NULL, NULL, NULL, NULL, ` + strings.Join(metaCols, ", ") + `,
			ts_rank(` + metaRankWeights + `, x.meta_tsv, ?::tsquery, ` + itoa(rankNorm) + `) FROM cand r JOIN chat_meta x ON x.chat_pk = r.pk WHERE r.meta`
		*args = append(*args, metaQuery)
	}
	return `feat AS MATERIALIZED (SELECT pk, max(last_activity) AS last_activity, max(id) AS id, max(entry_count) AS entry_count,
		bool_or(meta) AS meta, ` + strings.Join(agg, ", ") + `, max(mr) AS mr FROM (` + union + `) u GROUP BY pk HAVING bool_or(c))`
}

// docScore is step 3's score over the features alias r (docFeatures): BM25 of the positive
// terms (the frequency is the marker's lower bound, the length the chat's entry count), the
// metadata rank r.mr with its bonus, and the recency blend of the entry-level ranking.
func docScore(leaves []docLeaf) string {
	var bm []string
	for i, l := range leaves {
		if l.negated {
			continue
		}
		bm = append(bm, fmt.Sprintf(`coalesce(ln(1.0::float8 + (s.n - s.d%[1]d + 0.5::float8) / (s.d%[1]d + 0.5::float8)) * (CASE WHEN r.f%[1]d THEN coalesce(r.g%[1]d, 1) END)::float8 * %[2]g::float8
			/ ((CASE WHEN r.f%[1]d THEN coalesce(r.g%[1]d, 1) END)::float8 + %[3]g::float8 * (%[4]g::float8 + %[5]g::float8 * r.entry_count::float8 / s.len)), 0::float8)`, i, bm25K1+1, bm25K1, 1-bm25B, bm25B))
	}
	return fmt.Sprintf(`((%s + %g::float8 * coalesce(r.mr, 0)::float8 + (CASE WHEN r.meta THEN %g::float8 ELSE 0::float8 END))
		* (1.0::float8 + %g::float8 / (1.0::float8 + greatest(0.0::float8, (?::bigint - r.last_activity)::float8 / 86400e9::float8) / %g::float8)))`,
		strings.Join(bm, " + "), rankScale, metaMatchBonus, recencyBonus, recencyHalfLifeDays)
}

// docStats is the document frequency of each positive term among the matches, and the number
// of documents (at least the matches: the planner's count lags behind a fresh load).
func docStats(leaves []docLeaf) string {
	var b strings.Builder
	for i, l := range leaves {
		if !l.negated {
			fmt.Fprintf(&b, ", (count(*) FILTER (WHERE f%d))::float8 AS d%d", i, i)
		}
	}
	return `s AS MATERIALIZED (SELECT greatest(count(*)::float8, (SELECT reltuples::float8 FROM pg_class WHERE oid = 'chat_docs'::regclass)) AS n,
		(SELECT greatest(avg(entry_count)::float8, 1) FROM cand) AS len` + b.String() + ` FROM f)`
}

// searchChatDocs is SearchChats on the chat documents, in one read-only transaction.
func (db *DB) searchChatDocs(ctx context.Context, p *searchPlan, limit int) ([]annals.ChatHit, int, error) {
	f := p.f
	if !f.Chat.Owner.AllTenants && f.Chat.Owner.TenantID == "" {
		// The zero owner matches nothing; said here, because the owner lexemes are not SQL.
		return []annals.ChatHit{}, 0, nil
	}
	var q chatQuery
	cond, err := p.compileChat(f.Text, &q)
	if err != nil {
		return nil, 0, err
	}
	cw, err := chatWhere(f.Chat)
	if err != nil {
		return nil, 0, err
	}
	leaves := p.docLeaves(f.Text, false, nil)
	var args []any
	with := []string{p.docHits(&q, leaves, &args)}
	// The owner is in the index (its tenant, and its user and agent when set); the chat rows are
	// read here only when the filter asks for more than the owner and the archived state.
	fw := &where{}
	fw.Add("c.archived_at IS NULL")
	if !ownerOnly(f.Chat) {
		fw = cw
	}
	with = append(with, `f AS MATERIALIZED (SELECT m.*, c.last_activity, c.id, c.entry_count FROM m JOIN chats c ON c.pk = m.pk
		WHERE `+cond+` AND `+fw.SQL()+`)`)
	args = append(args, fw.Args...)
	countArgs := args
	k := max(docCandidates, f.Offset+limit)
	order := "score DESC, r.last_activity DESC, r.id"
	if f.Sort == annals.SortRecent {
		k = f.Offset + limit
		order = "r.last_activity DESC, r.id"
	}
	with = append(with, `cand AS MATERIALIZED (SELECT * FROM f ORDER BY last_activity DESC, id LIMIT ?)`)
	args = append(args, k)
	metaQuery := ""
	if p.useMeta {
		metaQuery = tsAny(query.PositiveTerms(f.Text, nil), p.metaW)
	}
	with = append(with, p.docMarkers(leaves, &args), p.docFeatures(leaves, metaQuery, &args), docStats(leaves))
	args = append(args, unixNano(db.now()))
	with = append(with, `page AS MATERIALIZED (SELECT r.pk, r.last_activity, r.id, `+docScore(leaves)+` AS score
		FROM feat r CROSS JOIN s ORDER BY `+order+` LIMIT ? OFFSET ?)`)
	args = append(args, limit, f.Offset)
	sql := `WITH ` + strings.Join(with, ",\n") + `
		SELECT ` + chatColumns + `, c.pk, r.score, (SELECT count(*) FROM f) FROM page r JOIN chats c ON c.pk = r.pk
		WHERE ` + cw.SQL() + ` ORDER BY ` + strings.ReplaceAll(order, "score", "r.score")
	args = append(args, cw.Args...)
	var hits []annals.ChatHit
	var total int
	var skipped annals.RowSkipper
	err = db.searchTx(ctx, func(tx pgx.Tx) error {
		var pks []int64
		hits, pks, total, err = db.scanDocPage(ctx, tx, sql, args, &skipped)
		if err != nil || !p.useEntries || len(hits) == 0 || f.OrderOnly {
			return err
		}
		return db.pageEntries(ctx, tx, p, query.PositiveTerms(f.Text, nil), pks, hits, true, total > perChatEntriesAbove)
	})
	if err != nil {
		return nil, 0, err
	}
	if len(hits) == 0 && f.Offset > 0 {
		// A page past the end carries no total: count apart.
		if err := db.searchTx(ctx, func(tx pgx.Tx) error {
			cq := `WITH ` + strings.Join(with[:2], ",\n") + ` SELECT count(*) FROM f`
			return db.traced(ctx, tx, cq, countArgs).Scan(&total)
		}); err != nil {
			return nil, 0, err
		}
	}
	return hits, total, skipped.Err()
}

// ownerOnly reports whether a chat filter asks for nothing but an owner (a tenant, or every
// tenant) and unarchived chats: what the chat documents and chats_search answer without the
// chat rows.
func ownerOnly(cf annals.ChatFilter) bool {
	if cf.IncludeArchived || cf.Owner.UserID != "" || cf.Owner.AgentID != "" {
		return false
	}
	rest := cf
	rest.Owner, rest.IncludeArchived = annals.Owner{AllTenants: true}, true
	w, err := chatWhere(rest)
	return err == nil && len(w.Conds) == 0
}

// scanDocPage runs the page query and reads its chats.
func (db *DB) scanDocPage(ctx context.Context, tx pgx.Tx, sql string, args []any, skipped *annals.RowSkipper) ([]annals.ChatHit, []int64, int, error) {
	rows, err := db.tracedRows(ctx, tx, sql, args)
	if err != nil {
		return nil, nil, 0, db.storeErr("search chats", err)
	}
	defer rows.Close()
	hits := []annals.ChatHit{}
	var pks []int64
	total := 0
	for rows.Next() {
		var h annals.ChatHit
		var pk, all int64
		c, err := scanChat(rows, &pk, &h.Score, &all)
		total = int(all)
		if re, ok := err.(*rowError); ok {
			skipped.Skip(re.id, re.err) // the rest of the page is served
			continue
		}
		if err != nil {
			return nil, nil, 0, db.storeErr("scan search hit", err)
		}
		h.Chat = c
		hits = append(hits, h)
		pks = append(pks, pk)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, 0, db.storeErr("search chats", err)
	}
	return hits, pks, total, nil
}

// searchTx runs fn in a read-only transaction that keeps the planner off sequential scans of
// chat_docs: the table is small in pages (the vectors live in TOAST), so a sequential scan
// looks cheap, but it reads and matches every vector (~0.1 ms each) where the GIN index reads
// none. Nor does it start parallel workers: the scans return keys only, and starting workers
// cost more than the whole query (8-40 ms on a loaded machine).
func (db *DB) searchTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	// The transaction's own statements are traced too, so a replay in psql runs with the same
	// settings.
	annals.TraceStatement(ctx, "BEGIN READ ONLY", nil)
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return db.storeErr("search", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// set_config(..., true) is SET LOCAL, as one statement any client can replay.
	const settings = `SELECT set_config('enable_seqscan', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)`
	annals.TraceStatement(ctx, settings, nil)
	if _, err := tx.Exec(ctx, settings); err != nil {
		return db.storeErr("search", err)
	}
	if err := fn(tx); err != nil {
		return err
	}
	annals.TraceStatement(ctx, "COMMIT", nil)
	if err := tx.Commit(ctx); err != nil {
		return db.storeErr("search", err)
	}
	return nil
}

// tracedRows numbers q's placeholders, reports it to the context's trace and runs it in tx.
func (db *DB) tracedRows(ctx context.Context, tx pgx.Tx, q string, args []any) (pgx.Rows, error) {
	q = rebind(q)
	annals.TraceStatement(ctx, q, args)
	return tx.Query(ctx, q, args...)
}

// traced is tracedRows for a statement of one row.
func (db *DB) traced(ctx context.Context, tx pgx.Tx, q string, args []any) pgx.Row {
	q = rebind(q)
	annals.TraceStatement(ctx, q, args)
	return tx.QueryRow(ctx, q, args...)
}
