package sqlite

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// Prefix terms (migrat*) are searched as the OR of the words of the chat index that start with
// them (migration 0008's vocabulary), never as an FTS5 prefix query: FTS5 answers a prefix by
// merging the doclists of every word with it, again for every cursor, so a short prefix (re*)
// used to cost seconds at 1M entries. A prefix standing for more than maxPrefixWords words is
// searched as its maxPrefixWords most frequent ones, and the search says so (the page is
// partial); the vocabulary walk itself reads at most maxPrefixScan words.
const (
	maxPrefixWords = 64
	maxPrefixScan  = 2000
)

// expandPrefixes returns e with each prefix term replaced by the OR of the words of the chat
// index that start with it. A phrase with a prefix ("emag r"*) becomes the OR of the phrases
// ending in each word. The words come from the chat index, which holds every word of every
// entry and chat, so an expansion that is not capped finds exactly what the prefix finds. Each
// expansion is reported to the search report of ctx.
//
// done maps each term of e to its expansion, so a caller can expand a subtree (a positive term)
// the same way without reading the vocabulary again.
func expandPrefixes(ctx context.Context, tx queryer, e *annals.TextExpr, done map[*annals.TextExpr]*annals.TextExpr) (*annals.TextExpr, error) {
	if e == nil {
		return nil, nil
	}
	if x, ok := done[e]; ok {
		return x, nil
	}
	if e.Op != annals.TextTerm {
		out := &annals.TextExpr{Op: e.Op, Items: make([]*annals.TextExpr, len(e.Items))}
		for i, it := range e.Items {
			x, err := expandPrefixes(ctx, tx, it, done)
			if err != nil {
				return nil, err
			}
			out.Items[i] = x
		}
		return out, nil
	}
	if !e.Prefix || len(e.Tokens) == 0 {
		return e, nil
	}
	last := query.Fold(e.Tokens[len(e.Tokens)-1])
	x, err := prefixWords(ctx, tx, last)
	if err != nil {
		return nil, err
	}
	x.Prefix = strings.Join(e.Tokens, " ") + "*"
	annals.SearchReportFrom(ctx).Expanded(x)
	or := &annals.TextExpr{Op: annals.TextOr}
	for _, w := range x.Words {
		toks := append(append([]string{}, e.Tokens[:len(e.Tokens)-1]...), w)
		or.Items = append(or.Items, &annals.TextExpr{Op: annals.TextTerm, Tokens: toks})
	}
	switch len(or.Items) {
	case 0:
		// No word of the index starts with it: the prefix matches nothing, and FTS5 says so
		// as cheaply as anything.
		done[e] = e
	case 1:
		done[e] = or.Items[0]
	default:
		done[e] = or
	}
	return done[e], nil
}

// prefixWords reads the words of the chat index's text columns starting with prefix (at most
// maxPrefixScan+1, in byte order) with their document counts, and keeps the maxPrefixWords most
// frequent. The vocabulary's terms are byte strings; U+10FFFF sorts after every continuation.
func prefixWords(ctx context.Context, tx queryer, prefix string) (annals.PrefixExpansion, error) {
	var x annals.PrefixExpansion
	// One row per word and column (migration 0015); the owner column's rows are skipped, and a
	// word's documents are summed over the other columns (a document holding it in two columns
	// counts twice: an order, not a count of chats).
	rows, err := tx.QueryContext(ctx, `SELECT term, col, doc FROM chat_fts_vocab_col WHERE term >= ? AND term <= ? ORDER BY term`,
		prefix, prefix+"\U0010FFFF")
	if err != nil {
		return x, storeErr("expand prefix", err)
	}
	defer rows.Close()
	type word struct {
		w    string
		docs int
	}
	var words []word
	for rows.Next() {
		var w word
		var col string
		if err := rows.Scan(&w.w, &col, &w.docs); err != nil {
			return x, storeErr("expand prefix", err)
		}
		if col == "owner" {
			continue
		}
		if n := len(words); n > 0 && words[n-1].w == w.w {
			words[n-1].docs += w.docs
			continue
		}
		if len(words) > maxPrefixScan {
			break // one word past the cap says there are more
		}
		words = append(words, w)
	}
	if err := rows.Err(); err != nil {
		return x, storeErr("expand prefix", err)
	}
	x.Scanned = len(words)
	if len(words) > maxPrefixScan {
		words, x.Scanned = words[:maxPrefixScan], maxPrefixScan
	} else {
		x.Vocabulary = len(words)
	}
	if len(words) > maxPrefixWords {
		// The most frequent first; among equals, byte order, so the choice is stable.
		slices.SortStableFunc(words, func(a, b word) int { return cmp.Compare(b.docs, a.docs) })
		words, x.Capped = words[:maxPrefixWords], true
	}
	if x.Scanned == maxPrefixScan {
		x.Capped = true
	}
	x.Words = make([]string, len(words))
	for i, w := range words {
		x.Words[i], x.Docs = w.w, x.Docs+w.docs
	}
	return x, nil
}
