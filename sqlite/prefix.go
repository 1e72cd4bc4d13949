package sqlite

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// maxPrefixWords is how many words a prefix term may expand into; a prefix shared by more words
// (a short one: "t*") stays a prefix, and FTS5 merges their doclists as it always did.
const maxPrefixWords = 64

// expandPrefixes returns e with each prefix term replaced by the OR of the words of the chat
// index that start with it (migration 0008), so that FTS5 seeks each word's doclist instead of
// merging all of them per cursor. A phrase with a prefix ("emag r"*) becomes the OR of the
// phrases ending in each word. The words come from the chat index, which holds every word of
// every entry and chat, so the expanded query finds exactly what the prefix finds.
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
	words, err := prefixWords(ctx, tx, last)
	if err != nil {
		return nil, err
	}
	done[e] = e
	if len(words) == 0 || len(words) > maxPrefixWords {
		return e, nil
	}
	or := &annals.TextExpr{Op: annals.TextOr}
	for _, w := range words {
		toks := append(append([]string{}, e.Tokens[:len(e.Tokens)-1]...), w)
		or.Items = append(or.Items, &annals.TextExpr{Op: annals.TextTerm, Tokens: toks})
	}
	done[e] = or
	if len(or.Items) == 1 {
		done[e] = or.Items[0]
	}
	return done[e], nil
}

// prefixWords lists up to maxPrefixWords+1 words of the chat index starting with prefix, in
// order. The vocabulary's terms are byte strings; U+10FFFF sorts after every continuation.
func prefixWords(ctx context.Context, tx queryer, prefix string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT term FROM chat_fts_vocab WHERE term >= ? AND term <= ? ORDER BY term LIMIT ?`,
		prefix, prefix+"\U0010FFFF", maxPrefixWords+1)
	if err != nil {
		return nil, storeErr("expand prefix", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, storeErr("expand prefix", err)
		}
		out = append(out, w)
	}
	return out, storeErrOrNil("expand prefix", rows.Err())
}
