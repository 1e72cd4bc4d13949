package sqlite

import (
	"context"

	"github.com/annals-dev/annals"
)

// searchEntriesTopK is an entry search by relevance that stops after its candidates: it walks
// the entry index's matches newest first (by rowid, the order entries were stored in), through
// the entry and chat filters, takes the first k (rankCandidates, or the page if it reaches
// further), and ranks only those by bm25. An older match is counted in the total but not
// ranked among the newest k, as in a chat search (docs/QUERY.md). The total is exact when the
// candidates are fewer than k; else the search stops there and the total is k, a lower bound
// (SearchReport.SetTotalAtLeast): an exact count would look up every match's chat and filters
// (180k entries for a head word at 1M, four times the walk's cost), only to print a number.
//
// w holds the MATCH (first) and every filter on aliases e and c; cw is the chat filters alone.
// A small owner's walk reads its own postings (its tokens in the MATCH, search_owner.go) or, on
// an index without them, its chats' ranges of the index (search_entries_owner.go).
func (db *DB) searchEntriesTopK(ctx context.Context, p *searchPlan, cw, w *where, text *annals.TextExpr, match string, limit int) ([]annals.EntryHit, int, error) {
	f := p.f
	k := rankCandidates
	if db.candidates > 0 {
		k = db.candidates
	}
	k = max(k, f.Offset+limit)
	spans := ""
	if p.owner == "" { // the owner's tokens narrow the walk itself (search_owner.go)
		var err error
		if spans, err = db.ownerSpans(ctx, f.Chat.Owner, cw); err != nil {
			return nil, 0, err
		}
	}
	from := `entries_fts CROSS JOIN ` + p.filtered() + ` CROSS JOIN chats c`
	cond := `e.pk = entries_fts.rowid AND c.pk = e.chat_pk AND ` + w.SQL()
	wargs := w.Args
	// cand's bm25 is computed for the rows the walk returns only; the snippets come from one
	// more pass over the matches that reads no other table (+rowid: see SearchChats).
	scored := match // the spans' walk scores the words alone
	if spans == "" {
		scored = p.narrowScored(match) // w's MATCH
	}
	score, scoreArgs, err := p.rank(entriesRank, scored, entryWeights)
	if err != nil {
		return nil, 0, err
	}
	cand := `cand(pk, time, r) AS MATERIALIZED (SELECT e.pk, e.time, ` + score + ` FROM ` + from + `
			WHERE ` + cond + ` ORDER BY entries_fts.rowid DESC LIMIT ?)`
	if spans != "" {
		annals.SearchReportFrom(ctx).SetPath("entry index (the owner's chats' ranges)")
		from = `g CROSS JOIN entries_fts CROSS JOIN ` + p.filtered() + ` CROSS JOIN chats c`
		cond = `entries_fts.rowid BETWEEN g.lo AND g.hi AND e.pk = entries_fts.rowid AND e.chat_pk = g.pk AND c.pk = e.chat_pk AND ` + w.SQL()
		wargs = append([]any{spans}, w.Args...) // the score is in cand, after the walk
		cand = `g(pk, lo, hi) AS MATERIALIZED (SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2 FROM json_each(?) j),
		walk(pk) AS MATERIALIZED (SELECT e.pk FROM ` + from + ` WHERE ` + cond + ` ORDER BY e.pk DESC LIMIT ?),
		cand(pk, time, r) AS MATERIALIZED (SELECT s.pk, e.time, s.r FROM (SELECT rowid AS pk, ` + score + ` AS r
			FROM entries_fts WHERE entries_fts MATCH ? AND +rowid IN (SELECT pk FROM walk)) s JOIN entries e ON e.pk = s.pk)`
	}
	q := `WITH ` + cand + `,
		page AS MATERIALIZED (SELECT pk, time, r, (SELECT count(*) FROM cand) AS total FROM cand ORDER BY r, time DESC, pk DESC LIMIT ? OFFSET ?)
		SELECT ` + entryColumns + `, p.r, '', p.total
		FROM page p JOIN entries e ON e.pk = p.pk JOIN chats c ON c.pk = e.chat_pk
		ORDER BY p.r, p.time DESC, p.pk DESC`
	var args []any
	if spans == "" {
		args = append(append(args, scoreArgs...), wargs...) // the score comes first in cand
	} else {
		args = append(args, wargs...)
	}
	args = append(args, k)
	if spans != "" {
		args = append(append(args, scoreArgs...), match)
	}
	args = append(args, limit, f.Offset)
	hits, total, err := db.runEntrySearch(ctx, p, text, q, args)
	if err != nil {
		return nil, 0, err
	}
	if total >= k && len(hits) > 0 {
		annals.SearchReportFrom(ctx).SetTotalAtLeast()
		return hits, total, nil
	}
	if len(hits) == 0 && f.Offset > 0 {
		// Past the end of the candidates (k reaches past the page, so past every match): count.
		countQ := `SELECT count(*) FROM ` + from + ` WHERE ` + cond
		if spans != "" {
			countQ = `WITH g(pk, lo, hi) AS MATERIALIZED (SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2 FROM json_each(?) j) ` + countQ
		}
		annals.TraceStatement(ctx, countQ, wargs)
		if err := db.reader.QueryRowContext(ctx, countQ, wargs...).Scan(&total); err != nil {
			return nil, 0, ftsErr("count entry search", err)
		}
	}
	return hits, total, nil
}
