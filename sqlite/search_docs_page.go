package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
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
//   - one positive term (a word, a phrase, a prefix's words): one pass for the entries holding
//     it, each chat's as one list (readPage); their number is Matches;
//   - several terms: a cursor per chat and term, each term's entries in the chat as one list,
//     which of them hold every term counted in Go, the entries needed then read by pk
//     (pageTermMatches). For an AND of terms (conj) those holding every term are the matches
//     (Matches, so the page needs no recount) and the first snippets, and the others are read
//     only for the chats with fewer of them than snippets wanted; otherwise every entry holding
//     some term matches (Matches counted again later).
//
// (With rows, for tests, the passes before these: the matches a row each, an AND of terms as an
// AND pass and an OR pass, other terms as an OR pass with an AND pass over the same ranges.)
//
// The matches are counted and the snippets' entries chosen here, and the snippets are cut in Go
// from the chosen entries, read by pk (pageSnippets).
//
// With narrow, a query that is one prefix's expansion seeks in each chat only the words its
// chat document holds (pageWordMatches).
func pageHits(ctx context.Context, tx queryer, p *searchPlan, pos []*annals.TextExpr, how pageHow, page []docHit) error {
	conj := how.conj
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
	words, err := pageWordMatches(ctx, tx, p, pos, how.narrow, page) // nil: each chat seeks every word
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		if every, err = ftsCompile(&annals.TextExpr{Op: annals.TextAnd, Items: pos}, p.entryCols); err != nil {
			return err
		}
	}
	switch {
	case len(pos) > 1 && !how.rows:
		keep := snippets
		if !conj {
			keep = math.MaxInt // every entry holding some term matches
		}
		byChat, err := pageTermMatches(ctx, tx, p, pos, with[0], args, keep)
		if err != nil {
			return err
		}
		return choosePage(ctx, tx, p, pos, byChat, page, byPK, conj, snippets)
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
	default:
		args = append(args, bodyAny)
	}
	if len(pos) == 1 && how.rows {
		with = append(with, `hits(pk, epk, size, t) AS (`+in(`g.pk, entries_fts.rowid, `+entryBytes+`, 1`)+`)`)
	}
	byChat, err := readPage(ctx, tx, p, with, args, match, len(pos) > 1 || how.rows)
	if err != nil {
		return err
	}
	return choosePage(ctx, tx, p, pos, byChat, page, byPK, conj && len(pos) > 1, snippets)
}

// choosePage sets the page chats' Matches and snippets from their matching entries (byChat; with
// every, those holding every term have t = 1 and are the matches).
func choosePage(ctx context.Context, tx queryer, p *searchPlan, pos []*annals.TextExpr, byChat map[int64][]pageMatch, page []docHit, byPK map[int64]int, every bool, snippets int) error {
	chosen := countAndChoose(byChat, page, byPK, every, snippets)
	if len(chosen) == 0 {
		return nil
	}
	return pageSnippets(ctx, tx, p, pos, chosen, byPK, page)
}

// pageHow is how pageHits reads a page: conj, the query is an AND of terms (isConjunction);
// narrow, a prefix's words are sought in each chat only where its document holds them
// (pageWordMatches); rows, a one-pass page's matches are read a row each rather than as a list
// per chat (readPageMatchLists), for tests.
type pageHow struct {
	conj, narrow, rows bool
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

// readPage runs a page's pass over the entry index (the CTEs with, ending with pg and, when
// rows, with hits) and reads its matches by chat: a row each (readPageMatches) or, for a
// one-pass page whose matches each hold every term, as a list per chat (readPageMatchLists).
func readPage(ctx context.Context, tx queryer, p *searchPlan, with []string, args []any, match string, rows bool) (map[int64][]pageMatch, error) {
	if rows {
		q := `WITH ` + strings.Join(with, ", ") + ` SELECT pk, epk, size, t FROM hits`
		annals.TraceStatement(ctx, q, args)
		return readPageMatches(ctx, tx, q, args)
	}
	q := `WITH ` + strings.Join(with, ", ") + ` SELECT g.pk, (SELECT group_concat(entries_fts.rowid || ' ' || ` + entryBytes + `, ' ')
		FROM entries_fts CROSS JOIN ` + p.filtered() + ` WHERE entries_fts MATCH ` + match + `
		AND entries_fts.rowid BETWEEN g.lo AND g.hi AND e.pk = entries_fts.rowid AND e.chat_pk = g.pk) FROM pg g`
	annals.TraceStatement(ctx, q, args)
	return readPageMatchLists(ctx, tx, q, args)
}

// readPageMatchLists reads the page chats' matching entries of a one-pass page (each holds every
// term), each chat's as one row: its entries' pks and sizes as a list of decimal pairs
// (matchList). Every match read by a row of its own cost more to hand over through the driver
// than to find: at 1M entries, 13 M of the 51 M instructions of timeout's page (3,426 matches in
// 50 chats); as lists, 4 M.
func readPageMatchLists(ctx context.Context, tx queryer, q string, args []any) (map[int64][]pageMatch, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, ftsErr("search matches", err)
	}
	defer rows.Close()
	byChat := map[int64][]pageMatch{}
	for rows.Next() {
		var pk int64
		var list sql.RawBytes
		if err := rows.Scan(&pk, &list); err != nil {
			return nil, storeErr("scan match", err)
		}
		if len(list) == 0 {
			continue // no match in the chat (a narrowed chat's words are in its metadata only)
		}
		ms, err := matchList(list)
		if err != nil {
			return nil, storeErr("scan match", err)
		}
		byChat[pk] = ms
	}
	return byChat, ftsErr("search matches", rows.Err())
}

