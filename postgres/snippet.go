package postgres

import (
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// Snippets are built in Go rather than with ts_headline: ts_headline re-parses the text with a
// text search configuration, whose token rules differ from query.Tokenize (it would not find
// "emag" and "ro" in "emag.ro" the way the index does). Here the text is split by the same rules
// the index was built with (query.Spans), so every highlighted span is a real index match. The shape follows
// SQLite's snippet(): the best field, a window of snippetTokens tokens around the matches,
// ellipses where text was left out, every matched phrase wrapped in the markers.

const snippetTokens = 16

const ellipsis = "…"

func distinctTerms(ms []query.Match) int {
	seen := map[int]bool{}
	for _, m := range ms {
		seen[m.Term] = true
	}
	return len(seen)
}

// buildSnippet picks the field with the most distinct matched terms (the first on a tie) and
// returns a window of it with the matches highlighted. With no match anywhere (a query that
// only matched through a token beyond PostgreSQL's position limits, say), it returns the start
// of the first non-empty field unhighlighted.
func buildSnippet(fields []string, terms []*annals.TextExpr, open, shut string) string {
	st := query.NewTerms(terms, lexeme)
	best, bestScore := -1, 0
	var bestSpans []query.Span
	var bestMatches []query.Match
	for i, f := range fields {
		if f == "" {
			continue
		}
		spans := query.Spans(f, lexeme)
		ms := st.Find(spans)
		if score := distinctTerms(ms); score > bestScore {
			best, bestScore, bestSpans, bestMatches = i, score, spans, ms
		}
	}
	if best < 0 {
		for _, f := range fields {
			if f != "" {
				spans := query.Spans(f, lexeme)
				return window(f, spans, nil, 0, min(len(spans), snippetTokens), open, shut)
			}
		}
		return ""
	}
	// The window start that covers the most distinct terms, earliest first.
	start, score := 0, -1
	for _, m := range bestMatches {
		var in []query.Match
		for _, o := range bestMatches {
			if o.First >= m.First && o.Last < m.First+snippetTokens {
				in = append(in, o)
			}
		}
		if d := distinctTerms(in); d > score {
			start, score = m.First, d
		}
	}
	// Centre the matches inside the window.
	lastTok := start
	for _, o := range bestMatches {
		if o.First >= start && o.Last < start+snippetTokens && o.Last > lastTok {
			lastTok = o.Last
		}
	}
	free := snippetTokens - (lastTok - start + 1)
	start -= free / 2
	start = max(0, min(start, len(bestSpans)-snippetTokens))
	end := min(len(bestSpans), start+snippetTokens)
	return window(fields[best], bestSpans, bestMatches, start, end, open, shut)
}

// window renders tokens [start, end) of text with the matches inside highlighted.
func window(text string, spans []query.Span, matches []query.Match, start, end int, open, shut string) string {
	if len(spans) == 0 || start >= end {
		return ""
	}
	from, to := spans[start].Start, spans[end-1].End
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
		if m.First < start || m.Last >= end {
			continue
		}
		r := rng{spans[m.First].Start, spans[m.Last].End}
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
