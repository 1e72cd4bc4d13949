package sqlite

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/annals-dev/annals"
)

// pageTermMatches is pageHits' pass for several terms: each page chat's entries holding every
// term (t = 1) and, for the chats with fewer of those than keep, the entries holding some term
// (t = 0). For an AND of terms (conj), keep is the snippets wanted: the entries holding every
// term are the matches (Matches) and the others give the rest of a chat's snippets, what the AND
// pass, then the OR pass over the chats with too few, gave; otherwise keep has no bound and every
// entry holding some term is a match, what the OR pass with each entry's AND gave.
//
// It reads each term's entries in each chat's range once (a cursor per chat and term, the
// entries' pks as one list per cursor, without reading the entries), and which hold every
// term is counted here: the AND pass and the OR pass were two cursors per chat, each seeking
// every term in the index, and at 1M entries the AND pass was 25 M of fix failing test's 72 M
// instructions for 2 matching entries in 50 chats. The entries it returns are then read by pk
// (pageMatchSizes): their chat (a range holds other chats' entries written in between) and size.
func pageTermMatches(ctx context.Context, tx queryer, p *searchPlan, pos []*annals.TextExpr, pg string, pgArgs []any, keep int) (map[int64][]pageMatch, error) {
	terms := make([]string, len(pos))
	for i, t := range pos {
		m, err := ftsCompile(t, p.entryCols)
		if err != nil {
			return nil, err
		}
		terms[i] = m
	}
	tl, _ := json.Marshal(terms) // strings always encode
	q := `WITH ` + pg + ` SELECT g.pk, (SELECT group_concat(entries_fts.rowid, ' ') FROM entries_fts
		WHERE entries_fts MATCH t.value AND entries_fts.rowid BETWEEN g.lo AND g.hi) FROM pg g CROSS JOIN json_each(?) t`
	args := append(slices.Clone(pgArgs), string(tl))
	annals.TraceStatement(ctx, q, args)
	held, err := readTermLists(ctx, tx, q, args)
	if err != nil {
		return nil, err
	}
	// held[chat][entry]: how many terms the entry holds. The entries holding every term are read
	// first, with the others of the chats that have fewer of them than keep (their count
	// before the entries' chats are known is at least the count after).
	want := map[int64]bool{}
	for _, es := range held {
		every := 0
		for _, n := range es {
			if n == len(pos) {
				every++
			}
		}
		for e, n := range es {
			if n == len(pos) || every < keep {
				want[e] = true
			}
		}
	}
	sizes, err := pageMatchSizes(ctx, tx, p, want)
	if err != nil {
		return nil, err
	}
	byChat := map[int64][]pageMatch{}
	var more map[int64]bool // entries of chats with too few entries holding every term, not read yet
	few := map[int64]bool{}
	for pk, es := range held {
		var ms []pageMatch
		every := 0
		for e, n := range es {
			if s, ok := sizes[e]; ok && s.chat == pk && n == len(pos) {
				ms = append(ms, pageMatch{epk: e, size: s.size, t: 1})
				every++
			}
		}
		for e, n := range es {
			if s, ok := sizes[e]; ok && s.chat == pk && n < len(pos) && every < keep {
				ms = append(ms, pageMatch{epk: e, size: s.size})
			} else if !want[e] && every < keep {
				if more == nil {
					more = map[int64]bool{}
				}
				more[e] = true
			}
		}
		byChat[pk] = ms
		few[pk] = every < keep
	}
	if more == nil {
		return dropEmpty(byChat), nil
	}
	// A chat whose entries holding every term were partly other chats': read its others now.
	sizes, err = pageMatchSizes(ctx, tx, p, more)
	if err != nil {
		return nil, err
	}
	for pk, es := range held {
		for e := range es {
			if s, ok := sizes[e]; ok && s.chat == pk && few[pk] {
				byChat[pk] = append(byChat[pk], pageMatch{epk: e, size: s.size})
			}
		}
	}
	return dropEmpty(byChat), nil
}

// readTermLists reads pageTermMatches' lists: for each page chat, each entry of its range and
// how many of the terms it holds.
func readTermLists(ctx context.Context, tx queryer, q string, args []any) (map[int64]map[int64]int, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, ftsErr("search matches", err)
	}
	defer rows.Close()
	held := map[int64]map[int64]int{}
	for rows.Next() {
		var pk int64
		var list []byte
		if err := rows.Scan(&pk, &list); err != nil {
			return nil, storeErr("scan match", err)
		}
		if held[pk] == nil {
			held[pk] = map[int64]int{}
		}
		for f := range strings.FieldsSeq(string(list)) {
			e, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, storeErr("scan match", err)
			}
			held[pk][e]++
		}
	}
	return held, ftsErr("search matches", rows.Err())
}

// entrySize is an entry's chat and size in bytes (entryBytes).
type entrySize struct{ chat, size int64 }

// pageMatchSizes reads the chat and size of the entries of want, by pk.
func pageMatchSizes(ctx context.Context, tx queryer, p *searchPlan, want map[int64]bool) (map[int64]entrySize, error) {
	out := make(map[int64]entrySize, len(want))
	if len(want) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(slices.Sorted(maps.Keys(want))) // int64s always encode
	q := `SELECT e.pk, e.chat_pk, ` + entryBytes + ` FROM json_each(?) j CROSS JOIN ` + p.filtered() + ` WHERE e.pk = j.value`
	annals.TraceStatement(ctx, q, []any{string(list)})
	rows, err := tx.QueryContext(ctx, q, string(list))
	if err != nil {
		return nil, storeErr("search matches", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var s entrySize
		if err := rows.Scan(&pk, &s.chat, &s.size); err != nil {
			return nil, storeErr("scan match", err)
		}
		out[pk] = s
	}
	return out, storeErrOrNil("search matches", rows.Err())
}

// dropEmpty removes the chats with no match.
func dropEmpty(byChat map[int64][]pageMatch) map[int64][]pageMatch {
	maps.DeleteFunc(byChat, func(_ int64, ms []pageMatch) bool { return len(ms) == 0 })
	return byChat
}
