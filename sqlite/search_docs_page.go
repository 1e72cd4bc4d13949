package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
)

// chatEntryRange is chat c's first and last entry pk, one seek each in entries_by_chat
// (migration 0034).
const chatEntryRange = `(SELECT min(e.pk) FROM entries e WHERE e.chat_pk = c.pk), (SELECT max(e.pk) FROM entries e WHERE e.chat_pk = c.pk)`

// pageHits is step 3: each page chat's matching entries, found in the entry index between the
// chat's smallest and largest entry rowid, so the work is the chat's own matches (and those of
// chats written in between), never the whole index's. It sets Matches and the best entries'
// snippets.
//
// The best entries are those holding every term, then the shortest, not the best by bm25:
// bm25 computes each term's document frequency with a pass over the term's whole doclist, once
// per FTS5 cursor, and every chat's rowid range is a cursor of its own, so bm25
// here would cost the page's chats times the term's matches. For one term, shortest first is
// bm25's order where the term occurs once.
//
// Every cursor costs a seek of each term in the index, per page chat, so the passes are few:
//   - a word, or words joined by OR: one pass for the entries holding any term (each matches by
//     itself: their number is Matches), one for the snippets;
//   - an AND of terms (conj): one pass for the entries holding every term, which are the
//     entries that match (Matches, so the page needs no recount) and the first snippets; the
//     entries holding some term are read only for the chats with fewer such entries than
//     snippets wanted; then the snippets;
//   - anything else: the entries holding any term (Matches counted again later), those holding
//     every term among them, the snippets.
//
// The first statement returns the matches; they are counted and the snippets' entries chosen
// here, and the snippets are a second statement over the chosen entries (pageSnippets).
//
// With narrow, a query that is one prefix's expansion seeks in each chat only the words its
// chat document holds (pageWordMatches).
func pageHits(ctx context.Context, tx queryer, p *searchPlan, pos []*annals.TextExpr, conj, narrow bool, page []docHit) error {
	bodyAny, err := ftsCompile(anyOf(pos), p.entryCols)
	if err != nil {
		return err
	}
	marks := make([]string, len(page))
	byPK := make(map[int64]int, len(page))
	args := make([]any, 0, len(page)+len(pos)+8)
	for i, h := range page {
		marks[i] = "?"
		args = append(args, h.pk)
		byPK[h.pk] = i
	}
	snippets := max(0, min(p.f.Snippets, maxSnippets)) // a library caller may pass a negative count: none
	// in is a pass over each chat's range of the entry index (alias g for the chat), of the
	// entries of that chat (the range holds other chats' entries written in between).
	match := "?"
	in := func(cols string) string {
		return `SELECT ` + cols + ` FROM pg g CROSS JOIN entries_fts CROSS JOIN ` + p.filtered() + `
			WHERE entries_fts MATCH ` + match + ` AND entries_fts.rowid BETWEEN g.lo AND g.hi AND e.pk = entries_fts.rowid AND e.chat_pk = g.pk`
	}
	with := []string{`pg(pk, lo, hi) AS MATERIALIZED (SELECT c.pk, ` + chatEntryRange + ` FROM chats c WHERE c.pk IN (` + strings.Join(marks, ", ") + `))`}
	var every string
	words, err := pageWordMatches(ctx, tx, p, pos, narrow, page) // nil: each chat seeks every word
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		if every, err = ftsCompile(&annals.TextExpr{Op: annals.TextAnd, Items: pos}, p.entryCols); err != nil {
			return err
		}
	}
	switch {
	case conj && len(pos) > 1:
		with = append(with, `every(pk, epk, size) AS MATERIALIZED (`+in(`g.pk, entries_fts.rowid, `+entryBytes)+`)`,
			`few(pk) AS MATERIALIZED (SELECT g.pk FROM pg g WHERE (SELECT count(*) FROM every v WHERE v.pk = g.pk) < ?)`,
			`some(pk, epk, size) AS MATERIALIZED (SELECT g.pk, entries_fts.rowid, `+entryBytes+` FROM few f CROSS JOIN pg g CROSS JOIN entries_fts CROSS JOIN `+p.filtered()+`
				WHERE g.pk = f.pk AND entries_fts MATCH ? AND entries_fts.rowid BETWEEN g.lo AND g.hi AND e.pk = entries_fts.rowid AND e.chat_pk = g.pk)`,
			`hits(pk, epk, size, t) AS (SELECT pk, epk, size, 1 FROM every UNION ALL
				SELECT pk, epk, size, 0 FROM some WHERE epk NOT IN (SELECT epk FROM every))`)
		args = append(args, every, snippets, bodyAny)
	case len(pos) > 1:
		// One more pass per chat, for the entries holding every term: a pass per term would
		// multiply the cursors (each costs a seek per segment) by the number of terms.
		with = append(with, `some(pk, epk, size) AS MATERIALIZED (`+in(`g.pk, entries_fts.rowid, `+entryBytes)+`)`,
			`every(epk) AS MATERIALIZED (SELECT entries_fts.rowid FROM pg g CROSS JOIN entries_fts
				WHERE entries_fts MATCH ? AND entries_fts.rowid BETWEEN g.lo AND g.hi)`,
			`hits(pk, epk, size, t) AS (SELECT pk, epk, size, epk IN (SELECT epk FROM every) FROM some)`)
		args = append(args, bodyAny, every)
	case words != nil:
		// Each chat's cursor seeks the words its document holds (search_docs_words.go).
		with[0], args, match = wordsPageChats, []any{pageMatchList(words)}, "g.m"
		with = append(with, `hits(pk, epk, size, t) AS (`+in(`g.pk, entries_fts.rowid, `+entryBytes+`, 1`)+`)`)
	default:
		with = append(with, `hits(pk, epk, size, t) AS (`+in(`g.pk, entries_fts.rowid, `+entryBytes+`, 1`)+`)`)
		args = append(args, bodyAny)
	}
	q := `WITH ` + strings.Join(with, ", ") + ` SELECT pk, epk, size, t FROM hits`
	annals.TraceStatement(ctx, q, args)
	byChat, err := readPageMatches(ctx, tx, q, args)
	if err != nil {
		return err
	}
	chosen := countAndChoose(byChat, page, byPK, conj && len(pos) > 1, snippets)
	if len(chosen) == 0 {
		return nil
	}
	return pageSnippets(ctx, tx, p, bodyAny, words, chosen, byPK, page)
}

