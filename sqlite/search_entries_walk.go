package sqlite

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// entryWalkFactor: a chat search that ranks entries (an entry-level filter: role:, tool:,
// after:, before:) scores the newest entryWalkFactor × rankCandidates matching entries in scope
// rather than every match, so its cost stops with them.
const entryWalkFactor = 4

// searchEntryRanking is the entry-level chat ranking. A query of words joined by OR (one word,
// most often) under an entry-level filter walks the newest matching entries only; when the walk
// was cut short, the page is kept if the walk's chats filled it (the total is then counted
// exactly, and each page chat's matching entries too), else every match is ranked as before,
// so a page never misses chats the walk did not reach. Other queries rank every match.
func (db *DB) searchEntryRanking(ctx context.Context, p *searchPlan, cw *where, limit int) ([]annals.ChatHit, int, error) {
	now := float64(unixNano(db.now()))
	walk := 0
	if p.f.Text != nil && len(p.entryWhere.Conds) > 0 && storecore.IsDisjunction(p.f.Text) && !p.useMeta {
		k := rankCandidates
		if db.candidates > 0 {
			k = db.candidates
		}
		walk = entryWalkFactor * max(k, p.f.Offset+limit)
	}
	spans := ""
	if walk > 0 {
		var err error
		if spans, err = db.ownerSpans(ctx, p.f.Chat.Owner, cw); err != nil {
			return nil, 0, err
		}
		if spans != "" {
			annals.SearchReportFrom(ctx).SetPath("entry index (the owner's chats' ranges)")
		}
	}
	r, err := p.entryRanking(cw, limit, now, walk, spans)
	if err != nil {
		return nil, 0, err
	}
	hits, total, scanned, err := db.runEntryRanking(ctx, r)
	if _, partial := annals.Unreadable(err); err != nil && !partial {
		return nil, 0, err
	}
	if walk == 0 || (len(hits) > 0 && scanned < walk) {
		// Every match was scored.
		if storecore.MatchCountDiffers(p.f.Text, len(p.entryWhere.Conds) > 0) {
			if rerr := recountMatches(ctx, db.reader, p, p.f.Text, cw, hits); rerr != nil {
				return nil, 0, rerr
			}
		}
		return hits, total, err
	}
	// An empty page carries no counts (past the end, or nothing in scope): ranked as before,
	// which counts.
	if len(hits) < limit {
		annals.SearchReportFrom(ctx).SetPath("entry index (every match)")
		if r, err = p.entryRanking(cw, limit, now, 0, ""); err != nil {
			return nil, 0, err
		}
		hits, total, _, err = db.runEntryRanking(ctx, r)
		return hits, total, err // a disjunction: its count is the entries that match
	}
	total, cerr := db.countWalked(ctx, p, cw, spans, hits)
	if cerr != nil {
		return nil, 0, cerr
	}
	return hits, total, err
}

// countWalked is the exact number of chats in scope with a matching entry, and sets each hit's
// Matches to its chat's matching entries (the walk saw only the newest of them): one count of
// the matches, no score and no sort.
//
// spans, when set, are the small owner's chats' ranges (ownerSpans): only they are read.
func (db *DB) countWalked(ctx context.Context, p *searchPlan, cw *where, spans string, hits []annals.ChatHit) (int, error) {
	match, err := ftsCompile(p.f.Text, p.entryCols)
	if err != nil {
		return 0, err
	}
	with, from := `WITH `, `FROM entries_fts CROSS JOIN `+p.filtered()+` CROSS JOIN chats c WHERE e.pk = entries_fts.rowid AND c.pk = e.chat_pk AND entries_fts MATCH ?`
	var args []any
	if spans != "" {
		with, from = `WITH `+spansCTE+`, `, `FROM `+p.spanMatches()
		args = append(args, spans)
	}
	from += ` AND ` + p.entryWhere.SQL() + ` AND ` + cw.SQL()
	marks := make([]string, len(hits))
	byID := make(map[string]int, len(hits))
	for i, h := range hits {
		marks[i] = "?"
		args = append(args, h.Chat.ID)
		byID[h.Chat.ID] = i
	}
	args = append(append(append(args, match), p.entryWhere.Args...), cw.Args...)
	// One pass over the matches, grouped by chat: the page's chats keep their counts.
	q := with + `g(id, n) AS MATERIALIZED (SELECT CASE WHEN c.id IN (` + strings.Join(marks, ", ") + `) THEN c.id END, count(*) ` + from + `
		GROUP BY e.chat_pk) SELECT id, n FROM g WHERE id IS NOT NULL UNION ALL SELECT NULL, count(*) FROM g`
	annals.TraceStatement(ctx, q, args)
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, ftsErr("count search", err)
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		var id *string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return 0, storeErr("count search", err)
		}
		if id == nil {
			total = n
		} else {
			hits[byID[*id]].Matches = n
		}
	}
	return total, ftsErr("count search", rows.Err())
}
