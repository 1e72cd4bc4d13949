package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/view"
)

// The view's substring filter (view.Filter.Substring) on SQLite: LIKE proves every match;
// entries_tri (migration 0009, a trigram index without positions) finds the candidates of a rare
// substring. A page is found in two steps, each stopping at the page:
//
//  1. Walk the newest entries in scope by time, testing each one (storecore.SubstringFirstWalk,
//     250, then SubstringMoreWalk, 750 more, if those held a match): a common substring fills
//     its page here, as the reference's LIKE scan does.
//  2. Otherwise, among the entries older than the last one walked: a substring of three
//     characters or more is looked up in entries_tri and its candidates tested and sorted (or,
//     when they are many, tested while walking on by time); a shorter one (no trigram to look
//     up, and then nearly every entry matches) continues the walk until the page is full, which
//     is the reference's scan.

// substringTrigrams bounds the trigrams of one lookup: a match holds them all, and a dozen
// spread over a long substring narrow it as well as all of them would.
const substringTrigrams = 12

// substringCond is the LIKE condition on the fields of a message row (storecore.SubstringMatch),
// and its arguments; without calls, on the entry's own fields only (SubstringOwnMatch).
func substringCond(s string, calls bool) (string, []any) {
	match := storecore.SubstringMatch
	if !calls {
		match = storecore.SubstringOwnMatch
	}
	cond, n := match(sqliteLike)
	return cond, likeArgs(s, n)
}

func sqliteLike(col string) string { return col + ` LIKE ? ESCAPE '\'` }

func likeArgs(s string, n int) []any {
	args := make([]any, n)
	for i := range args {
		args[i] = storecore.LikePattern(s)
	}
	return args
}

// heldByCalls reports whether a tool entry in the owner's chats holds s in its call fields,
// found through entries_tri when match is set. When none does, no assistant message matches by
// its calls, and the walk tests each entry's own fields alone: probing the calls of every
// assistant entry walked would cost up to twice the walk (measured on the lanius database).
// Only the owner's chats are read, so the plan depends on nothing outside the caller's scope.
func (db *DB) heldByCalls(ctx context.Context, owner annals.Owner, s, match string) (bool, error) {
	w := &where{}
	w.AddOwner("c", owner)
	calls, n := storecore.SubstringCallMatch(sqliteLike)
	from, args := `entries t CROSS JOIN chats c ON c.pk = t.chat_pk WHERE `, []any{}
	if match != "" {
		from, args = `entries_tri CROSS JOIN entries t ON t.pk = entries_tri.rowid CROSS JOIN chats c ON c.pk = t.chat_pk
			WHERE entries_tri MATCH ? AND `, []any{match}
	}
	args = append(append(args, likeArgs(s, n)...), w.Args...)
	var held bool
	err := db.reader.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+from+`t.kind = 'tool' AND `+calls+` AND `+w.SQL()+`)`, args...).Scan(&held)
	if err != nil {
		return false, storeErr("view search substring calls", err)
	}
	return held, nil
}

// substringCandidates is the set of pks that may hold a trigram lookup (one argument, the MATCH
// string): the entries holding the trigrams, and the assistant messages owning those of them that
// are tool entries, whose call fields are the assistant's (storecore.SubstringOwner).
func substringCandidates() string {
	return `WITH m(pk) AS (SELECT rowid FROM entries_tri WHERE entries_tri MATCH ?)
		SELECT pk FROM m UNION SELECT (` + storecore.SubstringOwner() + `) FROM m CROSS JOIN entries t ON t.pk = m.pk WHERE t.kind = 'tool'`
}

// trigramMatch is the entries_tri MATCH string for s: its trigrams, each an FTS5 string (quotes
// doubled), ANDed. "" when s is too short to look up.
func trigramMatch(s string) string {
	gs := storecore.Trigrams(s, substringTrigrams)
	for i, g := range gs {
		gs[i] = `"` + strings.ReplaceAll(g, `"`, `""`) + `"`
	}
	return strings.Join(gs, " AND ")
}

// walkedKey is an entry the walk read: its pk, its place in the search order, and whether it
// matched.
type walkedKey struct {
	pk, time, seq int64
	chat          string
	hit           bool
}

