package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/query"
)

// The entry-level chat ranking: what SearchChats runs when the chat documents cannot answer
// (entry-level filters, no words, an index not built yet).
//
// It is one statement, shaped so that its cost does not hinge on the planner of one SQLite
// release and so that the matches of the query are scanned as few times as possible:
//   - scored: every match (entry or chat metadata) with its bm25 score, in one pass over the
//     full-text index (for AND and exclusions, after a first pass that finds the matching set);
//   - ranked: per chat, the best entry score, the number of matching entries, the metadata
//     score; page: the requested page of chats, with the total as a window count, so the
//     total costs no second run of the query;
//   - top: the best entries of each chat of the page, taken from scored, read by pk; their
//     snippets are cut in Go (query.Snippet), not by FTS5's snippet() in one more pass over
//     the page's range of the entry index.
//
// Every common table expression is MATERIALIZED: SQLite 3.54 otherwise re-runs a metadata
// full-text match per candidate chat, a hundredfold slowdown on common terms.

// entryRanking is the built statement, and the count to run when the page comes back empty.
type entryRanking struct {
	q         string
	args      []any
	countQ    string
	countArgs []any
	offset    int
	walk      int // the entries walked, 0 for every match
	// snippet cuts a snippet from an entry's searched fields (query.Snippet with the query's
	// positive terms and the plan's marks).
	snippet func(fields []string) string
}

// rankingCTEs are the common table expressions up to ranked, with their arguments.
type rankingCTEs struct {
	with     []string
	args     []any
	bodyAny  string // the entry MATCH of any positive term ("" when entries are not ranked)
	rankBody bool
	scored   bool // there is a scored CTE (the query has words to rank)
}

// entryRanking builds the statement for the page of limit chats; now is the clock in unix
// nanoseconds, for the recency bonus.
//
// walk > 0 scores only the walk newest matching entries in scope (see searchEntryRanking);
// spans, when set, are the small owner's chats' ranges the walk reads (ownerSpans).
func (p *searchPlan) entryRanking(cw *where, limit int, now float64, walk int, spans string) (*entryRanking, error) {
	f := p.f
	r, err := p.rankedCTEs(cw, walk, spans)
	if err != nil {
		return nil, err
	}
	from := ` FROM ranked r JOIN chats c ON c.pk = r.pk WHERE ` + cw.SQL()
	out := &entryRanking{countQ: "WITH " + strings.Join(r.with, ", ") + " SELECT count(*)" + from,
		countArgs: append(append([]any{}, r.args...), cw.Args...)}
	// Relevance: bm25 is negative, lower is better, so negate. bm25's idf vanishes for a term
	// found in more than half the documents, so two structural terms keep ranking meaningful
	// there too: a metadata match, and the number of matching entries (saturating). Recency
	// then multiplies by up to (1 + recencyBonus), decaying with age.
	score := fmt.Sprintf(`((coalesce(-r.bb, 0) + coalesce(-r.mb, 0) + (r.mb IS NOT NULL) * %g + %g * r.bn / (r.bn + 4.0))
		* (1.0 + %g / (1.0 + max(0.0, (? - c.last_activity) / 86400e9) / %g)))`, metaMatchBonus, entryCountBonus, recencyBonus, recencyHalfLifeDays)
	order := "score DESC, c.last_activity DESC, c.id"
	if f.Sort == annals.SortRecent {
		order = "c.last_activity DESC, c.id"
	}
	// The page is chosen on narrow rows; only its chats are read whole. scanned is how many
	// matches were scored (what a walk's cap is checked against).
	scanned := "0"
	if r.scored {
		scanned = "(SELECT count(*) FROM scored)"
	}
	with := append(r.with, `page AS MATERIALIZED (SELECT c.pk AS pk, `+score+` AS score, r.bn AS bn, count(*) OVER () AS total, `+scanned+` AS scanned`+
		from+` ORDER BY `+order+` LIMIT ? OFFSET ?)`)
	args := append(append(append(r.args, now), cw.Args...), limit, f.Offset)
	snippets := min(f.Snippets, maxSnippets)
	if !r.rankBody {
		snippets = 0
	}
	cols, joins, rowOrder := `, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL`, ``, strings.ReplaceAll(order, "score", "p.score")
	if snippets > 0 {
		with = append(with, `top AS MATERIALIZED (SELECT epk, pk, r FROM (SELECT s.epk AS epk, s.pk AS pk, s.bb AS r,
				row_number() OVER (PARTITION BY s.pk ORDER BY s.bb, s.epk) AS n
				FROM scored s WHERE s.epk IS NOT NULL AND s.pk IN (SELECT pk FROM page)) WHERE n <= ?)`)
		args = append(args, snippets)
		// The snippets are cut in Go from the entries' fields (runEntryRanking), not by FTS5's
		// snippet(), one more pass over the page's range of the entry index.
		cols = `, e.seq, e.kind, e.tool_name, ` + strings.Join(p.snippetCols(), ", ")
		joins = ` LEFT JOIN top t ON t.pk = p.pk LEFT JOIN entries e ON e.pk = t.epk`
		rowOrder += ", t.r, t.epk"
	}
	out.q = "WITH " + strings.Join(with, ", ") + ` SELECT ` + chatColumns + `, c.pk, p.score, p.bn, p.total, p.scanned` + cols +
		` FROM page p JOIN chats c ON c.pk = p.pk` + joins + ` ORDER BY ` + rowOrder
	out.args, out.offset, out.walk = args, f.Offset, walk
	terms := query.PositiveTerms(f.Text, nil)
	out.snippet = func(fields []string) string { return query.Snippet(fields, terms, query.Fold, p.open, p.shut) }
	return out, nil
}

