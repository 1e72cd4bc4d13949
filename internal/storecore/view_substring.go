package storecore

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/view"
)

// The query view's substring filter (view.Filter.Substring), as both stores match it: the
// reference's SQL LIKE over the stored content, so ASCII letters match either case, every other
// character only itself, and %, _ and \ are ordinary characters. Each store narrows the entries
// through its own trigram index and proves the match with the condition built here.

// SubstringMatch is the condition that the entry aliased e holds the substring, in the fields the
// reference stores on its message row: an assistant message owns its calls (their name and
// arguments; CallOf), so a tool entry is matched by its name and result but not by its
// arguments, which are its assistant's. The call id, which the reference stores on both rows,
// is not matched on either: neither store's trigram index holds it yet. like(col) is the store's test of one field; each use
// takes one argument, and n is how many there are. A match never spans two fields.
func SubstringMatch(like func(col string) string) (cond string, n int) {
	own, n := SubstringOwnMatch(like)
	calls, m := SubstringCallMatch(like)
	return "(" + own + " OR (e.kind = 'assistant' AND EXISTS (SELECT 1 FROM entries t WHERE " +
		CallOf("t", "e.chat_pk", "e.seq") + " AND " + calls + ")))", n + m
}

// SubstringOwnMatch is the part of SubstringMatch on the entry's own fields.
func SubstringOwnMatch(like func(col string) string) (cond string, n int) {
	return "(" + like("e.text") + " OR " + like("e.reasoning") + " OR " + like("e.tool_name") + " OR " + like("e.tool_result") +
		" OR (e.kind <> 'tool' AND " + like("e.tool_args") + "))", 5
}

// SubstringCallMatch is the part of SubstringMatch on a call (the tool entry aliased t): the
// fields its assistant message owns.
func SubstringCallMatch(like func(col string) string) (cond string, n int) {
	return "(" + like("t.tool_name") + " OR " + like("t.tool_args") + ")", 2
}

// SubstringOwner is a query of the pk of the assistant message owning the tool entry aliased t
// as a call (CallOf), or no row. The bounds on o.seq repeat CallOf's for the (chat_pk, seq) key.
func SubstringOwner() string {
	return `SELECT o.pk FROM entries o WHERE o.chat_pk = t.chat_pk AND o.seq < t.seq AND o.seq >= t.seq - ` +
		strconv.Itoa(view.MaxCallsPerMessage) + ` AND o.kind = 'assistant' AND ` + CallOf("t", "o.chat_pk", "o.seq")
}

// SubstringFirstWalk and SubstringMoreWalk are how many entries in scope, newest first, a search reads and tests
// directly before it turns to the trigram index, in two steps: a common substring fills its page
// among them (a word in one entry of five: 81 matches in about 400 entries), which is the
// reference's own LIKE scan, stopped at the page; a rare one is then looked up in the index
// among the older entries only. Testing an entry costs about as much as reading it, so the walk
// goes past its first step only when that step found a match: a substring with none there is
// rare enough for the index, and costs the first step alone (measured on the lanius database,
// 250 entries tested: about 2 ms).
const (
	SubstringFirstWalk = 250
	SubstringMoreWalk  = 750
)

// ValidateSubstring refuses a substring the view does not search for: longer than
// view.MaxSubstringChars, or holding a NUL character (SQLite's LIKE stops at one).
func ValidateSubstring(s string) error {
	if n := utf8.RuneCountInString(s); n > view.MaxSubstringChars {
		return annals.Errorf(annals.EINVALID, "the search text has %d characters (at most %d allowed)", n, view.MaxSubstringChars)
	}
	if strings.ContainsRune(s, 0) {
		return annals.Errorf(annals.EINVALID, "the search text holds a NUL character (not searchable)")
	}
	return nil
}

// LikePattern is the LIKE pattern (with ESCAPE '\') matching any value that holds s: its \, %
// and _ escaped, between two %.
func LikePattern(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteByte('%')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c == '%' || c == '_' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('%')
	return b.String()
}

// FoldASCII lower-cases the ASCII letters of s and leaves every other byte alone: the folding
// under which LIKE compares.
func FoldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Trigrams returns at most max distinct windows of three characters of s, spread over it and
// always holding the first and the last: enough for an index to narrow the entries (a match
// holds every window), few enough to keep the lookup short for a long substring. Nil when s has
// fewer than three characters, which no trigram index can look up.
func Trigrams(s string, max int) []string {
	runes := []rune(s)
	n := len(runes) - 2
	if n < 1 || max < 1 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	take := func(i int) {
		if g := string(runes[i : i+3]); !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	if n <= max {
		for i := 0; i < n; i++ {
			take(i)
		}
		return out
	}
	for k := 0; k < max; k++ {
		take(k * (n - 1) / (max - 1))
	}
	return out
}
