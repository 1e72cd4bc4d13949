package sqlite

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/annals-dev/annals"
)

// wordsPageChats is pageHits' page chats (pg) when narrowed: each with its MATCH (m), from the
// JSON list of pageMatchList.
const wordsPageChats = `pg(pk, lo, hi, m) AS MATERIALIZED (SELECT c.pk, ` + chatEntryRange + `, j.value ->> 1 FROM json_each(?) j CROSS JOIN chats c WHERE c.pk = j.value ->> 0)`

// pageWordMatches narrows the page's pass over the entry index (pageHits) for a
// query that is one prefix expanded into many words: each page chat's cursors seek only the
// words its chat document holds, not every word of the expansion. Every cursor seeks each of its
// words in the index, and at 1M entries a page of 50 chats over 64 words was 65–160 ms of a
// `re*` search, while a page chat holds 0–23 of them (docs/BENCHMARKS.md). A chat's document
// holds every entry field of the chat (and its metadata, which only adds words), so a word it
// does not hold matches none of the chat's entries: the matches are the same (and the snippets,
// cut in Go from the chosen entries, highlight every word of the expansion they hold). (A
// search runs on the chat documents only when every chat's document is built, chatDocsReady,
// in the same read transaction.)
//
// It returns each page chat's MATCH (the words its document holds, in the expansion's order;
// "" for none), or nil when it does not apply: the query is not a single expanded prefix of
// single words, or a page chat is long (its words are in several documents), or !narrow.
func pageWordMatches(ctx context.Context, tx queryer, p *searchPlan, pos []*annals.TextExpr, narrow bool, page []docHit) (map[int64]string, error) {
	if !narrow || len(pos) != 1 || pos[0].Op != annals.TextOr || len(pos[0].Items) < 2 {
		return nil, nil
	}
	words := make([]string, len(pos[0].Items))
	for i, it := range pos[0].Items {
		if it.Op != annals.TextTerm || it.Prefix || len(it.Tokens) != 1 {
			return nil, nil
		}
		m, err := ftsCompile(it, nil)
		if err != nil {
			return nil, err
		}
		words[i] = m
	}
	pks := make([]int64, len(page))
	for i, h := range page {
		pks[i] = h.pk
	}
	wl, _ := json.Marshal(words) // strings always encode
	pl, _ := json.Marshal(pks)
	var long int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chat_blocks WHERE chat_pk IN (SELECT value FROM json_each(?))`, string(pl)).Scan(&long); err != nil {
		return nil, storeErr("search matches", err)
	}
	if long > 0 {
		return nil, nil
	}
	// One scan of each word's doclist, kept to the page's documents (the unary + keeps the list
	// from being handed to FTS5 as one lookup each) and bounded by their rowids: a document's
	// rowid is its chat's last activity, and the page's chats are among the walk's newest
	// candidates, so FTS5 reads each word's postings of that stretch of time only, not of every
	// chat (te* at 1M entries: 8.3 -> 2.4 ms for 64 words).
	q := `WITH pd(doc) AS MATERIALIZED (SELECT doc FROM chat_docs WHERE chat_pk IN (SELECT value FROM json_each(?)))
		SELECT d.chat_pk, j.key FROM json_each(?) j CROSS JOIN chat_fts CROSS JOIN chat_docs d
		WHERE chat_fts MATCH j.value AND chat_fts.rowid BETWEEN (SELECT min(doc) FROM pd) AND (SELECT max(doc) FROM pd)
		AND +chat_fts.rowid IN (SELECT doc FROM pd) AND d.doc = chat_fts.rowid`
	args := []any{string(pl), string(wl)}
	annals.TraceStatement(ctx, q, args)
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, ftsErr("search matches", err)
	}
	defer rows.Close()
	held := map[int64][]bool{}
	for rows.Next() {
		var pk int64
		var i int
		if err := rows.Scan(&pk, &i); err != nil {
			return nil, storeErr("scan match", err)
		}
		if held[pk] == nil {
			held[pk] = make([]bool, len(words))
		}
		held[pk][i] = true
	}
	if err := rows.Err(); err != nil {
		return nil, ftsErr("search matches", err)
	}
	out := make(map[int64]string, len(page))
	for _, pk := range pks {
		var its []*annals.TextExpr
		for i, h := range held[pk] {
			if h {
				its = append(its, pos[0].Items[i])
			}
		}
		if len(its) == 0 {
			out[pk] = ""
			continue
		}
		m, err := ftsCompile(anyOf(its), p.entryCols)
		if err != nil {
			return nil, err
		}
		out[pk] = m
	}
	return out, nil
}

// pageMatchList is the page chats' MATCH of pageWordMatches as a JSON list of [pk, match] for
// json_each, in pk order, the chats holding none of the words left out (none of their entries
// matches).
func pageMatchList(byChat map[int64]string) string {
	pks := slices.Sorted(maps.Keys(byChat))
	l := [][2]any{}
	for _, pk := range pks {
		if m := byChat[pk]; m != "" {
			l = append(l, [2]any{pk, m})
		}
	}
	b, _ := json.Marshal(l) // int64s and strings always encode
	return string(b)
}
