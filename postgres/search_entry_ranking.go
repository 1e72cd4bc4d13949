package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/query"
)

// entryWalkFactor: a chat search on the entry index whose query is a word, a phrase or words
// joined by OR, under an entry-level filter (role:, tool:, after:, before:) or holding a
// phrase, scores the newest entryWalkFactor × docCandidates matching entries in scope rather
// than every match, so its cost stops with them (the SQLite store's walk, issue 33 items 2 and
// 6). At 1M entries `tool:Bash timeout` ranked 130k matching entries and `"the test"` checked
// the phrase's positions in every entry holding both words.
const entryWalkFactor = 4

// entryWalk is how many of the newest matching entries the search scores, 0 for every match.
func (db *DB) entryWalk(p *searchPlan, limit int) int {
	f := p.f
	if f.Text == nil || !p.useEntries || !storecore.IsDisjunction(f.Text) {
		return 0
	}
	if len(p.entryWhere.Conds) == 0 && !hasPhrase(query.PositiveTerms(f.Text, nil)) {
		return 0
	}
	k := docCandidates
	if db.candidates > 0 {
		k = db.candidates
	}
	return entryWalkFactor * max(k, f.Offset+limit)
}

// walkReadsVectors reports whether the walk over the positive terms pos checks each entry's vector
// as it reads it (a phrase, or a field restriction: the index alone cannot decide the match), so
// that it reads entries newest first and stops, rather than taking every match's key from the
// index's bitmap first.
func (p *searchPlan) walkReadsVectors(pos []*annals.TextExpr) bool {
	return hasPhrase(pos) || p.entryW != ""
}

// hasPhrase reports whether a term is more than one token (a phrase, or a word with punctuation
// inside), whose match the entry index checks position by position.
func hasPhrase(terms []*annals.TextExpr) bool {
	for _, t := range terms {
		if len(t.Tokens) > 1 {
			return true
		}
	}
	return false
}

// searchEntryRanking is SearchChats on the entry index: phrases, field filters, entry-level
// filters. With a walk (entryWalk), when the walk was cut short the page is kept if the walk's
// chats filled it (the total is then the walk's chats, a lower bound, and each page chat's
// matching entries are counted apart), else every match is ranked, so a page never misses
// chats the walk did not reach.
func (db *DB) searchEntryRanking(ctx context.Context, p *searchPlan, cw *where, limit int) ([]annals.ChatHit, int, error) {
	walk := db.entryWalk(p, limit)
	r, err := db.walkEntries(ctx, p, cw, limit, walk)
	if err != nil {
		return nil, 0, err
	}
	cut := walk > 0 && r.scanned >= walk
	// An empty page carries no count of the walk (past the end, or nothing in scope): ranked
	// over every match, which counts.
	if walk > 0 && (len(r.hits) == 0 || (cut && len(r.hits) < limit)) {
		annals.SearchReportFrom(ctx).SetPath("entry index (every match)")
		if r, err = db.rankEntries(ctx, p, cw, limit, walkSpan{}); err != nil {
			return nil, 0, err
		}
		cut = false
	}
	if cut {
		// Counting every matching chat would look up each match's chat and filters, most of
		// the cost, only to print a number.
		annals.SearchReportFrom(ctx).SetTotalAtLeast()
	}
	f := p.f
	pos := query.PositiveTerms(f.Text, nil)
	// The walk saw only the newest matching entries of a chat: the page chats' counts are taken
	// again, each within its own chat.
	recount := storecore.MatchCountDiffers(f.Text, len(p.entryWhere.Conds) > 0) || cut
	switch {
	case len(r.hits) == 0:
	case f.OrderOnly:
	case r.rankBody && (f.Snippets > 0 || recount):
		if err := db.pageEntries(ctx, db.pool, p, pos, r.pks, r.hits, recount, false); err != nil {
			return nil, 0, err
		}
	case recount && f.Text == nil:
		if err := db.countFiltered(ctx, p, r.pks, r.hits); err != nil {
			return nil, 0, err
		}
	}
	return storecore.OrderOnly(f, r.hits), r.total, r.skipped.Err()
}

// entryRanking is one run of the entry-index ranking.
type entryRanking struct {
	hits     []annals.ChatHit
	pks      []int64
	total    int
	scanned  int // the matching entries the walk scored (0 without a walk)
	rankBody bool
	skipped  annals.RowSkipper
}

