package redact

import "strings"

// anchor is one literal a rule looks for, with the offset of its pivot: the byte of the literal
// that is searched for with strings.IndexByte (vectorised) before the literal is compared.
type anchor struct {
	lit  string
	off  int
	fold bool // compare ignoring ASCII case
}

// anchorGroup holds the anchors that share a pivot byte, so one IndexByte pass serves them all
// (ghp_, gho_, ghu_, ghs_, ghr_ all pivot on '_').
type anchorGroup struct {
	pivot   byte
	anchors []anchor
}

// anchorSet finds occurrences of a few literals. Searching by each literal's rarest byte keeps
// false hits, and so the cost of a text with no secret, low: that cost is paid on every entry.
type anchorSet []anchorGroup

// newAnchorSet builds a set; with fold the literals (given in lower case) match in any case.
func newAnchorSet(fold bool, lits ...string) anchorSet {
	var set anchorSet
	add := func(pivot byte, a anchor) {
		for i := range set {
			if set[i].pivot == pivot {
				set[i].anchors = append(set[i].anchors, a)
				return
			}
		}
		set = append(set, anchorGroup{pivot: pivot, anchors: []anchor{a}})
	}
	for _, lit := range lits {
		off := rarestByte(lit, fold)
		a := anchor{lit: lit, off: off, fold: fold}
		c := lit[off]
		add(c, a)
		if fold && 'a' <= c && c <= 'z' {
			add(c-('a'-'A'), a)
		}
	}
	return set
}

// each calls fn with the index of every occurrence of an anchor in s. fn returns where the
// search continues, so a rule can skip past what it matched. Occurrences are reported in order
// within a pivot group, not across groups: rules sort their spans (normalize).
func (set anchorSet) each(s string, fn func(i int, lit string) int) {
	for _, g := range set {
		for from := 0; from < len(s); {
			k := strings.IndexByte(s[from:], g.pivot)
			if k < 0 {
				break
			}
			k += from
			next := k + 1
			for _, a := range g.anchors {
				// The first byte is compared inline: most pivot hits are not an anchor.
				if i := k - a.off; i >= 0 && (a.fold || s[i] == a.lit[0]) && a.at(s, i) {
					next = max(next, fn(i, a.lit))
				}
			}
			from = next
		}
	}
}

// contains reports whether any anchor occurs in s.
func (set anchorSet) contains(s string) bool {
	found := false
	set.each(s, func(int, string) int { found = true; return len(s) })
	return found
}

// at reports whether the anchor occurs at s[i:].
func (a anchor) at(s string, i int) bool {
	if i+len(a.lit) > len(s) {
		return false
	}
	if !a.fold {
		return s[i:i+len(a.lit)] == a.lit
	}
	return equalFoldASCII(s[i:i+len(a.lit)], a.lit)
}

// equalFoldASCII compares s with lower, a lower-case ASCII string, ignoring ASCII case only.
func equalFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUpper(c) {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// hasSuffixFold reports whether s ends with lower ignoring ASCII case.
func hasSuffixFold(s, lower string) bool {
	return len(s) >= len(lower) && equalFoldASCII(s[len(s)-len(lower):], lower)
}

// rarestByte picks the pivot of a literal: its least frequent byte in typical transcript text
// (English prose, code, shell output). The first of equally rare bytes wins.
func rarestByte(lit string, fold bool) int {
	best, bestFreq := 0, 1<<30
	for i := 0; i < len(lit); i++ {
		f := byteFreq(lit[i])
		if fold && 'a' <= lit[i] && lit[i] <= 'z' {
			f += byteFreq(lit[i] - ('a' - 'A'))
		}
		if f < bestFreq {
			best, bestFreq = i, f
		}
	}
	return best
}

// byteFreq is a rough frequency (per mille) of a byte in transcript text. Only the order
// matters: it steers the pivot choice, never the result.
func byteFreq(c byte) int {
	const letters = "etaoinsrhldcumwfgypbvkjxqz" // English, most frequent first
	switch {
	case c == ' ':
		return 150
	case 'a' <= c && c <= 'z':
		return 80 - 3*strings.IndexByte(letters, c)
	case 'A' <= c && c <= 'Z':
		return 3
	case '0' <= c && c <= '9':
		return 5
	}
	switch c {
	case '.':
		return 40 // sentences, file names, method calls, version numbers
	case '\n', ',', '"':
		return 15
	case '-', '_', '/', '(', ')', '\'':
		return 8
	case ':', '=', '\t':
		return 6
	}
	return 2
}