// countAndChoose sets each page chat's Matches from its matching entries (with every, those
// holding every term; else all of them) and chooses its snippets' entries: those holding every
// term first, then the shortest, then the earliest. It returns the chosen (chat pk, entry pk).
func countAndChoose(byChat map[int64][]pageMatch, page []docHit, byPK map[int64]int, every bool, snippets int) [][2]int64 {
	chosen := make([][2]int64, 0, len(page)*snippets)
	for pk, hs := range byChat {
		h := &page[byPK[pk]].hit
		for _, m := range hs {
			h.Matches += m.t
		}
		if !every {
			h.Matches = len(hs)
		}
		slices.SortFunc(hs, func(a, b pageMatch) int {
			return cmp.Or(cmp.Compare(b.t, a.t), cmp.Compare(a.size, b.size), cmp.Compare(a.epk, b.epk))
		})
		for _, m := range hs[:min(snippets, len(hs))] {
			chosen = append(chosen, [2]int64{pk, m.epk})
		}
	}
	return chosen
}

// pageMatch is a matching entry of a page chat: its pk, size, and whether it holds every term.
type pageMatch struct {
	epk, size int64
	t         int
}

// readPageMatches reads the page chats' matching entries by chat. They are ranked here, not by
// a window in the statement: at 1M entries a head word's 3,426 matches in a page of 50 chats
// took SQLite 5–8 ms to sort and number, and Go a fraction of a millisecond.
func readPageMatches(ctx context.Context, tx queryer, q string, args []any) (map[int64][]pageMatch, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, ftsErr("search matches", err)
	}
	defer rows.Close()
	byChat := map[int64][]pageMatch{}
	for rows.Next() {
		var pk int64
		var m pageMatch
		if err := rows.Scan(&pk, &m.epk, &m.size, &m.t); err != nil {
			return nil, storeErr("scan match", err)
		}
		byChat[pk] = append(byChat[pk], m)
	}
	return byChat, ftsErr("search matches", rows.Err())
}

