package sqlite

import (
	"fmt"
	"slices"
	"strings"
)

// matchPhrase is one phrase of an FTS5 MATCH expression as FTS5 numbers them (in the order
// they are written): its text as written (quotes, prefix star, initial caret) and the columns
// it is held to (nil: every column).
type matchPhrase struct {
	text string
	cols []string
}

// matchPhrases lists the phrases of an FTS5 MATCH expression over a table of columns cols, in
// FTS5's numbering, following FTS5's grammar: OR binds loosest, then AND, then NOT; a column
// filter (col, {a b}, -{a b}) applies to the phrase or parenthesised expression after its
// colon. Phrases side by side and NEAR groups are refused (an error: the caller then lets
// bm25 count), as FTS5 numbers a phrase of no tokens differently there.
func matchPhrases(match string, cols []string) ([]matchPhrase, error) {
	toks, err := lexMatch(match)
	if err != nil {
		return nil, err
	}
	p := &phraseParser{toks: toks, all: cols}
	if err := p.or(nil); err != nil {
		return nil, err
	}
	if p.i != len(p.toks) {
		return nil, fmt.Errorf("MATCH %q: unexpected %q", match, p.toks[p.i])
	}
	return p.out, nil
}

type phraseParser struct {
	toks []string
	i    int
	all  []string
	out  []matchPhrase
}

func (p *phraseParser) peek(k int) string {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return ""
}

func (p *phraseParser) or(cols []string) error {
	if err := p.and(cols); err != nil {
		return err
	}
	for p.peek(0) == "OR" {
		p.i++
		if err := p.and(cols); err != nil {
			return err
		}
	}
	return nil
}

func (p *phraseParser) and(cols []string) error {
	if err := p.not(cols); err != nil {
		return err
	}
	for p.peek(0) == "AND" {
		p.i++
		if err := p.not(cols); err != nil {
			return err
		}
	}
	return nil
}

func (p *phraseParser) not(cols []string) error {
	if err := p.seq(cols); err != nil {
		return err
	}
	for p.peek(0) == "NOT" {
		p.i++
		if err := p.seq(cols); err != nil {
			return err
		}
	}
	return nil
}

// seq is one item. Items side by side (an implicit AND) are refused: FTS5 leaves a phrase of no
// tokens out of its numbering there, which the parser cannot see; the store writes its ANDs.
func (p *phraseParser) seq(cols []string) error {
	if err := p.item(cols); err != nil {
		return err
	}
	if p.startsItem() {
		return fmt.Errorf("MATCH: %q follows an item without an operator", p.peek(0))
	}
	return nil
}

func (p *phraseParser) startsItem() bool {
	t := p.peek(0)
	switch t {
	case "", ")", "}", ":", ",", "*", "+", "AND", "OR", "NOT":
		return false
	}
	return true
}

// item is a parenthesised expression, a column filter and what it applies to, a NEAR group, or
// a phrase.
func (p *phraseParser) item(cols []string) error {
	t := p.peek(0)
	switch {
	case t == "(":
		p.i++
		if err := p.or(cols); err != nil {
			return err
		}
		return p.expect(")")
	case t == "{" || t == "-" || (isBareword(t) && p.peek(1) == ":"):
		set, err := p.colset()
		if err != nil {
			return err
		}
		if err := p.expect(":"); err != nil {
			return err
		}
		return p.item(intersectCols(cols, set))
	case t == "NEAR" && p.peek(1) == "(":
		// Inside NEAR, too, FTS5 leaves out a phrase of no tokens; the store writes no NEAR.
		return fmt.Errorf("MATCH: NEAR groups are not read")
	}
	return p.phrase(cols)
}

// colset reads a column filter: a column, {columns}, or either after a minus (every column but
// those).
func (p *phraseParser) colset() ([]string, error) {
	minus := false
	if p.peek(0) == "-" {
		minus = true
		p.i++
	}
	var set []string
	if p.peek(0) == "{" {
		p.i++
		for p.peek(0) != "}" {
			if !isBareword(p.peek(0)) {
				return nil, fmt.Errorf("MATCH: column list holds %q", p.peek(0))
			}
			set = append(set, p.toks[p.i])
			p.i++
		}
		p.i++
	} else if isBareword(p.peek(0)) {
		set = append(set, p.toks[p.i])
		p.i++
	} else {
		return nil, fmt.Errorf("MATCH: a column filter holds %q", p.peek(0))
	}
	if minus {
		var rest []string
		for _, c := range p.all {
			if !slices.Contains(set, c) {
				rest = append(rest, c)
			}
		}
		return rest, nil
	}
	return set, nil
}

// phrase reads one phrase: ^, a string or bareword, then any "+ string" and a prefix star.
func (p *phraseParser) phrase(cols []string) error {
	var b strings.Builder
	if p.peek(0) == "^" {
		b.WriteString("^")
		p.i++
	}
	for {
		t := p.peek(0)
		if t == "" || !(strings.HasPrefix(t, `"`) || isBareword(t)) {
			return fmt.Errorf("MATCH: expected a phrase, found %q", t)
		}
		b.WriteString(t)
		p.i++
		if p.peek(0) == "*" {
			b.WriteString("*")
			p.i++
		}
		if p.peek(0) != "+" {
			break
		}
		b.WriteString(" + ")
		p.i++
	}
	p.out = append(p.out, matchPhrase{text: b.String(), cols: cols})
	return nil
}

func (p *phraseParser) expect(t string) error {
	if p.peek(0) != t {
		return fmt.Errorf("MATCH: expected %q, found %q", t, p.peek(0))
	}
	p.i++
	return nil
}

// intersectCols is the columns of an inner filter within an outer one (nil: every column).
func intersectCols(outer, inner []string) []string {
	if outer == nil {
		return inner
	}
	out := []string{}
	for _, c := range inner {
		if slices.Contains(outer, c) {
			out = append(out, c)
		}
	}
	return out
}

// isBareword reports whether a token of lexMatch is a bareword (not a string or punctuation).
func isBareword(t string) bool {
	return t != "" && !strings.ContainsAny(t[:1], `"(){}:*^+-,`)
}

// lexMatch splits an FTS5 MATCH expression into strings (with their quotes), barewords and
// punctuation.
func lexMatch(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.IndexByte(`(){}:*^+-,`, c) >= 0:
			toks = append(toks, s[i:i+1])
			i++
		case c == '"':
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], '"')
				if k < 0 {
					return nil, fmt.Errorf("MATCH %q: unterminated string", s)
				}
				j += k + 1
				if j < len(s) && s[j] == '"' {
					j++
					continue
				}
				break
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			j := i
			for j < len(s) && strings.IndexByte(" \t\n\r(){}:*^+-,\"", s[j]) < 0 {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks, nil
}
