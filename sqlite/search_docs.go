package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/query"
)

// Chat search over the chat documents (migrations 0007 and 0010): rank chats, not entries.
//
//  1. cand: walk the chat index's MATCH, narrowed to the caller's owner tokens, in descending
//     rowid (the long chats' sealed blocks, then the chat heads by last activity), through the
//     chat filters, and stop after rankCandidates chats (or the page, if it reaches further);
//     the long chats' matches over their blocks come from search_blocks.go. FTS5 intersects the
//     query with the owner before a row is produced, and bm25 is computed only for the rows
//     returned, so the cost grows with the candidates (and the long chats' documents), not
//     with the matches, and a tenant never scores another tenant's chats.
//  2. rank the candidates: the chat document's bm25 (entry fields; a long chat's best block),
//     the metadata's bm25 from chats_fts, recency; take the page.
//  3. pageHits: for the page's chats only, their matching entries from the entry index, within
//     each chat's rowid range: the match count and the best entries' snippets.
//
// Sort recent needs no cap beyond the page: the walk order is the sort order.

// rankCandidates is how many of the newest matching chats relevance ranks (see
// docs/BENCHMARKS.md for the judged set that chose it).
const rankCandidates = 1000

// docWeights are bm25 weights for chat_fts's columns: metadata (scored from chats_fts, where the
// documents are short, with metaWeights), then the entry fields as entryWeights, then owner.
const docWeights = "0, 0, 0, 0, " + entryWeights + ", 0"

// useChatDocs reports whether a search can run on the chat documents: it has words, no
// entry-level filter (a chat document cannot tell which entry a word came from), and the index
// is built.
func (p *searchPlan) useChatDocs() bool {
	return p.f.Text != nil && len(p.entryWhere.Conds) == 0 && len(query.PositiveTerms(p.f.Text, nil)) > 0
}

// docColumns are the chat_fts columns a plan searches.
func (p *searchPlan) docColumns() []string {
	var cols []string
	if p.useMeta {
		if p.metaCols == nil {
			cols = append(cols, chatDocColumns[:4]...)
		} else {
			cols = append(cols, p.metaCols...)
		}
	}
	if p.useEntries {
		if p.entryCols == nil {
			cols = append(cols, chatDocColumns[4:]...)
		} else {
			cols = append(cols, p.entryCols...)
		}
	}
	return cols
}

// docHit is a ranked chat of the page, before its snippets.
type docHit struct {
	pk  int64
	hit annals.ChatHit
}

// searchChatDocs is SearchChats on the chat documents, in one read transaction.
func (db *DB) searchChatDocs(ctx context.Context, tx queryer, p *searchPlan, limit int) ([]annals.ChatHit, int, error) {
	f := p.f
	if !f.Chat.Owner.AllTenants && f.Chat.Owner.TenantID == "" {
		// The zero owner matches nothing (as in SQL, where AddOwner writes 1 = 0); said here too,
		// because the index-only count has no SQL owner condition to fail closed on.
		return []annals.ChatHit{}, 0, nil
	}
	expanded := map[*annals.TextExpr]*annals.TextExpr{}
	text, capped, err := db.expandPrefixes(ctx, tx, f.Text, expanded)
	if err != nil {
		return nil, 0, err
	}
	w, small, err := db.planWalk(ctx, tx, p, text)
	if err != nil {
		return nil, 0, err
	}
	w.inMatch = w.inMatch && !db.walkReadsChats
	cw, err := chatWhere(f.Chat)
	if err != nil {
		return nil, 0, err
	}
	// The positive terms as the query states them, each expanded: the snippets count how many of
	// them an entry matches, however many words a prefix stands for.
	pos := query.PositiveTerms(f.Text, nil)
	for i, t := range pos {
		if x, ok := expanded[t]; ok {
			pos[i] = x
		}
	}
	capN := rankCandidates
	if db.candidates > 0 {
		capN = db.candidates
	}
	k := max(capN, f.Offset+limit)
	if f.Sort == annals.SortRecent {
		k = f.Offset + limit
	}
	page, n, err := db.rankChatDocs(ctx, tx, p, w, cw, pos, k, limit)
	if err != nil {
		return nil, 0, err
	}
	total := n.short + n.long
	switch {
	case n.short < k:
	case f.Sort != annals.SortRecent && len(page) > 0 && hasPhrase(text):
		// More matches than candidates, and counting them would check the phrase's positions in
		// every document that holds its words, again (bm25 did it once): a second full pass,
		// 40% of a phrase search of common words at 1M entries. The candidates are the total's
		// lower bound, as an entry-level search says when it stops after its page.
		annals.SearchReportFrom(ctx).SetTotalAtLeast()
	case capped && f.Sort != annals.SortRecent && len(page) > 0:
		// A prefix searched as its most frequent words only, by relevance: the page is partial
		// already, and an exact count of the chats holding those words (not the prefix's) would
		// read every posting of 64 words again (6 ms of `re*`'s 67 at 1M). The candidates ranked
		// are the lower bound. Newest first saw only the page, so it still counts, as a phrase.
		annals.SearchReportFrom(ctx).SetTotalAtLeast()
	default:
		if total, err = countChatDocs(ctx, tx, small, f.Chat); err != nil {
			return nil, 0, err
		}
		total += n.long
	}
	conj := isConjunction(f.Text) // its expansion (text) is one too, term for term
	if p.useEntries && len(page) > 0 && !f.OrderOnly {
		if err := pageHits(ctx, tx, p, pos, pageHow{conj: conj, narrow: !db.allPageWords, rows: db.pageRows}, page); err != nil {
			return nil, 0, err
		}
	}
	hits := make([]annals.ChatHit, len(page))
	for i := range page {
		hits[i] = page[i].hit
	}
	if storecore.MatchCountDiffers(text, false) && !conj && !f.OrderOnly {
		if err := recountMatches(ctx, tx, p, text, cw, hits); err != nil {
			return nil, 0, err
		}
	}
	return hits, total, n.skipped.Err()
}