// pageSnippets sets the snippets of the page chats' chosen entries ([chat pk, entry pk], each
// chat's in rank order). The snippet pass reads each chat's matches between its first and last
// chosen entry only, not over the chat's whole range (every match of a head word, 3,426 entries
// for a page of 50 chats at 1M, for 150 snippets).
//
// With words (pageWordMatches), each chat's cursor seeks the words its document holds: FTS5's
// snippet scores a fragment by the phrases it holds, so words absent from the entry change
// nothing.
func pageSnippets(ctx context.Context, tx queryer, p *searchPlan, bodyAny string, words map[int64]string, chosen [][2]int64, byPK map[int64]int, page []docHit) error {
	list, _ := json.Marshal(chosen) // pairs of int64s always encode
	span, match := `span(pk, lo, hi) AS MATERIALIZED (SELECT pk, min(epk), max(epk) FROM chosen GROUP BY pk)`, "?"
	if words != nil {
		span = `span(pk, lo, hi, m) AS MATERIALIZED (SELECT s.pk, s.lo, s.hi, w.value ->> 1 FROM (SELECT pk, min(epk) AS lo, max(epk) AS hi FROM chosen GROUP BY pk) s
			CROSS JOIN json_each(?) w WHERE w.value ->> 0 = s.pk)`
		match = "g.m"
	}
	q := `WITH chosen(pk, epk) AS MATERIALIZED (SELECT value ->> 0, value ->> 1 FROM json_each(?)),
		` + span + `,
		snip(epk, text) AS MATERIALIZED (SELECT entries_fts.rowid, snippet(entries_fts, -1, ?, ?, '…', 16) FROM span g CROSS JOIN entries_fts
			WHERE entries_fts MATCH ` + match + ` AND entries_fts.rowid BETWEEN g.lo AND g.hi AND +entries_fts.rowid IN (SELECT c.epk FROM chosen c WHERE c.pk = g.pk))
		SELECT c.epk, e.seq, e.kind, e.tool_name, s.text FROM chosen c LEFT JOIN snip s ON s.epk = c.epk LEFT JOIN entries e ON e.pk = c.epk`
	args := []any{string(list), p.open, p.shut, bodyAny}
	if words != nil {
		args = []any{string(list), pageMatchList(words), p.open, p.shut}
	}
	annals.TraceStatement(ctx, q, args)
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return ftsErr("search snippets", err)
	}
	defer rows.Close()
	got := make(map[int64]annals.Snippet, len(chosen))
	for rows.Next() {
		var epk int64
		var seq sql.NullInt64
		var kind, tool, text sql.NullString
		if err := rows.Scan(&epk, &seq, &kind, &tool, &text); err != nil {
			return storeErr("scan snippet", err)
		}
		if seq.Valid && text.Valid {
			got[epk] = annals.Snippet{Seq: seq.Int64, Kind: annals.EntryKind(kind.String), Tool: tool.String, Text: text.String}
		}
	}
	if err := rows.Err(); err != nil {
		return ftsErr("search snippets", err)
	}
	for _, c := range chosen {
		if sn, ok := got[c[1]]; ok {
			h := &page[byPK[c[0]]].hit
			h.Snippets = append(h.Snippets, sn)
		}
	}
	return nil
}

// isConjunction reports whether e is an AND of terms (nested ANDs included): no OR, no
// exclusion, so an entry matches it exactly when it holds every positive term.
func isConjunction(e *annals.TextExpr) bool {
	if e == nil || e.Op != annals.TextAnd {
		return false
	}
	for _, it := range e.Items {
		if it.Op != annals.TextTerm && !isConjunction(it) {
			return false
		}
	}
	return true
}
