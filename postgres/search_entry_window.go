package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// A walk by pk windows. The walk over words keeps the newest n matching entries by pk, but the
// full-text bitmap holds every match, and PostgreSQL reads each from the table before the top-N
// keeps its share: at 1M entries `tool:Bash timeout` read ~120k matching entries to keep 4,000
// (730 ms CPU, where SQLite's walk stops in its doclist). So the walk first asks a window of
// the newest entries, `e.pk > above`, which the planner ANDs into the bitmap from the primary
// key (entries_by_tenant for a member), and the table is read only for the matches inside it.
// When the window holds the walk's n matches they are the newest n of the whole table (every
// entry outside it is older), so the page, its order, its totals and snippets are those of the
// walk without a window; when it holds fewer, the window is widened and asked again, or the
// walk reads the table when a window would cost more (widen). A walk that checks vectors as it
// reads (a phrase, a field restriction) is not windowed: it already reads entries newest first
// and stops (a backward scan of the primary key), and a window only repeats its reads.

// firstWindowFactor sizes the first window: walk × firstWindowFactor entries, enough in one
// statement when at least 1 entry in firstWindowFactor matches (`tool:Bash timeout` is 1 in 8
// of the benchmark corpus).
const firstWindowFactor = 16

// walkSpan is the reach of one run of the entry-index ranking: the newest n matching entries
// (0: every match), among the entries of pk > above when windowed.
type walkSpan struct {
	n        int
	above    int64
	windowed bool
}

// walkEntries runs the entry-index ranking of a walk of n entries (0: every match), a walk over
// words by pk windows: the newest window first, widened until one holds the walk's n matches,
// and the whole table last. A window that gives no page says nothing of how many matches it held
// (the count rides on the page's rows), so the walk goes to the whole table.
func (db *DB) walkEntries(ctx context.Context, p *searchPlan, cw *where, limit, n int) (*entryRanking, error) {
	whole := walkSpan{n: n}
	if n == 0 || db.wholeWalks || p.walkReadsVectors(query.PositiveTerms(p.f.Text, nil)) {
		return db.rankEntries(ctx, p, cw, limit, whole)
	}
	lo, hi, ok, err := db.walkRange(ctx, p.f.Chat.Owner)
	if err != nil {
		return nil, err
	}
	windows := 0
	for size := int64(n) * firstWindowFactor; ok && size <= hi-lo; {
		windows++
		r, err := db.rankEntries(ctx, p, cw, limit, walkSpan{n: n, above: hi - size, windowed: true})
		if err != nil {
			return nil, err
		}
		if r.scanned >= n {
			annals.SearchReportFrom(ctx).SetPath("entry index (the newest entries, window " + itoa(int64(windows)) + ")")
			return r, nil
		}
		if len(r.hits) == 0 {
			break
		}
		if size, ok = widen(size, r.scanned, n, hi-lo+1); !ok {
			break
		}
	}
	return db.rankEntries(ctx, p, cw, limit, whole)
}

// matchReadCost: reading one matching entry from the table costs about as much as this many
// entries of a window's b-tree range (at 300k, `--entries tool:Bash timeout` read its 35,930
// matches in ~160 ms, 4.4 µs each; a window of 151,515 entries by time cost ~43 ms with its bound,
// 0.3 µs an entry; a pk range costs less, 0.07 µs).
const matchReadCost = 16

// widen is the next window after one of size entries that held found (> 0) of the walk's n
// matches, in a span of that many entries: as many entries as its density says n needs, a
// quarter more, and at least twice the size. ok is false when the walk should read the table
// instead: the window would cover it, or its b-tree range would cost more than reading every
// match the table holds at that density.
func widen(size int64, found, n int, span int64) (next int64, ok bool) {
	if found <= 0 {
		// No density to go by (a walk that found nothing in its window): the table.
		return 0, false
	}
	next = max(2*size, size*int64(n)/int64(found)*5/4)
	matches := int64(found) * span / size
	return next, next <= span && next <= matchReadCost*matches
}

// walkRange is the first and last pk of the entries in the owner's tenant (every entry for
// every tenant), from the primary key or entries_by_tenant; ok is false when there are none.
func (db *DB) walkRange(ctx context.Context, o annals.Owner) (lo, hi int64, ok bool, err error) {
	w := &where{}
	w.addTenant("e", o)
	var first, last *int64
	err = db.tracedQueryRow(ctx, `SELECT min(e.pk), max(e.pk) FROM entries e WHERE `+w.SQL(), w.Args...).Scan(&first, &last)
	if err != nil {
		return 0, 0, false, db.storeErr("search", err)
	}
	if first == nil || last == nil {
		return 0, 0, false, nil
	}
	return *first, *last, true, nil
}

// entriesByTimeWindows runs an entry search (entryHits) whose walk keeps the newest k candidates
// by time the same way, by windows of the newest entries by time, `e.time >= since`, which the
// planner ANDs into the bitmap from entries_by_time: a window holding k candidates holds the
// newest k of them all (every entry outside it is older), so its page and total are the
// unwindowed walk's. Only over every tenant: the bound is read from entries_by_time, which a
// tenant's entries would have to be picked out of row by row; a member's search walks its
// tenant's index as before.
func (db *DB) entriesByTimeWindows(ctx context.Context, s *entrySearch) ([]annals.EntryHit, int, error) {
	if s.k == 0 || db.wholeWalks || !s.p.f.Chat.Owner.AllTenants {
		return db.entryHits(ctx, s, 0, false)
	}
	// The pks' span stands for the entries' count (at least it), so that no bound is looked
	// for past the last entry (an OFFSET that reads the whole index).
	lo, hi, ok, err := db.walkRange(ctx, s.p.f.Chat.Owner)
	if err != nil {
		return nil, 0, err
	}
	for size := int64(s.k) * firstWindowFactor; ok && size <= hi-lo; {
		since, found, err := db.timeBound(ctx, size)
		if err != nil {
			return nil, 0, err
		}
		if !found {
			break // fewer entries than the window: the walk reads the table
		}
		hits, total, err := db.entryHits(ctx, s, since, true)
		if err != nil {
			return nil, 0, err
		}
		if total >= s.k {
			return hits, total, nil
		}
		if len(hits) == 0 {
			break // the window's count rides on its page's rows
		}
		if size, ok = widen(size, total, s.k, hi-lo+1); !ok {
			break
		}
	}
	return db.entryHits(ctx, s, 0, false)
}

// timeBound is the time of the size-th newest entry, from entries_by_time; found is false when
// there are fewer entries than that.
func (db *DB) timeBound(ctx context.Context, size int64) (since int64, found bool, err error) {
	err = db.tracedQueryRow(ctx, `SELECT e.time FROM entries e ORDER BY e.time DESC LIMIT 1 OFFSET ?`, size-1).Scan(&since)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, db.storeErr("search entries", err)
	}
	return since, true, nil
}
