package query

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// itemKind is the kind of a lexical item of the query language.
type itemKind int

const (
	itemWord   itemKind = iota // free text, becomes a term
	itemPhrase                 // "quoted text", becomes a term
	itemFilter                 // name:value
	itemOpen                   // (
	itemClose                  // )
	itemOr                     // OR
	itemAnd                    // AND
)

// item is one lexical item.
type item struct {
	kind itemKind
	// neg is set when a '-' started the term: an exclusion.
	neg bool
	// text is a word or phrase without its '-', quotes and trailing '*'.
	text string
	// prefix is set by a trailing '*' on a word or after a phrase's closing quote.
	prefix bool
	// name (lower-cased, except the key of attr.KEY) and value of a filter.
	name, value string
	// raw is the item as typed, for messages.
	raw string
}

// isSpace reports whether r separates items: white space, and control characters, which have
// no business in a query and are safest treated as blanks.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r)
}

// attrPrefix starts an attribute filter: attr.KEY:VALUE.
const attrPrefix = "attr."

// lex splits a query into items. It never fails on odd input: an unclosed quote runs to the end,
// a ')' without a matching '(' is ignored, and characters with no meaning in the language are
// part of words (where Tokenize later drops them). Its only errors are the nesting limit.
func lex(s string) ([]item, error) {
	var items []item
	depth := 0 // open parentheses
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isSpace(r) {
			i += size
			continue
		}
		start := i
		neg := false
		// A '-' starts an exclusion only when it begins a term and something to exclude follows
		// at once: "a - b" keeps the dash as text, and "--force" is the word people search for.
		if r == '-' && i+1 < len(s) {
			next, nsize := utf8.DecodeRuneInString(s[i+1:])
			if !isSpace(next) && next != '-' && next != ')' {
				neg = true
				i++
				r, size = next, nsize
			}
		}
		switch r {
		case '"':
			text, end := readQuoted(s, i+size)
			i = end
			prefix := false
			for i < len(s) && s[i] == '*' {
				prefix = true
				i++
			}
			items = append(items, item{kind: itemPhrase, neg: neg, text: text, prefix: prefix, raw: s[start:i]})
		case '(':
			i += size
			depth++
			if depth > MaxDepth {
				return nil, annals.Errorf(annals.EINVALID, "the query nests parentheses more than %d deep (at position %d)", MaxDepth, start+1)
			}
			items = append(items, item{kind: itemOpen, neg: neg, raw: s[start:i]})
		case ')':
			// Never negated: a '-' before ')' is not taken as an exclusion above.
			i += size
			if depth == 0 {
				continue // a stray ')' closes nothing; forgiving beats refusing a pasted text
			}
			depth--
			items = append(items, item{kind: itemClose, raw: ")"})
		default:
			var it item
			it, i = lexWord(s, i)
			if neg && (it.kind == itemOr || it.kind == itemAnd) {
				// -OR excludes the word "or": only a bare OR or AND is an operator.
				it = item{kind: itemWord, text: s[start+1 : i]}
			}
			it.neg, it.raw = neg, s[start:i]
			items = append(items, it)
		}
	}
	return items, nil
}

// readQuoted reads a quoted string whose content starts at i, up to the closing quote or the end
// of the query, and returns the content and the offset after the closing quote.
func readQuoted(s string, i int) (string, int) {
	j := strings.IndexByte(s[i:], '"')
	if j < 0 {
		return s[i:], len(s)
	}
	return s[i : i+j], i + j + 1
}

// lexWord reads a word starting at i: up to white space, a double quote, or a ')' that closes a
// group. A '(' inside a word opens a parenthesis of the word itself (fmt.Println(x), f(a)[0]),
// whose ')' stays in the word too. A word whose text before its first ':' is a filter name is a
// filter; its value may be quoted (tag:"my tag").
func lexWord(s string, i int) (item, int) {
	start := i
	inner := 0 // parentheses opened inside the word
	colon := -1
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isSpace(r) || r == '"' || r == ')' && inner == 0 {
			break
		}
		switch r {
		case '(':
			inner++
		case ')':
			inner--
		case ':':
			if colon < 0 {
				colon = i
				if name, ok := filterName(s[start:i]); ok {
					if it, end, ok := lexFilter(s, name, i+1); ok {
						return it, end
					}
				}
			}
		}
		i += size
	}
	word := s[start:i]
	switch word {
	case "OR":
		return item{kind: itemOr}, i
	case "AND":
		return item{kind: itemAnd}, i
	}
	text := strings.TrimRight(word, "*")
	return item{kind: itemWord, text: text, prefix: len(text) < len(word)}, i
}

// filterName returns the canonical filter name for the text before a ':', if it names a filter:
// a known name in any case, or attr.KEY with the prefix in any case and the key as typed. Any
// other name:value is text, because people paste file.go:123, http://x and "error: ..." and mean
// the text.
func filterName(s string) (string, bool) {
	lower := strings.ToLower(s)
	switch lower {
	case "role", "tool", "agent", "tag", "after", "before", "in":
		return lower, true
	}
	if strings.HasPrefix(lower, attrPrefix) {
		return attrPrefix + s[len(attrPrefix):], true
	}
	return "", false
}

// lexFilter reads a filter's value starting at i (just after the ':'). A value is quoted, or runs
// like a word. A name followed by nothing ("tool: Bash", pasted from a transcript) is not a
// filter, and ok is false so the caller reads it as text.
func lexFilter(s, name string, i int) (it item, end int, ok bool) {
	if i < len(s) && s[i] == '"' {
		value, end := readQuoted(s, i+1)
		return item{kind: itemFilter, name: name, value: value}, end, true
	}
	start := i
	inner := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isSpace(r) || r == '"' || r == ')' && inner == 0 {
			break
		}
		switch r {
		case '(':
			inner++
		case ')':
			inner--
		}
		i += size
	}
	if i == start {
		return item{}, 0, false
	}
	return item{kind: itemFilter, name: name, value: s[start:i]}, i, true
}