// rankedCTEs builds matched (the chats the query holds in, when that takes a pass of its own),
// scored and ranked.
func (p *searchPlan) rankedCTEs(cw *where, walk int, spans string) (*rankingCTEs, error) {
	f := p.f
	r := &rankingCTEs{}
	pos := query.PositiveTerms(f.Text, nil)
	r.rankBody = p.useEntries && len(pos) > 0
	rankMeta := p.useMeta && len(pos) > 0
	// A query of one term, or of terms joined by OR, matches exactly the chats that hold one of
	// its terms somewhere: the scoring pass finds them all, so the matching set needs no pass
	// of its own. Anything with AND or an exclusion computes the set first, then scores only
	// its chats.
	restrict := false
	switch {
	case f.Text != nil && storecore.IsDisjunction(f.Text):
	case f.Text != nil:
		set, setArgs, err := p.chatSet(f.Text)
		if err != nil {
			return nil, err
		}
		r.with, r.args, restrict = append(r.with, "matched(pk) AS MATERIALIZED ("+set+")"), append(r.args, setArgs...), true
	case len(p.entryWhere.Conds) > 0:
		r.with = append(r.with, "matched(pk) AS MATERIALIZED (SELECT DISTINCT e.chat_pk FROM "+p.filtered()+" WHERE "+p.entryWhere.SQL()+")")
		r.args = append(r.args, p.entryWhere.Args...)
	default:
		r.with = append(r.with, "matched(pk) AS MATERIALIZED (SELECT pk FROM chats)")
	}
	var arms []string
	if r.rankBody {
		var err error
		if r.bodyAny, err = ftsCompile(anyOf(pos), p.entryCols); err != nil {
			return nil, err
		}
		arm, err := "", error(nil)
		if walk > 0 && spans != "" {
			arm, err = p.rangeWalk(r, cw, spans, walk)
		} else {
			arm, err = p.entryArm(r, cw, walk, restrict)
		}
		if err != nil {
			return nil, err
		}
		arms = append(arms, arm)
	}
	if rankMeta {
		metaAny, err := ftsCompile(anyOf(pos), p.metaCols)
		if err != nil {
			return nil, err
		}
		arm := `SELECT NULL AS epk, rowid AS pk, NULL AS bb, 0 AS bn, bm25(chats_fts, ` + metaWeights + `) AS mb FROM chats_fts WHERE chats_fts MATCH ?`
		r.args = append(r.args, metaAny)
		if restrict {
			arm += " AND rowid IN (SELECT pk FROM matched)"
		}
		arms = append(arms, arm)
	}
	switch {
	case len(arms) > 0:
		r.scored = true
		r.with = append(r.with, `scored(epk, pk, bb, bn, mb) AS MATERIALIZED (`+strings.Join(arms, " UNION ALL ")+`)`,
			`ranked(pk, bb, bn, mb) AS MATERIALIZED (SELECT pk, min(bb), sum(bn), min(mb) FROM scored GROUP BY pk)`)
	case f.Text != nil:
		// The fields leave nothing to match (entry filters with metadata fields only).
		r.with = append(r.with, "ranked(pk, bb, bn, mb) AS MATERIALIZED (SELECT NULL, NULL, 0, NULL WHERE 0)")
	default:
		r.with = append(r.with, "ranked(pk, bb, bn, mb) AS MATERIALIZED (SELECT pk, NULL, 0, NULL FROM matched)")
	}
	return r, nil
}

