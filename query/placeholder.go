package query

import (
	"strings"

	"github.com/annals-dev/annals"
)

// Redaction placeholders are what the redactor writes in place of a secret: "[redacted:<kind>]"
// (kind: 1 to 64 bytes of a-z, 0-9, '_' and '-') and "[private]". They are not words of the
// transcript: a search for "aws" must not find every chat where an AWS key was removed. Both
// stores index IndexText instead of the text, in which every letter and digit of a placeholder
// is shifted into Unicode's supplementary private use area (U+F0000 + the byte). Each word of a
// placeholder stays one token (private-use characters are token characters to unicode61 and to
// Tokenize) but one that the query language can never produce, since it splits words on
// everything but letters, digits and marks. The number of tokens and their order stay the same,
// so phrase positions, and the snippets SQLite cuts from the stored text, line up with the index.
const (
	// placeholderBase is where IndexText shifts a placeholder's letters and digits.
	placeholderBase = 0xF0000
)

// PlaceholderSpans returns the byte ranges of the redaction placeholders in s, in order.
func PlaceholderSpans(s string) [][2]int {
	var out [][2]int
	for from := 0; from < len(s); {
		i := strings.IndexByte(s[from:], '[')
		if i < 0 {
			break
		}
		i += from
		if n := annals.PlaceholderLen(s[i:]); n > 0 {
			out = append(out, [2]int{i, i + n})
			from = i + n
			continue
		}
		from = i + 1
	}
	return out
}

// HasPlaceholder reports whether s may hold a placeholder: the cheap test before IndexText.
func HasPlaceholder(s string) bool {
	return strings.Contains(s, annals.RedactedPrefix) || strings.Contains(s, annals.PrivatePlaceholder)
}

// IndexText is s as the full-text indexes hold it: every letter and digit inside a redaction
// placeholder shifted to placeholderBase + its byte. Text without a placeholder is returned as
// it is.
func IndexText(s string) string {
	if !HasPlaceholder(s) {
		return s
	}
	spans := PlaceholderSpans(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 3*(spans[len(spans)-1][1]-spans[0][0]))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		for k := sp[0]; k < sp[1]; k++ {
			if c := s[k]; 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
				b.WriteRune(rune(placeholderBase + int(c)))
			} else {
				b.WriteByte(c)
			}
		}
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// IsPlaceholderToken reports whether a token (of Tokenize over IndexText) is a placeholder's
// word.
func IsPlaceholderToken(tok string) bool {
	for _, r := range tok {
		return r >= placeholderBase && r < placeholderBase+0x80
	}
	return false
}