// matchList parses a chat's matches as readPageMatchLists reads them: "pk size pk size ...",
// non-negative decimals separated by single spaces, each entry holding every term.
func matchList(b []byte) ([]pageMatch, error) {
	var out []pageMatch
	var n [2]int64
	i := 0
	for start := 0; start <= len(b); start++ {
		end := start
		for end < len(b) && b[end] != ' ' {
			end++
		}
		v, err := strconv.ParseInt(string(b[start:end]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("match list %.40q: %w", b, err)
		}
		n[i%2] = v
		if i%2 == 1 {
			out = append(out, pageMatch{epk: n[0], size: n[1], t: 1})
		}
		i++
		start = end
	}
	if i%2 != 0 {
		return nil, fmt.Errorf("match list %.40q: an odd number of values", b)
	}
	return out, nil
}

// pageSnippets sets the snippets of the page chats' chosen entries ([chat pk, entry pk], each
// chat's in rank order). It reads the chosen entries' searched fields by pk and cuts the
// snippets in Go (query.Snippet, the same as PostgreSQL's): FTS5's snippet() needed a cursor
// over the entry index per chat (a seek of every term in every segment, per page chat) only to
// find where the terms are in 1–3 entries, and Go finds them by splitting the text as the index
// did. The terms are the positive terms with each expanded prefix one term per word, as FTS5
// saw them (one phrase per word); a page narrowed to the words each chat holds
// (pageWordMatches) highlights the same words, since a word the chat does not hold is in none
// of its entries.
func pageSnippets(ctx context.Context, tx queryer, p *searchPlan, pos []*annals.TextExpr, chosen [][2]int64, byPK map[int64]int, page []docHit) error {
	epks := make([]int64, len(chosen))
	for i, c := range chosen {
		epks[i] = c[1]
	}
	list, _ := json.Marshal(epks) // int64s always encode
	q := `SELECT e.pk, e.seq, e.kind, e.tool_name, ` + strings.Join(p.snippetCols(), ", ") + `
		FROM json_each(?) j CROSS JOIN entries e WHERE e.pk = j.value`
	args := []any{string(list)}
	annals.TraceStatement(ctx, q, args)
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return storeErr("search snippets", err)
	}
	defer rows.Close()
	terms := query.PositiveTerms(anyOf(pos), nil)
	got := make(map[int64]annals.Snippet, len(chosen))
	fields := make([]string, 5) // snippetCols
	dest := make([]any, 4+len(fields))
	for i := range fields {
		dest[4+i] = &fields[i]
	}
	for rows.Next() {
		var epk int64
		var sn annals.Snippet
		var kind string
		dest[0], dest[1], dest[2], dest[3] = &epk, &sn.Seq, &kind, &sn.Tool
		if err := rows.Scan(dest...); err != nil {
			return storeErr("scan snippet", err)
		}
		sn.Kind = annals.EntryKind(kind)
		sn.Text = query.Snippet(fields, terms, query.Fold, p.open, p.shut)
		got[epk] = sn
	}
	if err := rows.Err(); err != nil {
		return storeErr("search snippets", err)
	}
	for _, c := range chosen {
		if sn, ok := got[c[1]]; ok {
			h := &page[byPK[c[0]]].hit
			h.Snippets = append(h.Snippets, sn)
		}
	}
	return nil
}

// snippetCols selects an entry's searchable fields for query.Snippet, in the entry index's
// column order (snippet() took the best of them, the first on a tie, as query.Snippet does):
// those the plan searches, and an empty string for the others (a field not searched is never a
// snippet, and need not be read).
func (p *searchPlan) snippetCols() []string {
	out := []string{"text", "reasoning", "tool_name", "tool_args", "tool_result"}
	for i, f := range out {
		out[i] = "''"
		if p.searches(f) {
			out[i] = "e." + f
		}
	}
	return out
}

// entryFields is snippetCols of an entry read whole.
func (p *searchPlan) entryFields(e *annals.Entry) []string {
	out := []string{e.Text, e.Reasoning, "", "", ""}
	if e.Tool != nil {
		out[2], out[3], out[4] = e.Tool.Name, string(e.Tool.Arguments), e.Tool.Result
	}
	for i, f := range []string{"text", "reasoning", "tool_name", "tool_args", "tool_result"} {
		if !p.searches(f) {
			out[i] = ""
		}
	}
	return out
}

// searches reports whether the plan searches the entry index's column col.
func (p *searchPlan) searches(col string) bool {
	return p.entryCols == nil || slices.Contains(p.entryCols, col)
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
