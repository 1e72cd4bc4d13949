package postgres

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// entrySearch is one entry search resolved into SQL: the match and scope on e and c, the rank,
// the order, and the walk's candidates (k, 0 when every match is ranked).
type entrySearch struct {
	p                *searchPlan
	pos              []*annals.TextExpr
	w                *where
	rank             string
	pre              []any
	order            string
	k, limit, offset int
}

// SearchEntries finds entries; see annals.SearchStore.
func (db *DB) SearchEntries(ctx context.Context, f annals.SearchFilter) ([]annals.EntryHit, int, error) {
	p, err := db.planSearch(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	f = p.f // its prefixes expanded
	annals.SearchReportFrom(ctx).SetPath("entry index")
	if !p.useEntries {
		return nil, 0, annals.Errorf(annals.EINVALID, "an entry search needs the body or tools field")
	}
	cw, err := chatWhere(f.Chat)
	if err != nil {
		return nil, 0, err
	}
	s := &entrySearch{p: p, w: &where{}, rank: "0.0::real", pos: query.PositiveTerms(f.Text, nil),
		limit: annals.EffectiveLimit(f.Limit, annals.DefaultListLimit, annals.MaxListLimit), offset: f.Offset}
	if f.Offset < 0 {
		return nil, 0, annals.Errorf(annals.EINVALID, "offset must not be negative")
	}
	w := s.w
	if f.Text != nil {
		expr, err := tsExpr(f.Text, p.entryW)
		if err != nil {
			return nil, 0, err
		}
		w.Add("e.tsv @@ ?::tsquery", expr)
		s.rank = `ts_rank(` + entryRankWeights + `, e.tsv, ?::tsquery, ` + itoa(rankNorm) + `)`
		s.pre = []any{tsAny(s.pos, p.entryW)}
	}
	w.addTenant("e", f.Chat.Owner)
	w.Conds = append(w.Conds, cw.Conds...)
	w.Args = append(w.Args, cw.Args...)
	w.Conds = append(w.Conds, p.entryWhere.Conds...)
	w.Args = append(w.Args, p.entryWhere.Args...)
	if err := p.excludedChats(f.Text, w); err != nil {
		return nil, 0, err
	}
	s.order = "r DESC, e.time DESC, e.pk DESC"
	if f.Sort == annals.SortRecent || f.Text == nil {
		s.order = "e.time DESC, e.pk DESC"
	}
	if f.Text != nil && f.Sort != annals.SortRecent {
		// By relevance, only the newest docCandidates matches (more when the page reaches
		// further) are ranked, as in the SQLite store and a chat search, and the search stops
		// there: the total is the candidates, a lower bound when the walk was cut short
		// (SetTotalAtLeast). Counting every match read each one's row (180k entries for a head
		// word at 1M), where the walk newest first reads a few thousand; ts_rank reads the
		// vectors of the candidates alone.
		s.k = docCandidates
		if db.candidates > 0 {
			s.k = db.candidates
		}
		s.k = max(s.k, f.Offset+s.limit)
	}
	hits, total, err := db.entriesByTimeWindows(ctx, s)
	if err != nil {
		return nil, 0, err
	}
	if s.k > 0 && total >= s.k && len(hits) > 0 {
		annals.SearchReportFrom(ctx).SetTotalAtLeast()
	}
	return hits, total, nil
}

// entryHits runs an entry search's statement, over the entries of time >= since when windowed
// (search_entry_window.go).
func (db *DB) entryHits(ctx context.Context, s *entrySearch, since int64, windowed bool) ([]annals.EntryHit, int, error) {
	from := `entries e JOIN chats c ON c.pk = e.chat_pk`
	w := s.w
	if windowed {
		w = &where{}
		w.Conds = append(append(w.Conds, s.w.Conds...), "e.time >= ?")
		w.Args = append(append(w.Args, s.w.Args...), since)
	}
	// Keys, rank and the total (a window over every match) first; content for the page only.
	keys := `SELECT e.pk, e.time, ` + s.rank + ` AS r, count(*) OVER () AS total
			FROM ` + from + ` WHERE ` + w.SQL() + ` ORDER BY ` + s.order + ` LIMIT ? OFFSET ?`
	args := append(append(append([]any{}, s.pre...), w.Args...), s.limit, s.offset)
	if s.k > 0 {
		keys = `SELECT e.pk, e.time, ` + s.rank + ` AS r, count(*) OVER () AS total FROM (SELECT e.pk
				FROM ` + from + ` WHERE ` + w.SQL() + ` ORDER BY e.time DESC, e.pk DESC LIMIT ?) m
			JOIN entries e ON e.pk = m.pk ORDER BY ` + s.order + ` LIMIT ? OFFSET ?`
		args = append(append(append([]any{}, s.pre...), w.Args...), s.k, s.limit, s.offset)
	}
	q := `SELECT ` + entryColumns + `, k.r, k.total FROM (` + keys + `) k
		JOIN entries e ON e.pk = k.pk JOIN chats c ON c.pk = e.chat_pk ORDER BY ` + strings.ReplaceAll(s.order, "r DESC", "k.r DESC")
	rows, err := db.tracedQuery(ctx, q, args...)
	if err != nil {
		return nil, 0, db.storeErr("search entries", err)
	}
	defer rows.Close()
	hits := []annals.EntryHit{}
	total := 0
	for rows.Next() {
		var h annals.EntryHit
		var r float32
		var all int64
		e, err := scanEntry(rows, &r, &all)
		total = int(all)
		if err != nil {
			return nil, 0, db.storeErr("scan entry hit", err)
		}
		h.Entry, h.Score = e, rankScale*float64(r)
		if s.p.f.Text != nil {
			var name, args, result string
			if e.Tool != nil {
				name, args, result = e.Tool.Name, string(e.Tool.Arguments), e.Tool.Result
			}
			h.Snippet = buildSnippet(s.p.fieldTexts(e.Text, e.Reasoning, name, args, result), s.pos, s.p.open, s.p.shut)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, db.storeErr("search entries", err)
	}
	rows.Close()
	if len(hits) == 0 && s.offset > 0 && !windowed {
		// A page past the end carries no window total: count apart. (A time window's empty
		// page is asked again over every entry, entriesByTimeWindows, which counts.)
		if err := db.tracedQueryRow(ctx, `SELECT count(*) FROM `+from+` WHERE `+w.SQL(), w.Args...).Scan(&total); err != nil {
			return nil, 0, db.storeErr("count entry search", err)
		}
	}
	return hits, total, nil
}
