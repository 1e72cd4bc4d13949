package sqlite

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/query"
)

// entryWalkFactor: a chat search that ranks entries (an entry-level filter: role:, tool:,
// after:, before:) scores the newest entryWalkFactor × rankCandidates matching entries in scope
// rather than every match, so its cost stops with them.
const entryWalkFactor = 4

// searchEntryRanking is the entry-level chat ranking. A query of words joined by OR (one word,
// most often) under an entry-level filter walks the newest matching entries only; when the walk
// was cut short, the page is kept if the walk's chats filled it (the total is then the walk's
// chats, a lower bound, and each page chat's matching entries are counted), else every match is
// ranked as before, so a page never misses chats the walk did not reach. Other queries rank
// every match.
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
	if walk > 0 && p.owner == "" { // the owner's tokens narrow the walk itself (search_owner.go)
		var err error
		if spans, err = db.ownerSpans(ctx, p.f.Chat.Owner, cw); err != nil {
			return nil, 0, err
		}
		if spans != "" {
			annals.SearchReportFrom(ctx).SetPath("entry index (the owner's chats' ranges)")
		}
	}
	if spans == "" && p.f.Text != nil && p.useEntries {
		// The scored walk's MATCH: with the kind and tool tokens or not (probeFacets).
		pos := query.PositiveTerms(p.f.Text, nil)
		if len(pos) > 0 {
			match, err := ftsCompile(anyOf(pos), p.entryCols)
			if err != nil {
				return nil, 0, err
			}
			if err := db.probeFacets(ctx, p, match); err != nil {
				return nil, 0, err
			}
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
		annals.SearchReportFrom(ctx).SetPath(p.entryPath("every match"))
		if r, err = p.entryRanking(cw, limit, now, 0, ""); err != nil {
			return nil, 0, err
		}
		hits, total, _, err = db.runEntryRanking(ctx, r)
		return hits, total, err // a disjunction: its count is the entries that match
	}
	// The walk filled the page and stopped: its chats are a lower bound of the total, and each
	// page chat's matching entries are counted within its own range of the entry index (the walk
	// saw only the newest of them). Counting every matching chat exactly would look up each
	// match's chat and filters (130k entries for tool:Bash timeout at 1M), most of the cost.
	annals.SearchReportFrom(ctx).SetTotalAtLeast()
	if !p.f.OrderOnly {
		if rerr := recountMatches(ctx, db.reader, p, p.f.Text, cw, hits); rerr != nil {
			return nil, 0, rerr
		}
	}
	return hits, total, err
}
