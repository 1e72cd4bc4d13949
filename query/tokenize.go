package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenize splits s into lower-cased word tokens the way SQLite's unicode61 tokenizer does: a
// token is a maximal run of token characters (Unicode letters, numbers, private-use and
// unassigned code points, as SQLite's tables class them), and every other character (space,
// punctuation, symbol) separates tokens. Combining diacritical marks continue a token but never start one, again as unicode61
// does. So "emag.ro" gives [emag ro], "snake-case" gives [snake case], "c++" gives [c] and
// "don't" gives [don t].
//
// The split matters because the search engine tokenizes the indexed text the same way: a term is
// found when its tokens occur next to each other, whatever punctuation stood between them.
// Tokens are lower-cased but keep their accents; Fold removes those.
func Tokenize(s string) []string {
	var out []string
	start := -1 // byte offset where the current token began, -1 outside a token
	for i, r := range s {
		switch {
		case isTokenRune(r), start >= 0 && isDiacritic(r):
			if start < 0 {
				start = i
			}
		case start >= 0:
			out = append(out, lowerToken(s[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, lowerToken(s[start:]))
	}
	return out
}

// lowerToken lower-cases rune by rune with the simple case mapping, as the engines do: no
// special casing that would change the number of runes.
func lowerToken(tok string) string {
	return strings.Map(unicode.ToLower, tok)
}

// isTokenRune reports whether r is a token character for unicode61 with its default categories
// "L* N* Co". SQLite's character tables are older than Go's: it classes every code point that was
// unassigned when they were made as a token character, so today's unassigned code points (Cn)
// count too, and the few hundred ranges encoded or reclassified since are listed in
// unicode61Extra and unicode61Separators. U+FFFE and U+FFFF are separators: SQLite's UTF-8
// reader turns them into U+FFFD, a symbol.
func isTokenRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	switch {
	case r == utf8.RuneError, r == 0xFFFE, r == 0xFFFF:
		return false
	case unicode.IsLetter(r), unicode.IsNumber(r), unicode.In(r, unicode.Co, unicode.Cn):
		return !unicode.Is(unicode61Separators, r)
	}
	return unicode.Is(unicode61Extra, r)
}

// isDiacritic mirrors sqlite3Fts5UnicodeIsdiacritic: the combining marks, among U+0300..U+0331,
// that unicode61 keeps inside a token (and drops when removing diacritics). The two masks are
// SQLite's own, one bit per code point from U+0300.
func isDiacritic(r rune) bool {
	const mask0, mask1 = 0x08029FDF, 0x000361F8
	switch {
	case r < 0x300 || r > 0x331:
		return false
	case r < 0x320:
		return mask0&(1<<(r-0x300)) != 0
	default:
		return mask1&(1<<(r-0x320)) != 0
	}
}

// Fold lower-cases s and removes diacritics the way unicode61 with remove_diacritics 2 folds the
// tokens it indexes: "Café" and "CAFE" both fold to "cafe", "Ştefan" to "stefan", "Ệ" to "e".
// Characters without a plain base letter stay as they are (ø, ł, æ, ß, Greek and Cyrillic
// letters), and so do Greek accents, exactly as in SQLite; the Greek letter forms that SQLite
// folds (final sigma, the symbol variants ϐ ϑ ϕ ϖ ϰ ϱ ϵ) fold the same way here.
//
// Backends without such a tokenizer (PostgreSQL's "simple" configuration only lower-cases) fold
// both the indexed text and the query with Fold, so that every backend finds the same things.
func Fold(s string) string {
	if isFoldedASCII(s) {
		return s // most tokens: no copy (query.Spans folds every token of a snippet's fields)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if isDiacritic(r) {
			continue
		}
		b.WriteRune(foldRune(unicode.ToLower(r)))
	}
	return b.String()
}

// isFoldedASCII reports whether s is ASCII without capitals, which Fold leaves as it is.
func isFoldedASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}