// rankEntries runs the entry-index ranking, scoring the newest walk.n matching entries (0: all)
// within the walk's window (walkSpan).
//
// With text, one scan of each full-text index finds every entry and metadata row that matches
// any term of the query (positive or excluded), flags which terms each row matches and ranks it
// against the positive terms; rows are then folded per chat and the query's boolean expression is
// evaluated over the chat's flags. So a query costs one index scan per vector however many terms
// it has, and the matching rows are read once, for both the match and the rank.
func (db *DB) rankEntries(ctx context.Context, p *searchPlan, cw *where, limit int, walk walkSpan) (*entryRanking, error) {
	f := p.f
	with, args, cond, rankBody, err := p.matchedSQL(walk)
	if err != nil {
		return nil, err
	}
	from := ` FROM chats c JOIN matched m ON m.pk = c.pk WHERE ` + cond + ` AND ` + cw.SQL()

	// Relevance blends the best matching entry, the metadata match (plus a bonus for having
	// one), and the number of matching entries (saturating); recency then multiplies by up to
	// (1 + recencyBonus), decaying with age. The same expression as the SQLite store.
	score := fmt.Sprintf(`((%g * coalesce(m.bbest, 0)::float8 + %g * coalesce(m.mbest, 0)::float8 + (CASE WHEN m.mbest IS NOT NULL THEN %g ELSE 0 END)
			+ %g * coalesce(m.bn, 0)::float8 / (coalesce(m.bn, 0) + 4.0)::float8)
		* (1.0 + %g / (1.0 + greatest(0.0, (?::bigint - c.last_activity)::float8 / 86400e9) / %g)))::float8`,
		rankScale, rankScale, metaMatchBonus, entryCountBonus, recencyBonus, recencyHalfLifeDays)
	order := "score DESC, c.last_activity DESC, c.id"
	if f.Sort == annals.SortRecent {
		order = "c.last_activity DESC, c.id"
	}
	scanned := "0"
	if walk.n > 0 {
		scanned = "(SELECT count(*) FROM eh)"
	}
	// The total comes with the page (a window over every match), so the matches are found once.
	q := with + ` SELECT ` + chatColumns + `, c.pk, ` + score + ` AS score, coalesce(m.bn, 0), count(*) OVER (), ` + scanned + from +
		` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	qargs := append(append(append(append([]any{}, args...), unixNano(db.now())), cw.Args...), limit, f.Offset)
	rows, err := db.tracedQuery(ctx, q, qargs...)
	if err != nil {
		return nil, db.storeErr("search chats", err)
	}
	defer rows.Close()
	r := &entryRanking{hits: []annals.ChatHit{}, rankBody: rankBody}
	for rows.Next() {
		var h annals.ChatHit
		var pk, n, all, seen int64
		c, err := scanChat(rows, &pk, &h.Score, &n, &all, &seen)
		r.scanned = int(seen)
		if re, ok := err.(*rowError); ok {
			r.skipped.Skip(re.id, re.err) // the rest of the page is served
			r.total = int(all)
			continue
		}
		if err != nil {
			return nil, db.storeErr("scan search hit", err)
		}
		h.Chat, h.Matches, r.total = c, int(n), int(all)
		r.hits = append(r.hits, h)
		r.pks = append(r.pks, pk)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("search chats", err)
	}
	rows.Close()
	if len(r.hits) == 0 && f.Offset > 0 && !walk.windowed {
		// A page past the end carries no window total: count apart. (A pk window's empty page
		// is asked again over the whole table, walkEntries, which counts.)
		cargs := append(append([]any{}, args...), cw.Args...)
		if err := db.tracedQueryRow(ctx, with+` SELECT count(*)`+from, cargs...).Scan(&r.total); err != nil {
			return nil, db.storeErr("count search", err)
		}
	}
	return r, nil
}

// matchedSQL builds the WITH clause whose CTE matched holds, per matching chat, its best entry
// rank bbest, its matching entries bn, its metadata rank mbest and the flags t0.. of the terms
// it holds; cond is the query's boolean expression over those flags. With walk.n > 0 the entries
// are the newest walk.n matches (eh, in the order stored) within the walk's window.
func (p *searchPlan) matchedSQL(walk walkSpan) (with string, args []any, cond string, rankBody bool, err error) {
	f := p.f
	pos := query.PositiveTerms(f.Text, nil)
	cond = "true"
	switch {
	case f.Text != nil:
		var q chatQuery
		if cond, err = p.compileChat(f.Text, &q); err != nil {
			return "", nil, "", false, err
		}
		rankBody = p.useEntries && len(pos) > 0
		flags := func(col string, terms []string) string {
			var b strings.Builder
			for i, t := range terms {
				b.WriteString(", " + col + " @@ ?::tsquery AS t" + itoa(int64(i)))
				args = append(args, t)
			}
			return b.String()
		}
		anyOf := func(terms []string) string { return "(" + strings.Join(terms, ") | (") + ")" }
		var parts []string
		if p.useEntries {
			cte, cargs := p.entryMatchesSQL(pos, q.entryTerms, walk)
			parts, args = append(parts, cte), append(args, cargs...)
		} else {
			parts = append(parts, `eagg AS (SELECT NULL::bigint AS pk, NULL::real AS best, NULL::bigint AS n`+nullFlags(len(q.entryTerms))+` WHERE false)`)
		}
		if p.useMeta {
			posQ := tsAny(pos, p.metaW)
			sel := `SELECT x.chat_pk AS pk, CASE WHEN x.meta_tsv @@ ?::tsquery THEN ts_rank(` + metaRankWeights + `, x.meta_tsv, ?::tsquery, ` + itoa(rankNorm) + `) END AS best`
			args = append(args, posQ, posQ)
			sel += flags("x.meta_tsv", q.metaTerms)
			w := &where{}
			w.Add("x.meta_tsv @@ ?::tsquery", anyOf(q.metaTerms))
			w.addTenant("x", f.Chat.Owner)
			args = append(args, w.Args...)
			parts = append(parts, `magg AS MATERIALIZED (`+sel+` FROM chat_meta x WHERE `+w.SQL()+`)`)
		} else {
			parts = append(parts, `magg AS (SELECT NULL::bigint AS pk, NULL::real AS best`+nullFlags(len(q.metaTerms))+` WHERE false)`)
		}
		var merged strings.Builder
		for i := range q.entryTerms {
			fmt.Fprintf(&merged, ", coalesce(a.t%d, false) OR coalesce(b.t%d, false) AS t%d", i, i, i)
		}
		parts = append(parts, `matched AS (SELECT coalesce(a.pk, b.pk) AS pk, a.best AS bbest, a.n AS bn, b.best AS mbest`+merged.String()+`
			FROM eagg a FULL JOIN magg b ON b.pk = a.pk)`)
		with = "WITH " + strings.Join(parts, ", ")
	case len(p.entryWhere.Conds) > 0:
		w := &where{}
		w.addTenant("e", f.Chat.Owner)
		w.Conds = append(w.Conds, p.entryWhere.Conds...)
		w.Args = append(w.Args, p.entryWhere.Args...)
		with = `WITH matched AS (SELECT DISTINCT e.chat_pk AS pk, NULL::real AS bbest, NULL::bigint AS bn, NULL::real AS mbest FROM entries e WHERE ` + w.SQL() + `)`
		args = append(args, w.Args...)
	default:
		with = `WITH matched AS (SELECT c.pk, NULL::real AS bbest, NULL::bigint AS bn, NULL::real AS mbest FROM chats c)`
	}
	return with, args, cond, rankBody, nil
}

// entryMatchesSQL is matchedSQL's CTEs of matching entries: eh, each matching entry's chat, rank
// and term flags, and eagg, folded per chat. With walk.n > 0, eh holds the newest walk.n matches
// within the walk's window.
func (p *searchPlan) entryMatchesSQL(pos []*annals.TextExpr, terms []string, walk walkSpan) (string, []any) {
	posQ := tsAny(pos, p.entryW)
	sel := `SELECT e.chat_pk AS pk, CASE WHEN e.tsv @@ ?::tsquery THEN ts_rank(` + entryRankWeights + `, e.tsv, ?::tsquery, ` + itoa(rankNorm) + `) END AS r`
	args := []any{posQ, posQ}
	for i, t := range terms {
		sel += ", e.tsv @@ ?::tsquery AS t" + itoa(int64(i))
		args = append(args, t)
	}
	w := &where{}
	w.Add("e.tsv @@ ?::tsquery", "("+strings.Join(terms, ") | (")+")")
	w.addTenant("e", p.f.Chat.Owner)
	if walk.windowed {
		// Beside the tenant, so that a member's walk is one range of entries_by_tenant.
		w.Add("e.pk > ?", walk.above)
	}
	w.Conds = append(w.Conds, p.entryWhere.Conds...)
	w.Args = append(w.Args, p.entryWhere.Args...)
	args = append(args, w.Args...)
	// The walk takes the newest stored first, as SQLite's walk by rowid: the entries of a chat
	// lie together in the table in that order, where a walk by entry time reads a different page
	// for every entry (4,000 phrase matches at 1M: 119k entries walked, 2.3 s by time under load).
	from := ` FROM entries e WHERE ` + w.SQL()
	switch {
	case walk.n > 0 && p.walkReadsVectors(pos):
		// A phrase or a field restriction is checked on the vector as the walk reads it:
		// ranked in the same pass (reading it twice cost more).
		from += ` ORDER BY e.pk DESC LIMIT ?`
		args = append(args, walk.n)
	case walk.n > 0:
		// Words: the index decides the match without the vector, so the walk takes keys only,
		// and only the entries it kept are ranked and flagged, not every match its sort took
		// in (13k entries for `tool:Bash timeout` at 100k, to keep 4,000).
		from = ` FROM (SELECT e.pk FROM entries e WHERE ` + w.SQL() + ` ORDER BY e.pk DESC LIMIT ?) k JOIN entries e ON e.pk = k.pk`
		args = append(args, walk.n)
	}
	return `eh AS MATERIALIZED (` + sel + from + `),
		eagg AS (SELECT pk, max(r) AS best, count(r) AS n` + aggFlags(len(terms)) + ` FROM eh GROUP BY pk)`, args
}
