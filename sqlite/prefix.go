package sqlite

import (
	"context"
	"strings"
	"sync"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// expandPrefixes replaces each prefix term of e with the OR of the chat index's words that start
// with it (storecore.ExpandPrefixes over migration 0015's vocabulary). The words come from the
// chat index, which holds every word of every entry and chat of every tenant (so the expansions
// say AllTenants). tx is one read transaction: the words are the ones of its snapshot. capped
// says some prefix stood for more words than it was searched as (the page is partial), by the
// same rule the expansion applies (storecore.PrefixCapped).
func (db *DB) expandPrefixes(ctx context.Context, tx queryer, e *annals.TextExpr, done map[*annals.TextExpr]*annals.TextExpr) (x *annals.TextExpr, capped bool, err error) {
	var version *string // read once, at the first prefix
	x, err = storecore.ExpandPrefixes(ctx, func(ctx context.Context, prefix string, limit int) ([]storecore.VocabWord, error) {
		if version == nil {
			v, err := chatIndexVersion(ctx, tx)
			if err != nil {
				return nil, err
			}
			version = &v
		}
		words, err := db.vocab.words(*version, prefix, limit, func() ([]storecore.VocabWord, error) {
			return prefixWords(ctx, tx, prefix, limit)
		})
		capped = capped || (err == nil && storecore.PrefixCapped(len(words)))
		return words, err
	}, true, e, done)
	return x, capped, err
}

// vocabCache keeps the chat index's vocabulary reads (prefixWords) for the index as it is now.
// Reading a prefix's words walks the whole doclist of each of up to MaxPrefixScan words of every
// tenant (fts5vocab counts each word's documents by column): 32 ms of CPU for re* at 1M entries,
// a third of a 1% tenant's search for it, whatever the tenant's share (issue 33 item 3). The
// words are a function of the index's content, so they are kept until the index changes
// (chatIndexVersion), and read again for the first search after any write to it, in this
// process or another. Any owner may read an entry: the words are every
// tenant's in any case, and the history withholds them from callers who may not read every
// tenant (annals.PrefixExpansion.AllTenants).
type vocabCache struct {
	mu      sync.Mutex
	version string
	kept    map[vocabKey][]storecore.VocabWord
	reads   int // vocabulary reads (misses), for the tests
}

type vocabKey struct {
	prefix string
	limit  int
}

// maxVocabPrefixes bounds the prefixes kept for one version of the index (each at most
// MaxPrefixScan+1 words): search-as-you-type asks a few prefixes a word.
const maxVocabPrefixes = 64

// words returns the words of prefix for the index at version, from read on a miss. The slice is
// shared: callers must not change it (storecore.PickPrefixWords sorts a copy).
func (c *vocabCache) words(version, prefix string, limit int, read func() ([]storecore.VocabWord, error)) ([]storecore.VocabWord, error) {
	k := vocabKey{prefix, limit}
	c.mu.Lock()
	if c.version == version {
		if w, ok := c.kept[k]; ok {
			c.mu.Unlock()
			return w, nil
		}
		if w, ok := c.narrow(k); ok {
			if len(c.kept) < maxVocabPrefixes {
				c.kept[k] = w
			}
			c.mu.Unlock()
			return w, nil
		}
	}
	c.reads++
	c.mu.Unlock()
	w, err := read()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kept == nil || c.version != version || len(c.kept) >= maxVocabPrefixes {
		// A newer version replaces the older (a search of an older snapshot still running then
		// reads its own words and keeps them no longer than the next search of the newer).
		c.version, c.kept = version, map[vocabKey][]storecore.VocabWord{}
	}
	c.kept[k] = w
	return w, nil
}

// narrow answers k from a kept read of a shorter prefix of it that reached the end of its words
// (fewer than its limit): k's words are those of them that start with k's prefix, in the same
// byte order with the same counts, as search-as-you-type asks con*, conn*, conne*. c.mu is held.
func (c *vocabCache) narrow(k vocabKey) ([]storecore.VocabWord, bool) {
	for kk, w := range c.kept {
		if len(w) >= kk.limit || kk.limit < k.limit || !strings.HasPrefix(k.prefix, kk.prefix) {
			continue
		}
		var out []storecore.VocabWord
		for _, x := range w {
			if strings.HasPrefix(x.Word, k.prefix) {
				out = append(out, x)
			}
		}
		if len(out) > k.limit {
			out = out[:k.limit]
		}
		return out, true
	}
	return nil, false
}

// chatIndexVersion is the chat index's version as tx sees it: its structure record, which FTS5
// rewrites when it writes a segment or merges, and its averages record (the documents and tokens
// per column), which every insert and delete changes. "" for an index never written.
func chatIndexVersion(ctx context.Context, tx queryer) (string, error) {
	var structure, averages []byte
	err := tx.QueryRowContext(ctx, `SELECT (SELECT block FROM chat_fts_data WHERE id = 10), (SELECT block FROM chat_fts_data WHERE id = 1)`).Scan(&structure, &averages)
	if err != nil {
		return "", storeErr("read the chat index's version", err)
	}
	return string(structure) + "/" + string(averages), nil
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