// candCounts are how many chats of one document the walk took (at most the candidates asked
// for) and how many long chats match, both through the chat filters.
type candCounts struct {
	short, long int
	skipped     *annals.RowSkipper
}

// docWalk is the scored walk of a search over the chat index: its MATCH (walkMatch), its score
// expression, the long chats that match (longJSON), how many long-chat documents there are, and
// whether the MATCH holds the whole chat filter (matchFilters).
type docWalk struct {
	match, score, longs string
	scoreArgs           []any // score's arguments (the phrases' counts, rankScore)
	longDocs            int
	inMatch             bool
}

// planWalk prepares the walk of a search for text (expanded), and the MATCH of its chats of one
// document alone (chatDocMatch), which counts them.
func (db *DB) planWalk(ctx context.Context, tx queryer, p *searchPlan, text *annals.TextExpr) (*docWalk, string, error) {
	cols := p.docColumns()
	mcols := cols
	if slices.Equal(cols, chatDocColumns) && !mayMatchOwner(text) {
		// Every column but owner, and no word the owner column holds: the same matches without
		// the column filter, which FTS5 applies to every position list it reads (12–17% of a
		// common-term or two-term search's CPU at 1M entries).
		mcols = nil
	}
	match, err := ftsCompile(text, mcols)
	if err != nil {
		return nil, "", err
	}
	body, twice, err := walkBody(text, match, mcols)
	if err != nil {
		return nil, "", err
	}
	longs, longDocs, err := longChats(ctx, tx, text, cols, p.f.Chat)
	if err != nil {
		return nil, "", err
	}
	inMatch, err := matchFilters(p.f.Chat)
	if err != nil {
		return nil, "", err
	}
	w := &docWalk{match: walkMatch(body, p.f.Chat), longs: longJSON(longs), longDocs: longDocs, score: "NULL", inMatch: inMatch}
	if p.useEntries && p.f.Sort != annals.SortRecent {
		if w.score, w.scoreArgs, err = db.rankScore(ctx, tx, chatDocRank, w.match, docWeights); err != nil {
			return nil, "", err
		}
		if twice {
			// The walk's MATCH holds every positive phrase twice (the query's and anyQ's), and
			// bm25 sums over the phrases of the MATCH, whichever side matched.
			w.score += " / 2"
		}
	}
	return w, chatDocMatch(match, p.f.Chat), nil
}

