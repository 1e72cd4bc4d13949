package sqlite

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// expandPrefixes replaces each prefix term of e with the OR of the chat index's words that start
// with it (storecore.ExpandPrefixes over migration 0015's vocabulary). The words come from the
// chat index, which holds every word of every entry and chat of every tenant (so the expansions
// say AllTenants).
func expandPrefixes(ctx context.Context, tx queryer, e *annals.TextExpr, done map[*annals.TextExpr]*annals.TextExpr) (*annals.TextExpr, error) {
	return storecore.ExpandPrefixes(ctx, func(ctx context.Context, prefix string, limit int) ([]storecore.VocabWord, error) {
		return prefixWords(ctx, tx, prefix, limit)
	}, true, e, done)
}

// prefixWords reads the words of the chat index's text columns starting with prefix (at most
// limit, in byte order) with their document counts. The vocabulary's terms are byte strings;
// U+10FFFF sorts after every continuation.
func prefixWords(ctx context.Context, tx queryer, prefix string, limit int) ([]storecore.VocabWord, error) {
	// One row per word and column (migration 0015); the owner column's rows are skipped, and a
	// word's documents are summed over the other columns (a document holding it in two columns
	// counts twice: an order, not a count of chats).
	rows, err := tx.QueryContext(ctx, `SELECT term, col, doc FROM chat_fts_vocab_col WHERE term >= ? AND term <= ? ORDER BY term`,
		prefix, prefix+"\U0010FFFF")
	if err != nil {
		return nil, storeErr("expand prefix", err)
	}
	defer rows.Close()
	var words []storecore.VocabWord
	for rows.Next() {
		var w storecore.VocabWord
		var col string
		if err := rows.Scan(&w.Word, &col, &w.Docs); err != nil {
			return nil, storeErr("expand prefix", err)
		}
		if col == "owner" {
			continue
		}
		if n := len(words); n > 0 && words[n-1].Word == w.Word {
			words[n-1].Docs += w.Docs
			continue
		}
		if len(words) == limit {
			break
		}
		words = append(words, w)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("expand prefix", err)
	}
	return words, nil
}
