package query

import (
	"strings"

	"github.com/annals-dev/annals"
)

// Snippets are built here, in Go, for both stores: PostgreSQL's ts_headline re-parses the text
// with a text search configuration whose token rules differ from Tokenize (it would not find
// "emag" and "ro" in "emag.ro" the way the index does), and SQLite's FTS5 snippet() needs an
// FTS5 cursor of its own per chat (a seek of every term in every segment) only to find where in
// a few entries the terms are. Here the text is split by the rules both indexes are built with
// (Spans), so every highlighted span is a real index match, and the excerpt is chosen the way
// FTS5's snippet() chooses it, so a snippet is the same on either store:
//   - every window of SnippetTokens tokens that starts at a match scores 1000 per distinct term
//     it holds and 1 per repeat, and is then centred on its matches; a window that starts at
//     the beginning of the match's sentence (after "." or ":" and white space) instead scores
//     100 more (120 at the text's start), so a snippet starts a sentence when that costs no
//     term;
//   - the best window of any field wins, the first field and the earliest match on a tie;
//   - overlapping matches are highlighted as one, a match cut by the window's end up to the
//     end, a match that starts before the window not at all; an ellipsis stands where text was
//     left out.

// SnippetTokens is the length of a snippet's window, in tokens.
const SnippetTokens = 16

// Ellipsis marks text a snippet leaves out.
const Ellipsis = "…"

// Snippet returns the excerpt of the best of fields (an entry's fields in the index's column
// order, "" for a field not searched) with terms' matches between open and shut. terms are
// positive query terms (PositiveTerms: an expanded prefix is one term per word, as FTS5 sees
// one phrase per word); lexeme is the one the index's lexemes are made with. With no match in
// any field (a term only matched through a token beyond an engine's limits, say), it returns
// the start of the first non-empty field unhighlighted.
func Snippet(fields []string, terms []*annals.TextExpr, lexeme func(string) string, open, shut string) string {
	st := NewTerms(terms, lexeme)
	best, bestStart, bestScore := -1, 0, 0
	var bestSpans []Span
	var bestMatches []Match
	seen := make([]bool, len(st))
	for i, f := range fields {
		if f == "" {
			continue
		}
		spans := Spans(f, lexeme)
		ms := st.Find(spans)
		if len(ms) == 0 {
			continue
		}
		firsts := sentenceStarts(f, spans)
		for _, m := range ms {
			score, start := windowScore(ms, m.First, len(spans), seen)
			if score > bestScore {
				best, bestStart, bestScore, bestSpans, bestMatches = i, start, score, spans, ms
			}
			if len(spans) <= SnippetTokens {
				continue
			}
			// The start of m's sentence, if it is before m.
			jj := 0
			for jj < len(firsts)-1 && firsts[jj+1] <= m.First {
				jj++
			}
			if s := firsts[jj]; s < m.First {
				score, _ := windowScore(ms, s, len(spans), seen)
				score += 100
				if s == 0 {
					score += 20
				}
				if score > bestScore {
					best, bestStart, bestScore, bestSpans, bestMatches = i, s, score, spans, ms
				}
			}
		}
	}
	if best < 0 {
		for _, f := range fields {
			if f != "" {
				return renderSnippet(f, Spans(f, lexeme), nil, 0, open, shut)
			}
		}
		return ""
	}
	return renderSnippet(fields[best], bestSpans, bestMatches, bestStart, open, shut)
}

// windowScore scores the window of SnippetTokens tokens from token pos of a field of n tokens:
// 1000 per distinct term among the matches that start in it, 1 per repeat. It also returns the
// window's start moved so that those matches are in its middle, kept inside the field.
func windowScore(ms []Match, pos, n int, seen []bool) (score, start int) {
	clear(seen)
	first, last := -1, 0
	for _, m := range ms {
		if m.First < pos || m.First >= pos+SnippetTokens {
			continue
		}
		if seen[m.Term] {
			score++
		} else {
			score += 1000
		}
		seen[m.Term] = true
		if first < 0 {
			first = m.First
		}
		last = m.Last + 1
	}
	start = first - (SnippetTokens-(last-first))/2
	if start+SnippetTokens > n {
		start = n - SnippetTokens
	}
	return score, max(start, 0)
}

// sentenceStarts lists the tokens that start a sentence: the first, and each one preceded by
// white space that follows a "." or a ":".
func sentenceStarts(s string, spans []Span) []int {
	out := []int{0}
	for k := 1; k < len(spans); k++ {
		i := spans[k].Start - 1
		for i >= 0 && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i--
		}
		if i >= 0 && i != spans[k].Start-1 && (s[i] == '.' || s[i] == ':') {
			out = append(out, k)
		}
	}
	return out
}

// renderSnippet writes the window of SnippetTokens tokens from token start of text with the matches
// in it highlighted: overlapping matches as one, a match cut by the window's end up to it, one
// that starts before the window not at all.
func renderSnippet(text string, spans []Span, matches []Match, start int, open, shut string) string {
	if len(spans) == 0 {
		return ""
	}
	last := start + SnippetTokens - 1 // the window's last token
	from, to := 0, len(text)
	if start > 0 {
		from = spans[start].Start
	}
	if last < len(spans)-1 {
		to = spans[last].End
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString(Ellipsis)
	}
	pos := from
	for i := 0; i < len(matches); {
		first, end := matches[i].First, matches[i].Last
		for i++; i < len(matches) && matches[i].First <= end; i++ {
			end = max(end, matches[i].Last)
		}
		if first < start {
			continue
		}
		if first > last {
			break
		}
		a, z := spans[first].Start, spans[min(end, last)].End
		b.WriteString(text[pos:a])
		b.WriteString(open)
		b.WriteString(text[a:z])
		b.WriteString(shut)
		pos = z
	}
	b.WriteString(text[pos:to])
	if last < len(spans)-1 {
		b.WriteString(Ellipsis)
	}
	return b.String()
}