// walkBody is the walk's MATCH before the owner narrowing (walkMatch): the query's own
// documents and, when the query is not a plain disjunction (so that a long chat may hold it
// across blocks), the long chats' documents, "multi" in the owner column (search_blocks.go).
// twice says whether a phrase of the query is in it twice.
//
// The score sums over the phrases of the MATCH (and bm25 counted each occurrence's documents
// with a pass over the whole index), so a phrase should be there once. For an AND of items (a b -c), each item
// admits the long chats' documents itself: (a OR multi) AND (b OR multi) NOT (c NOT multi) is
// the query on every other document and every long-chat document (the walk reserves room for
// all of them; which long chats match is decided over their blocks, longChats). Anything else
// (an OR of ANDs) is the query OR (any of its positive terms AND multi): twice.
func walkBody(text *annals.TextExpr, match string, cols []string) (string, bool, error) {
	const multi = `owner : "multi"`
	if storecore.IsDisjunction(text) {
		return match, false, nil
	}
	if text.Op != annals.TextAnd {
		anyQ, err := ftsCompile(anyOf(query.PositiveTerms(text, nil)), cols)
		if err != nil {
			return "", false, err
		}
		return "((" + match + ") OR ((" + anyQ + ") AND " + multi + "))", true, nil
	}
	var pos, neg []string
	for _, it := range text.Items {
		x := it
		if it.Op == annals.TextNot {
			x = it.Items[0]
		}
		m, err := ftsCompile(x, cols)
		if err != nil {
			return "", false, err
		}
		if it.Op == annals.TextNot {
			neg = append(neg, "(("+m+") NOT "+multi+")")
		} else {
			pos = append(pos, "(("+m+") OR "+multi+")")
		}
	}
	if len(pos) == 0 {
		return "", false, errOnlyExclusions()
	}
	// FTS5's operators are left-associative: a chain of them does not deepen its parser's stack.
	return "(" + strings.Join(append([]string{strings.Join(pos, " AND ")}, neg...), " NOT ") + ")", false, nil
}

// candidates is step 1: the k newest matching chats, through the chat filters. The walk reads
// the matching documents from the highest rowid down: every long chat's sealed blocks, then the
// heads newest first, as far as k heads of chats of one document beyond the long chats'
// documents. A long chat counts if it holds the query over its blocks (w.longs), scored by its
// best document the walk met; one the walk did not reach is older than the k-th candidate.
//
// When the MATCH holds the whole chat filter (owner and archived state, w.inMatch), the walk
// reads no chat row: a document's chat is its chat_docs or chat_blocks row (5% of a one-word
// search's work at 1M entries was reading the 1,010 walked chats' rows to check what the MATCH
// had checked).
func candidates(w *docWalk, cw *where, k int) ([]string, []any) {
	args := append(slices.Clone(w.scoreArgs), w.match)
	walk := `walk(k, bb, pk, long) AS MATERIALIZED (SELECT chat_fts.rowid, ` + w.score + `, c.pk,
			b.doc IS NOT NULL OR EXISTS (SELECT 1 FROM chat_blocks x WHERE x.chat_pk = c.pk)
		FROM chat_fts LEFT JOIN chat_docs d ON d.doc = chat_fts.rowid LEFT JOIN chat_blocks b ON b.doc = chat_fts.rowid CROSS JOIN chats c
		WHERE chat_fts MATCH ? AND c.pk = coalesce(d.chat_pk, b.chat_pk) AND ` + cw.SQL() + `
		ORDER BY chat_fts.rowid DESC LIMIT ?)`
	if w.inMatch {
		walk = `walk(k, bb, pk, long) AS MATERIALIZED (SELECT chat_fts.rowid, ` + w.score + `, coalesce(d.chat_pk, b.chat_pk),
			b.doc IS NOT NULL OR EXISTS (SELECT 1 FROM chat_blocks x WHERE x.chat_pk = d.chat_pk)
		FROM chat_fts LEFT JOIN chat_docs d ON d.doc = chat_fts.rowid LEFT JOIN chat_blocks b ON b.doc = chat_fts.rowid
		WHERE chat_fts MATCH ? AND coalesce(d.chat_pk, b.chat_pk) IS NOT NULL
		ORDER BY chat_fts.rowid DESC LIMIT ?)`
	} else {
		args = append(args, cw.Args...)
	}
	args = append(args, k+w.longDocs, k, w.longs)
	args = append(args, cw.Args...)
	args = append(args, k)
	return []string{walk,
		`short(pk, bb, k) AS MATERIALIZED (SELECT pk, bb, k FROM walk WHERE NOT long ORDER BY k DESC LIMIT ?)`,
		`lb(pk, bb) AS MATERIALIZED (SELECT pk, min(bb) FROM walk WHERE long GROUP BY pk)`,
		`long(pk, bb, k) AS MATERIALIZED (SELECT c.pk, lb.bb, d.doc FROM json_each(?) j CROSS JOIN chats c CROSS JOIN chat_docs d
			LEFT JOIN lb ON lb.pk = c.pk WHERE c.pk = j.value AND d.chat_pk = c.pk AND ` + cw.SQL() + `)`,
		`cand(pk, bb) AS MATERIALIZED (SELECT pk, bb FROM (SELECT pk, bb, k FROM short UNION ALL SELECT pk, bb, k FROM long) ORDER BY k DESC LIMIT ?)`}, args
}

