package redact

// prefilter finds, in one pass over a text, which rules' anchors occur in it, so that a text
// with no secret (nearly every text) costs one byte loop for all the rules together instead of
// one search per rule: the anchors of every rule are indexed by their pivot byte, and the loop
// stops looking at a rule once one of its anchors has been seen.
type prefilter struct {
	// group[c] is 1 + the index in groups of the anchors that pivot on byte c, or 0.
	group  [256]uint16
	groups [][]ruleAnchor
	// bit[i] is rule i's bit in a mask; 0 means the rule always runs (it has no anchors, or
	// more rules have anchors than a mask holds).
	bit []uint64
	// all is the mask of every anchored rule: once every bit is set the pass can stop.
	all uint64
}

// ruleAnchor is an anchor with the bit of the rule it belongs to, and a second byte checked
// before the whole literal: the byte next to the pivot (d bytes away from it, lower case when
// the anchor folds case). Most pivot hits (a '_' or a '-' in code, a common letter) fail there.
type ruleAnchor struct {
	anchor
	bit uint64
	d   int
	c   byte
}

func newRuleAnchor(a anchor, bit uint64) ruleAnchor {
	ra := ruleAnchor{anchor: a, bit: bit}
	switch {
	case a.off+1 < len(a.lit):
		ra.d = 1
	case a.off > 0:
		ra.d = -1
	}
	ra.c = a.lit[a.off+ra.d]
	return ra
}

// second reports whether s[k+d], for a pivot at k, is the anchor's second byte.
func (a *ruleAnchor) second(s string, k int) bool {
	j := k + a.d
	if j < 0 || j >= len(s) {
		return false
	}
	c := s[j]
	if a.fold && isUpper(c) {
		c += 'a' - 'A'
	}
	return c == a.c
}

func newPrefilter(rules []rule) *prefilter {
	p := &prefilter{bit: make([]uint64, len(rules))}
	next := uint64(1)
	for i, r := range rules {
		if len(r.anchors) == 0 || next == 0 {
			continue
		}
		p.bit[i], p.all = next, p.all|next
		for _, g := range r.anchors {
			k := p.group[g.pivot]
			if k == 0 {
				p.groups = append(p.groups, nil)
				k = uint16(len(p.groups))
				p.group[g.pivot] = k
			}
			for _, a := range g.anchors {
				p.groups[k-1] = append(p.groups[k-1], newRuleAnchor(a, next))
			}
		}
		next <<= 1
	}
	return p
}

// mask returns the bits of the rules with an anchor in s.
func (p *prefilter) mask(s string) uint64 {
	var m uint64
	for k := 0; k < len(s); k++ {
		g := p.group[s[k]]
		if g == 0 {
			continue
		}
		grp := p.groups[g-1]
		for j := range grp {
			a := &grp[j]
			if m&a.bit == 0 && a.second(s, k) {
				if i := k - a.off; i >= 0 && a.at(s, i) {
					m |= a.bit
				}
			}
		}
		if m == p.all {
			break
		}
	}
	return m
}

// may reports whether rule i can match a text of mask m.
func (p *prefilter) may(m uint64, i int) bool {
	return p.bit[i] == 0 || m&p.bit[i] != 0
}

// any reports whether some rule can match a text of mask m.
func (p *prefilter) any(m uint64) bool {
	if m != 0 {
		return true
	}
	for _, b := range p.bit {
		if b == 0 {
			return true
		}
	}
	return false
}