// entryArm is scored's arm of the matching entries with their bm25: every match (restricted to
// the matched chats when restrict), or with walk > 0 the newest walk of them in scope.
func (p *searchPlan) entryArm(r *rankingCTEs, cw *where, walk int, restrict bool) (string, error) {
	from := `entries_fts JOIN ` + p.filtered() + ` ON e.pk = entries_fts.rowid WHERE`
	if walk > 0 {
		from = `entries_fts CROSS JOIN ` + p.filtered() + ` CROSS JOIN chats c WHERE e.pk = entries_fts.rowid AND c.pk = e.chat_pk AND`
	}
	match := p.narrowScored(r.bodyAny)
	score, scoreArgs, err := p.rank(entriesRank, match, entryWeights)
	if err != nil {
		return "", err
	}
	arm := `SELECT e.pk AS epk, e.chat_pk AS pk, ` + score + ` AS bb, 1 AS bn, NULL AS mb
		FROM ` + from + ` entries_fts MATCH ?`
	r.args = append(append(r.args, scoreArgs...), match)
	if len(p.entryWhere.Conds) > 0 {
		arm += " AND " + p.entryWhere.SQL()
		r.args = append(r.args, p.entryWhere.Args...)
	}
	if restrict {
		arm += " AND e.chat_pk IN (SELECT pk FROM matched)"
	}
	if walk > 0 {
		// The walk: newest first through the chat filters, bm25 for the rows it returns.
		arm = `SELECT * FROM (` + arm + ` AND ` + cw.SQL() + ` ORDER BY entries_fts.rowid DESC LIMIT ?)`
		r.args = append(append(r.args, cw.Args...), walk)
	}
	return arm, nil
}

// runEntryRanking runs the statement and reads the page: a chat comes once per snippet, in page
// order. A chat that cannot be read is skipped and the rest of the page served.
func (db *DB) runEntryRanking(ctx context.Context, r *entryRanking) ([]annals.ChatHit, int, int, error) {
	annals.TraceStatement(ctx, r.q, r.args)
	rows, err := db.stmts.query(ctx, r.q, r.args...)
	if err != nil {
		return nil, 0, 0, ftsErr("search chats", err)
	}
	defer rows.Close()
	hits := []annals.ChatHit{}
	total, scanned := 0, 0
	lastPK := int64(-1)
	var skipped annals.RowSkipper
	for rows.Next() {
		var h annals.ChatHit
		var pk int64
		var seq sql.NullInt64
		var kind, tool sql.NullString
		var fields [5]sql.NullString // snippetCols
		c, err := scanChat(suffixScanner{rows: rows, extra: []any{&pk, &h.Score, &h.Matches, &total, &scanned, &seq, &kind, &tool,
			&fields[0], &fields[1], &fields[2], &fields[3], &fields[4]}})
		if re, ok := err.(*rowError); ok {
			skipped.Skip(re.id, re.err)
			continue
		}
		if err != nil {
			return nil, 0, 0, storeErr("scan search hit", err)
		}
		if pk != lastPK { // its first row starts its hit
			h.Chat = c
			hits = append(hits, h)
			lastPK = pk
		}
		if seq.Valid {
			text := make([]string, len(fields))
			for i, f := range fields {
				text[i] = f.String
			}
			last := &hits[len(hits)-1]
			last.Snippets = append(last.Snippets, annals.Snippet{Seq: seq.Int64, Kind: annals.EntryKind(kind.String), Tool: tool.String, Text: r.snippet(text)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, 0, ftsErr("search chats", err)
	}
	if len(hits) == 0 && r.offset > 0 && r.walk == 0 {
		// Past the end: the page carries no total, so count.
		if err := db.countPastTheEnd(ctx, r, &total); err != nil {
			return nil, 0, 0, err
		}
	}
	return hits, total, scanned, skipped.Err()
}

// countPastTheEnd runs the ranking's count.
func (db *DB) countPastTheEnd(ctx context.Context, r *entryRanking, total *int) error {
	annals.TraceStatement(ctx, r.countQ, r.countArgs)
	return ftsErr("count search", db.reader.QueryRowContext(ctx, r.countQ, r.countArgs...).Scan(total))
}