// rankChatDocs is steps 1 and 2: the page of chats and how many candidates there were.
func (db *DB) rankChatDocs(ctx context.Context, tx queryer, p *searchPlan, w *docWalk, cw *where, pos []*annals.TextExpr, k, limit int) ([]docHit, candCounts, error) {
	f := p.f
	with, args := candidates(w, cw, k)
	from := `(SELECT pk, bb, NULL AS mb FROM cand) r`
	if p.useMeta {
		metaAny, err := ftsCompile(anyOf(pos), p.metaCols)
		if err != nil {
			return nil, candCounts{}, err
		}
		// The unary + keeps the candidate list from being handed to FTS5 as one lookup each.
		with = append(with, `meta(pk, mb) AS MATERIALIZED (SELECT rowid, bm25(chats_fts, `+metaWeights+`) FROM chats_fts
			WHERE chats_fts MATCH ? AND +rowid IN (SELECT pk FROM cand))`)
		args = append(args, metaAny)
		from = `(SELECT r.pk AS pk, r.bb AS bb, m.mb AS mb FROM cand r LEFT JOIN meta m ON m.pk = r.pk) r`
	}
	// The same blend as the entry-level ranking (SearchChats), with the chat document's bm25 (a
	// long chat's best block's) in place of the best entry's; the number of matching entries is
	// not known before the page.
	now := float64(unixNano(db.now()))
	score := fmt.Sprintf(`((coalesce(-r.bb, 0) + coalesce(-r.mb, 0) + (r.mb IS NOT NULL) * %g)
		* (1.0 + %g / (1.0 + max(0.0, (? - c.last_activity) / 86400e9) / %g)))`, metaMatchBonus, recencyBonus, recencyHalfLifeDays)
	order := "score DESC, c.last_activity DESC, c.id"
	if f.Sort == annals.SortRecent {
		order = "c.last_activity DESC, c.id"
	}
	q := "WITH " + strings.Join(with, ", ") + `, page AS MATERIALIZED (SELECT c.pk AS pk, ` + score + ` AS score
		FROM ` + from + ` JOIN chats c ON c.pk = r.pk ORDER BY ` + order + ` LIMIT ? OFFSET ?)
		SELECT ` + chatColumns + `, c.pk, p.score, (SELECT count(*) FROM short), (SELECT count(*) FROM long)
		FROM page p JOIN chats c ON c.pk = p.pk ORDER BY ` + strings.ReplaceAll(order, "score", "p.score")
	args = append(args, now, limit, f.Offset)
	annals.TraceStatement(ctx, q, args)
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, candCounts{}, ftsErr("search chats", err)
	}
	defer rows.Close()
	page, n, err := scanDocHits(rows)
	if err != nil || len(page) > 0 || f.Offset == 0 {
		return page, n, err
	}
	// Past the end the page carries no counts: the long chats are counted, and the others
	// counted afresh (as if the walk had been cut short).
	n.short = k
	lw, ls := candidates(w, cw, k)
	cq := "WITH " + strings.Join(lw, ", ") + " SELECT count(*) FROM long"
	annals.TraceStatement(ctx, cq, ls)
	err = tx.QueryRowContext(ctx, cq, ls...).Scan(&n.long)
	return page, n, ftsErr("count search", err)
}