const viewSearchOrder = "e.time DESC, c.id DESC, e.seq DESC"

// viewSubstring answers a search with a substring; w holds every other condition.
func (db *DB) viewSubstring(ctx context.Context, w *where, f view.Filter, limit int) (*view.Page, error) {
	match := trigramMatch(f.Substring)
	if match != "" {
		ready, err := db.substringIndexReady(ctx)
		if err != nil {
			return nil, err
		}
		if !ready {
			match = ""
		}
	}
	calls, err := db.heldByCalls(ctx, f.Owner, f.Substring, match)
	if err != nil {
		return nil, err
	}
	cond, condArgs := substringCond(f.Substring, calls)
	var pks []int64
	rest := w
	for _, n := range []int{storecore.SubstringFirstWalk, storecore.SubstringMoreWalk} {
		walked, err := db.walkSubstring(ctx, rest, cond, condArgs, n, limit+1-len(pks))
		if err != nil {
			return nil, err
		}
		found := len(pks)
		for _, k := range walked {
			if k.hit {
				pks = append(pks, k.pk)
			}
		}
		if len(pks) > limit || len(walked) < n {
			// The page is full, or the walk reached the oldest entry in scope.
			return db.viewPageOf(ctx, f, pks, limit)
		}
		last := walked[len(walked)-1]
		rest = &where{}
		rest.Conds, rest.Args = slices.Clone(w.Conds), slices.Clone(w.Args)
		rest.Add("e.time <= ? AND (e.time, c.id, e.seq) < (?, ?, ?)", last.time, last.time, last.chat, last.seq)
		if len(pks) == found {
			break // no match in this step: rare enough for the index
		}
	}
	more, err := db.olderSubstring(ctx, rest, f.Substring, cond, condArgs, calls, limit+1-len(pks))
	if err != nil {
		return nil, err
	}
	return db.viewPageOf(ctx, f, append(pks, more...), limit)
}

