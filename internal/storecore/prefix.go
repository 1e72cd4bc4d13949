package storecore

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// Prefix terms (migrat*) are searched by both stores as the OR of the words of their vocabulary
// that start with them (SQLite: the chat index's fts5vocab; PostgreSQL: chat_vocab), never as
// the engine's own prefix query, which merges the postings of every word with the prefix (a
// short prefix, re*, used to cost seconds at 1M entries). A prefix standing for more than
// MaxPrefixWords words is searched as its MaxPrefixWords most frequent ones, and the search says
// so (the page is partial); the vocabulary walk itself reads at most MaxPrefixScan words.
const (
	MaxPrefixWords = 64
	MaxPrefixScan  = 2000
)

// VocabWord is one word of a store's vocabulary and the documents holding it (an order, not an
// exact count of chats: a store may count a document once per field holding the word).
type VocabWord struct {
	Word string
	Docs int
}

// Vocabulary reads the words of a store's index that start with prefix, in byte order, one row
// per word, at most limit of them (a store reads limit and stops).
type Vocabulary func(ctx context.Context, prefix string, limit int) ([]VocabWord, error)

// ExpandPrefixes returns e with each prefix term replaced by the OR of the vocabulary's words
// that start with it (a single word stands alone). A phrase with a prefix ("emag r"*) becomes the
// OR of the phrases ending in each word. The vocabulary holds every word of the index, so an
// expansion that is not capped finds exactly what the prefix finds; a prefix no word starts
// with stays as it is (it matches nothing, and the engine says so cheaply). Each expansion is
// reported to the search report of ctx.
//
// done maps each term of e to its expansion, so a caller can expand a subtree (a positive term)
// the same way without reading the vocabulary again, and tell the ORs an expansion made (the
// values that are not keys' own nodes) from those of the query.
//
// allTenants says the vocabulary is one for every tenant's chats; each expansion reported says
// so (annals.PrefixExpansion.AllTenants), so the history withholds its words from callers who
// may not read every tenant.
func ExpandPrefixes(ctx context.Context, vocab Vocabulary, allTenants bool, e *annals.TextExpr, done map[*annals.TextExpr]*annals.TextExpr) (*annals.TextExpr, error) {
	return expandPrefixes(ctx, vocab, e, done, expandMode{allTenants: allTenants})
}

// expandMode is how expandPrefixes treats a prefix: cappedOnly leaves a prefix within the cap
// as it is; allTenants marks the reports as read from every tenant's words.
type expandMode struct{ cappedOnly, allTenants bool }

// ExpandCappedPrefixes is ExpandPrefixes for an engine whose own prefix match costs no more than
// the OR of the words (PostgreSQL's GIN merges a prefix's postings into one stream): a prefix
// standing for at most MaxPrefixWords words stays a prefix, which finds exactly those words;
// only a capped one is replaced by its most frequent words. Every expansion is reported.
func ExpandCappedPrefixes(ctx context.Context, vocab Vocabulary, e *annals.TextExpr, done map[*annals.TextExpr]*annals.TextExpr) (*annals.TextExpr, error) {
	return expandPrefixes(ctx, vocab, e, done, expandMode{cappedOnly: true})
}

func expandPrefixes(ctx context.Context, vocab Vocabulary, e *annals.TextExpr, done map[*annals.TextExpr]*annals.TextExpr, mode expandMode) (*annals.TextExpr, error) {
	if e == nil {
		return nil, nil
	}
	if x, ok := done[e]; ok {
		return x, nil
	}
	if e.Op != annals.TextTerm {
		out := &annals.TextExpr{Op: e.Op, Items: make([]*annals.TextExpr, len(e.Items))}
		for i, it := range e.Items {
			x, err := expandPrefixes(ctx, vocab, it, done, mode)
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
	words, err := vocab(ctx, query.Fold(e.Tokens[len(e.Tokens)-1]), MaxPrefixScan+1)
	if err != nil {
		return nil, err
	}
	x := PickPrefixWords(words)
	x.Prefix = strings.Join(e.Tokens, " ") + "*"
	x.AllTenants = mode.allTenants
	annals.SearchReportFrom(ctx).Expanded(x)
	or := &annals.TextExpr{Op: annals.TextOr}
	for _, w := range x.Words {
		toks := append(append([]string{}, e.Tokens[:len(e.Tokens)-1]...), w)
		or.Items = append(or.Items, &annals.TextExpr{Op: annals.TextTerm, Tokens: toks})
	}
	switch {
	case len(or.Items) == 0 || (mode.cappedOnly && !x.Capped):
		done[e] = e
	case len(or.Items) == 1:
		done[e] = or.Items[0]
	default:
		done[e] = or
	}
	return done[e], nil
}

// PrefixCapped reports whether a prefix the vocabulary read n words for (at most
// MaxPrefixScan+1, PickPrefixWords) is searched as fewer words than it stands for: more than
// MaxPrefixWords (a walk that reached MaxPrefixScan is past that too).
func PrefixCapped(n int) bool { return n > MaxPrefixWords }

// PickPrefixWords is the expansion of a prefix from the vocabulary's words starting with it (in
// byte order, at most MaxPrefixScan+1: one past the cap says there are more): the
// MaxPrefixWords most frequent of the first MaxPrefixScan, ties in byte order, so the choice is
// stable and the same on every store.
func PickPrefixWords(words []VocabWord) annals.PrefixExpansion {
	var x annals.PrefixExpansion
	x.Scanned, x.Capped = len(words), PrefixCapped(len(words))
	if len(words) > MaxPrefixScan {
		words, x.Scanned = words[:MaxPrefixScan], MaxPrefixScan
	} else {
		x.Vocabulary = len(words)
	}
	if len(words) > MaxPrefixWords {
		words = slices.Clone(words)
		slices.SortStableFunc(words, func(a, b VocabWord) int { return cmp.Compare(b.Docs, a.Docs) })
		words = words[:MaxPrefixWords]
	}
	x.Words = make([]string, len(words))
	for i, w := range words {
		x.Words[i], x.Docs = w.Word, x.Docs+w.Docs
	}
	return x
}
