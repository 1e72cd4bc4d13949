package sqlite

import (
	"context"

	"github.com/annals-dev/annals"
)

// searchEntriesTopK is an entry search by relevance that stops after its candidates: it walks
// the entry index's matches newest first (by rowid, the order entries were stored in), through
// the entry and chat filters, takes the first k (rankCandidates, or the page if it reaches
// further), and ranks only those by bm25. An older match is counted in the total but not
// ranked among the newest k, as in a chat search (docs/QUERY.md). The total is exact: the
// candidates when they are fewer than k, else one count of the matches (no score, no sort).
//
// w holds the MATCH (first) and every filter on aliases e and c.
func (db *DB) searchEntriesTopK(ctx context.Context, p *searchPlan, w *where, match string, limit int) ([]annals.EntryHit, int, error) {
	f := p.f
	k := rankCandidates
	if db.candidates > 0 {
		k = db.candidates
	}
	k = max(k, f.Offset+limit)
	from := `entries_fts CROSS JOIN entries e CROSS JOIN chats c`
	cond := `e.pk = entries_fts.rowid AND c.pk = e.chat_pk AND ` + w.SQL()
	// cand's bm25 is computed for the rows the walk returns only; the snippets come from one
	// more pass over the matches that reads no other table (+rowid: see SearchChats).
	q := `WITH cand(pk, time, r) AS MATERIALIZED (SELECT e.pk, e.time, bm25(entries_fts, ` + entryWeights + `) FROM ` + from + `
			WHERE ` + cond + ` ORDER BY entries_fts.rowid DESC LIMIT ?),
		page AS MATERIALIZED (SELECT pk, time, r, (SELECT count(*) FROM cand) AS total FROM cand ORDER BY r, time DESC, pk DESC LIMIT ? OFFSET ?),
		snip AS MATERIALIZED (SELECT rowid AS pk, snippet(entries_fts, -1, ?, ?, '…', 16) AS text
			FROM entries_fts WHERE entries_fts MATCH ? AND +rowid IN (SELECT pk FROM page))
		SELECT ` + entryColumns + `, p.r, s.text, p.total
		FROM page p JOIN snip s ON s.pk = p.pk JOIN entries e ON e.pk = p.pk JOIN chats c ON c.pk = e.chat_pk
		ORDER BY p.r, p.time DESC, p.pk DESC`
	args := append(append([]any{}, w.Args...), k, limit, f.Offset, p.open, p.shut, match)
	hits, total, err := db.runEntrySearch(ctx, q, args)
	if err != nil {
		return nil, 0, err
	}
	if total >= k || (len(hits) == 0 && f.Offset > 0) {
		countQ := `SELECT count(*) FROM ` + from + ` WHERE ` + cond
		annals.TraceStatement(ctx, countQ, w.Args)
		if err := db.reader.QueryRowContext(ctx, countQ, w.Args...).Scan(&total); err != nil {
			return nil, 0, ftsErr("count entry search", err)
		}
	}
	return hits, total, nil
}