// walkSubstring reads up to n entries matching w newest first, each with whether it holds the
// substring, and stops early at the hits-th entry that does: the rows stream from SQLite, so
// the entries after it are never read.
func (db *DB) walkSubstring(ctx context.Context, w *where, cond string, condArgs []any, n, hits int) ([]walkedKey, error) {
	q := func(from string) string {
		return `SELECT e.pk, e.time, c.id, e.seq, ` + cond + ` FROM ` + from + ` WHERE ` + w.SQL() + ` ORDER BY ` + viewSearchOrder + ` LIMIT ?`
	}
	args := append(append(slices.Clone(condArgs), w.Args...), n)
	rows, err := db.queryTimeWalk(ctx, q, args)
	if err != nil {
		return nil, storeErr("view search walk", err)
	}
	defer rows.Close()
	var out []walkedKey
	for rows.Next() {
		var k walkedKey
		if err := rows.Scan(&k.pk, &k.time, &k.chat, &k.seq, &k.hit); err != nil {
			return nil, storeErr("scan view search walk", err)
		}
		out = append(out, k)
		if k.hit {
			if hits--; hits == 0 {
				break
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("view search walk", err)
	}
	return out, nil
}

// queryTimeWalk runs a query that walks entries_by_time (q builds it from its FROM clause). A
// read-only open of a file written by an older annals never ran migration 0003: the hint names an
// index that is not there, and the same answer comes from the planner's plan.
func (db *DB) queryTimeWalk(ctx context.Context, q func(from string) string, args []any) (*sql.Rows, error) {
	rows, err := db.reader.QueryContext(ctx, q(`entries e INDEXED BY entries_by_time JOIN chats c ON c.pk = e.chat_pk`), args...)
	if err != nil && strings.Contains(err.Error(), "no such index") {
		rows, err = db.reader.QueryContext(ctx, q(entriesJoin), args...)
	}
	return rows, err
}

// olderSubstring finds up to n more matches among the entries w keeps (those older than the
// walk), newest first: through entries_tri when the substring has trigrams and the index is
// whole, else by walking on. A substring with many candidates in scope (denseSubstring) is
// common in older entries only: its candidates become one set, tested while walking by time,
// which stops at the page instead of sorting them all.
func (db *DB) olderSubstring(ctx context.Context, w *where, s, cond string, condArgs []any, calls bool, n int) ([]int64, error) {
	match := trigramMatch(s)
	ready, dense := false, false
	if match != "" {
		var err error
		if ready, err = db.substringIndexReady(ctx); err != nil {
			return nil, err
		}
		if ready {
			if dense, err = db.denseSubstring(ctx, w, match); err != nil {
				return nil, err
			}
		}
	}
	var rows *sql.Rows
	var err error
	switch {
	case ready && calls:
		w.Add("e.pk IN ("+substringCandidates()+")", match)
	case ready:
		w.Add("e.pk IN (SELECT rowid FROM entries_tri WHERE entries_tri MATCH ?)", match)
	}
	w.Add(cond, condArgs...)
	switch {
	case ready && !dense:
		rows, err = db.reader.QueryContext(ctx, `SELECT e.pk FROM entries e CROSS JOIN chats c ON c.pk = e.chat_pk
			WHERE `+w.SQL()+` ORDER BY `+viewSearchOrder+` LIMIT ?`, append(slices.Clone(w.Args), n)...)
	default:
		rows, err = db.queryTimeWalk(ctx, func(from string) string {
			return `SELECT e.pk FROM ` + from + ` WHERE ` + w.SQL() + ` ORDER BY ` + viewSearchOrder + ` LIMIT ?`
		}, append(slices.Clone(w.Args), n))
	}
	if err != nil {
		return nil, storeErr("view search substring", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var pk int64
		if err := rows.Scan(&pk); err != nil {
			return nil, storeErr("scan view search substring", err)
		}
		out = append(out, pk)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("view search substring", err)
	}
	return out, nil
}

// denseSubstring reports whether the trigram lookup match has at least viewDenseMatches
// candidates among the entries w keeps. Counting stops there and counts only entries in scope,
// so the plan (and its time) depends on nothing outside the caller's scope.
func (db *DB) denseSubstring(ctx context.Context, w *where, match string) (bool, error) {
	var n int
	err := db.reader.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM entries_tri CROSS JOIN entries e ON e.pk = entries_tri.rowid
		CROSS JOIN chats c ON c.pk = e.chat_pk WHERE entries_tri MATCH ? AND `+w.SQL()+` LIMIT ?)`,
		append(append([]any{match}, w.Args...), viewDenseMatches)...).Scan(&n)
	if err != nil {
		return false, storeErr("view search substring density", err)
	}
	return n >= viewDenseMatches, nil
}

// viewPageOf reads the (clipped) content of the page's entries, given newest first; the owner
// constraint is applied again by the statement that reads them.
func (db *DB) viewPageOf(ctx context.Context, f view.Filter, pks []int64, limit int) (*view.Page, error) {
	if len(pks) == 0 {
		return &view.Page{Messages: []view.Message{}}, nil
	}
	w := &where{}
	marks := make([]string, len(pks))
	for i, pk := range pks {
		marks[i] = "?"
		w.Args = append(w.Args, pk)
	}
	w.Conds = append(w.Conds, "e.pk IN ("+strings.Join(marks, ", ")+")")
	w.AddOwner("c", f.Owner)
	// CROSS JOIN keeps entries first: left to itself, with a tenant constraint SQLite starts from
	// the tenant's chats and probes their entries (150 ms instead of 1 on the lanius database).
	rows, err := db.reader.QueryContext(ctx, `SELECT `+viewSQL().MessageColumns(f.Select)+` FROM entries e CROSS JOIN chats c ON c.pk = e.chat_pk
		WHERE `+w.SQL()+` ORDER BY `+viewSearchOrder, w.Args...)
	if err != nil {
		return nil, storeErr("view search page", err)
	}
	return readMessages(rows, f.Select, limit)
}

// substringIndexReady reports whether entries_tri holds every entry: migration 0009 ran and the
// entries before it have all been added. A file from before 0009, opened read-only, has no index.
func (db *DB) substringIndexReady(ctx context.Context) (bool, error) {
	var todo bool
	err := db.reader.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM entries_tri_todo)`).Scan(&todo)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		return false, nil
	}
	if err != nil {
		return false, storeErr("view search substring index", err)
	}
	return !todo, nil
}