// scanDocHits reads the page rows of rankChatDocs; a chat that cannot be read is skipped and
// the rest of the page served.
func scanDocHits(rows *sql.Rows) ([]docHit, candCounts, error) {
	var page []docHit
	n := candCounts{skipped: &annals.RowSkipper{}}
	for rows.Next() {
		var h docHit
		c, err := scanChat(suffixScanner{rows: rows, extra: []any{&h.pk, &h.hit.Score, &n.short, &n.long}})
		if re, ok := err.(*rowError); ok {
			n.skipped.Skip(re.id, re.err)
			continue
		}
		if err != nil {
			return nil, n, storeErr("scan search hit", err)
		}
		h.hit.Chat = c
		page = append(page, h)
	}
	return page, n, ftsErr("search chats", rows.Err())
}

// countChatDocs is the exact number of matching chats when the candidates did not hold them all.
// With no chat filter beyond the owner and the archived state, both inside the MATCH, it is a
// count of the index's matches, no row read; otherwise each match is checked against the chat.
func countChatDocs(ctx context.Context, tx queryer, match string, cf annals.ChatFilter) (int, error) {
	inMatch, err := matchFilters(cf)
	if err != nil {
		return 0, err
	}
	q := `SELECT count(*) FROM chat_fts WHERE chat_fts MATCH ?`
	args := []any{match}
	if !inMatch {
		cw, err := chatWhere(cf)
		if err != nil {
			return 0, err
		}
		q = `SELECT count(*) FROM chat_fts CROSS JOIN chat_docs d CROSS JOIN chats c
			WHERE chat_fts MATCH ? AND d.doc = chat_fts.rowid AND c.pk = d.chat_pk AND ` + cw.SQL()
		args = append(args, cw.Args...)
	}
	annals.TraceStatement(ctx, q, args)
	var total int
	if err := tx.QueryRowContext(ctx, q, args...).Scan(&total); err != nil {
		return 0, ftsErr("count search", err)
	}
	return total, nil
}

// matchFilters reports whether the chat index's MATCH holds all of chat filter cf: it has no
// condition beyond the owner and the archived state, which are owner tokens in the MATCH
// (ownerMatch).
func matchFilters(cf annals.ChatFilter) (bool, error) {
	rest := cf
	rest.Owner, rest.IncludeArchived = annals.Owner{AllTenants: true}, true
	rw, err := chatWhere(rest)
	if err != nil {
		return false, err
	}
	return len(rw.Conds) == 0, nil
}

// mayMatchOwner reports whether a query could match a token of chat_fts's owner column (see
// ownerMatch) if it were not held to the text columns: a word "archived" or "multi", a t, u or
// a followed by an even number of hex digits (each a word of its own, as the tokenizer splits a
// query word at punctuation), a prefix, or a word with letters beyond ASCII (which the tokenizer
// may fold into one of those).
func mayMatchOwner(e *annals.TextExpr) bool {
	if e == nil {
		return false
	}
	if e.Op != annals.TextTerm {
		return slices.ContainsFunc(e.Items, mayMatchOwner)
	}
	if e.Prefix {
		return true
	}
	for _, t := range e.Tokens {
		for i := 0; i < len(t); i++ {
			if t[i] >= 0x80 {
				return true
			}
		}
		notAlnum := func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }
		if slices.ContainsFunc(strings.FieldsFunc(strings.ToLower(t), notAlnum), ownerToken) {
			return true
		}
	}
	return false
}

// ownerToken reports whether w (lower case) is of the form of an owner column token. The
// tenant, user and agent are written as the hex of their bytes (ownerTokens, ownerMatch): two
// digits a byte, so a word of an odd number of digits after its letter, such as "te" (one of
// te*'s words), is none of them and is searched without the column filter (3 of te*'s 20 ms walk
// at 1M entries).
func ownerToken(w string) bool {
	if w == "archived" || w == "multi" {
		return true
	}
	digits := w[1:]
	return strings.IndexByte("tua", w[0]) >= 0 && len(digits)%2 == 0 && strings.Trim(digits, "0123456789abcdef") == ""
}

// hasPhrase reports whether e holds a term of more than one token (a quoted phrase, or a word
// with punctuation inside such as emag.ro): matching it checks positions, not only doclists.
func hasPhrase(e *annals.TextExpr) bool {
	if e == nil {
		return false
	}
	if e.Op == annals.TextTerm {
		return len(e.Tokens) > 1
	}
	return slices.ContainsFunc(e.Items, hasPhrase)
}
