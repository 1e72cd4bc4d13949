package postgres

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// Snippets are built in Go rather than with ts_headline: ts_headline re-parses the text with a
// text search configuration, whose token rules differ from query.Tokenize (it would not find
// "emag" and "ro" in "emag.ro" the way the index does). Here the text is split by the same rules
// the index was built with, so every highlighted span is a real index match. The shape follows
// SQLite's snippet(): the best field, a window of snippetTokens tokens around the matches,
// ellipses where text was left out, every matched phrase wrapped in the markers.

const snippetTokens = 16

const ellipsis = "…"

// tokenSpan is one token of a text: its byte range and its folded lexeme.
type tokenSpan struct {
	start, end int
	lex        string
}

var (
	classMu    sync.RWMutex
	classCache = map[rune]uint8{}
)

// Rune classes, decided by query.Tokenize itself so the spans here always agree with it.
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
	if len(query.Tokenize(string(r))) == 1 {
		c = classToken
	} else if toks := query.Tokenize("a" + string(r)); len(toks) == 1 && toks[0] != "a" {
		c = classDiacritic
	}
	classMu.Lock()
	classCache[r] = c
	classMu.Unlock()
	return c
}

// tokenSpans splits s like query.Tokenize, keeping each token's byte range. The words of a
// redaction placeholder get the placeholder token as their lexeme, as the index holds them
// (query.IndexText), so a snippet never marks one as a match.
func tokenSpans(s string) []tokenSpan {
	var out []tokenSpan
	var holders [][2]int
	if query.HasPlaceholder(s) {
		holders = query.PlaceholderSpans(s)
	}
	add := func(start, end int) {
		lex := lexeme(s[start:end])
		for len(holders) > 0 && holders[0][1] <= start {
			holders = holders[1:]
		}
		if len(holders) > 0 && holders[0][0] <= start {
			lex = "" // matches no term
		}
		out = append(out, tokenSpan{start: start, end: end, lex: lex})
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

// snipTerm is a positive query term as lexemes.
type snipTerm struct {
	lex    []string
	prefix bool
}

func snipTerms(terms []*annals.TextExpr) []snipTerm {
	out := make([]snipTerm, 0, len(terms))
	for _, t := range terms {
		if len(t.Tokens) == 0 {
			continue
		}
		st := snipTerm{prefix: t.Prefix}
		for _, tok := range t.Tokens {
			st.lex = append(st.lex, lexeme(tok))
		}
		out = append(out, st)
	}
	return out
}

// snipMatch is one occurrence of a term: tokens first..last.
type snipMatch struct {
	first, last, term int
}

func findMatches(spans []tokenSpan, terms []snipTerm) []snipMatch {
	var out []snipMatch
	for i := range spans {
		for ti, t := range terms {
			if i+len(t.lex) > len(spans) {
				continue
			}
			ok := true
			for k, l := range t.lex {
				got := spans[i+k].lex
				if k == len(t.lex)-1 && t.prefix {
					ok = strings.HasPrefix(got, l)
				} else {
					ok = got == l
				}
				if !ok {
					break
				}
			}
			if ok {
				out = append(out, snipMatch{first: i, last: i + len(t.lex) - 1, term: ti})
			}
		}
	}
	return out
}

func distinctTerms(ms []snipMatch) int {
	seen := map[int]bool{}
	for _, m := range ms {
		seen[m.term] = true
	}
	return len(seen)
}

// buildSnippet picks the field with the most distinct matched terms (the first on a tie) and
// returns a window of it with the matches highlighted. With no match anywhere (a query that
// only matched through a token beyond PostgreSQL's position limits, say), it returns the start
// of the first non-empty field unhighlighted.
func buildSnippet(fields []string, terms []*annals.TextExpr, open, shut string) string {
	st := snipTerms(terms)
	best, bestScore := -1, 0
	var bestSpans []tokenSpan
	var bestMatches []snipMatch
	for i, f := range fields {
		if f == "" {
			continue
		}
		spans := tokenSpans(f)
		ms := findMatches(spans, st)
		if score := distinctTerms(ms); score > bestScore {
			best, bestScore, bestSpans, bestMatches = i, score, spans, ms
		}
	}
	if best < 0 {
		for _, f := range fields {
			if f != "" {
				spans := tokenSpans(f)
				return window(f, spans, nil, 0, min(len(spans), snippetTokens), open, shut)
			}
		}
		return ""
	}
	// The window start that covers the most distinct terms, earliest first.
	start, score := 0, -1
	for _, m := range bestMatches {
		var in []snipMatch
		for _, o := range bestMatches {
			if o.first >= m.first && o.last < m.first+snippetTokens {
				in = append(in, o)
			}
		}
		if d := distinctTerms(in); d > score {
			start, score = m.first, d
		}
	}
	// Centre the matches inside the window.
	lastTok := start
	for _, o := range bestMatches {
		if o.first >= start && o.last < start+snippetTokens && o.last > lastTok {
			lastTok = o.last
		}
	}
	free := snippetTokens - (lastTok - start + 1)
	start -= free / 2
	start = max(0, min(start, len(bestSpans)-snippetTokens))
	end := min(len(bestSpans), start+snippetTokens)
	return window(fields[best], bestSpans, bestMatches, start, end, open, shut)
}

// window renders tokens [start, end) of text with the matches inside highlighted.
func window(text string, spans []tokenSpan, matches []snipMatch, start, end int, open, shut string) string {
	if len(spans) == 0 || start >= end {
		return ""
	}
	from, to := spans[start].start, spans[end-1].end
	if start == 0 {
		from = 0
	}
	if end == len(spans) {
		to = len(text)
	}
	// Highlight ranges in byte offsets, merged where they overlap.
	type rng struct{ a, b int }
	var hl []rng
	for _, m := range matches {
		if m.first < start || m.last >= end {
			continue
		}
		r := rng{spans[m.first].start, spans[m.last].end}
		merged := false
		for i := range hl {
			if r.a <= hl[i].b && r.b >= hl[i].a {
				hl[i].a, hl[i].b = min(hl[i].a, r.a), max(hl[i].b, r.b)
				merged = true
				break
			}
		}
		if !merged {
			hl = append(hl, r)
		}
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString(ellipsis)
	}
	pos := from
	for pos < to {
		next := to
		var cur *rng
		for i := range hl {
			if hl[i].a >= pos && hl[i].a < next {
				next, cur = hl[i].a, &hl[i]
			}
		}
		b.WriteString(text[pos:next])
		if cur == nil {
			break
		}
		b.WriteString(open)
		b.WriteString(text[cur.a:cur.b])
		b.WriteString(shut)
		pos = cur.b
	}
	if end < len(spans) {
		b.WriteString(ellipsis)
	}
	return b.String()
}
