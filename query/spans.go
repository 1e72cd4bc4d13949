package query

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// Where a query's words are in a text: the token spans of the text, split by the rules the
// index was built with (Tokenize), and the occurrences of a query's positive terms among them.
// PostgreSQL builds its snippets from them, and the terminal browser highlights the matched
// words of an entry with them, so every highlighted span is a real index match.

// Span is one token of a text: its byte range [Start, End) and its lexeme (the token folded as
// the index holds it).
type Span struct {
	Start, End int
	Lexeme     string
}

// Match is one occurrence of a term: tokens First..Last (inclusive) of the spans, and which term.
type Match struct {
	First, Last, Term int
}

var (
	classMu    sync.RWMutex
	classCache = map[rune]uint8{}
)

// Rune classes, decided by Tokenize itself so the spans always agree with it.
const (
	classSeparator = iota
	classToken
	classDiacritic // continues a token, never starts one
)

func runeClass(r rune) uint8 {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return classToken
		}
		return classSeparator
	}
	classMu.RLock()
	c, ok := classCache[r]
	classMu.RUnlock()
	if ok {
		return c
	}
	c = classSeparator
	if len(Tokenize(string(r))) == 1 {
		c = classToken
	} else if toks := Tokenize("a" + string(r)); len(toks) == 1 && toks[0] != "a" {
		c = classDiacritic
	}
	classMu.Lock()
	classCache[r] = c
	classMu.Unlock()
	return c
}

// Spans splits s like Tokenize, keeping each token's byte range; lexeme folds a token (Fold, or
// an engine's form of it). The words of a redaction placeholder get an empty lexeme, which
// matches no term, as the index holds them (IndexText), so a placeholder is never a match.
func Spans(s string, lexeme func(string) string) []Span {
	var out []Span
	var holders [][2]int
	if HasPlaceholder(s) {
		holders = PlaceholderSpans(s)
	}
	add := func(start, end int) {
		lex := lexeme(s[start:end])
		for len(holders) > 0 && holders[0][1] <= start {
			holders = holders[1:]
		}
		if len(holders) > 0 && holders[0][0] <= start {
			lex = "" // matches no term
		}
		out = append(out, Span{Start: start, End: end, Lexeme: lex})
	}
	start := -1
	for i, r := range s {
		c := runeClass(r)
		switch {
		case c == classToken, start >= 0 && c == classDiacritic:
			if start < 0 {
				start = i
			}
		case start >= 0:
			add(start, i)
			start = -1
		}
	}
	if start >= 0 {
		add(start, len(s))
	}
	return out
}

// Terms are positive query terms (PositiveTerms) as lexemes, ready to be found in spans.
type Terms []termLexemes

type termLexemes struct {
	lex    []string
	prefix bool
}

// NewTerms turns positive query terms into lexemes with lexeme (the same function given to
// Spans); terms without tokens are left out.
func NewTerms(terms []*annals.TextExpr, lexeme func(string) string) Terms {
	out := make(Terms, 0, len(terms))
	for _, t := range terms {
		if len(t.Tokens) == 0 {
			continue
		}
		st := termLexemes{prefix: t.Prefix}
		for _, tok := range t.Tokens {
			st.lex = append(st.lex, lexeme(tok))
		}
		out = append(out, st)
	}
	return out
}

// Find returns every occurrence of the terms in spans, in span order: a phrase matches its tokens
// in a row, a prefix term's last token as a prefix.
func (terms Terms) Find(spans []Span) []Match {
	var out []Match
	for i := range spans {
		for ti, t := range terms {
			if i+len(t.lex) > len(spans) {
				continue
			}
			ok := true
			for k, l := range t.lex {
				got := spans[i+k].Lexeme
				if k == len(t.lex)-1 && t.prefix {
					ok = got != "" && strings.HasPrefix(got, l)
				} else {
					ok = got == l
				}
				if !ok {
					break
				}
			}
			if ok {
				out = append(out, Match{First: i, Last: i + len(t.lex) - 1, Term: ti})
			}
		}
	}
	return out
}

// Ranges returns the byte ranges [a, b) of s that the terms match, in order, overlapping ones
// merged: what to highlight.
func (terms Terms) Ranges(s string, lexeme func(string) string) [][2]int {
	if len(terms) == 0 || s == "" {
		return nil
	}
	spans := Spans(s, lexeme)
	var out [][2]int
	for _, m := range terms.Find(spans) {
		r := [2]int{spans[m.First].Start, spans[m.Last].End}
		if n := len(out); n > 0 && r[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}
