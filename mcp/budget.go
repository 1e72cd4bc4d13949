package mcp

import (
	"encoding/json"
	"sort"
)

// A result is bounded by what it costs on the wire: its text content and its structured
// content, each as the JSON the SDK sends (json.Marshal, which writes <, > and & as six bytes
// and a control character as six). Counting raw bytes would let a page of HTML or coloured
// terminal output grow to several times the budget.

// wireSize is the bytes a result's text and structured content take as JSON.
func wireSize(text string, out any) int {
	t, _ := json.Marshal(text) // a string and the package's own structs always encode
	o, _ := json.Marshal(out)
	return len(t) + len(o)
}

// fits reports whether a result is within the session's budget.
func (ss *session) fits(text string, out any) bool {
	return wireSize(text, out) <= ss.budget
}

// fitCount is the largest n in [1, total] for which fits(n) holds, or 1 when none does (the
// caller then shrinks that one item): a page's size grows with its items, so a binary search
// finds n in a few encodings.
func fitCount(total int, fits func(n int) bool) int {
	if total <= 1 {
		return total
	}
	n := sort.Search(total, func(i int) bool { return !fits(i + 1) })
	return max(n, 1)
}

// fitCut is the largest cut in [floor, limit] for which fits(cut) holds, or floor: how much of
// one long text a result can carry.
func fitCut(floor, limit int, fits func(cut int) bool) int {
	if limit <= floor || fits(limit) {
		return max(limit, floor)
	}
	n := sort.Search(limit-floor, func(i int) bool { return !fits(floor + i + 1) })
	return floor + n
}
