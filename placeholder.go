package annals

import "strings"

// The placeholders redaction writes in place of what it removed: "[redacted:<kind>]" for a
// secret (kind: 1 to MaxPlaceholderKind bytes of a-z, 0-9, '_' and '-') and "[private]" for a
// <private> span. Their format lives here, once: redact/ writes them and recognises them so it
// never redacts inside one, and query/ finds them so the indexes never make their words
// searchable (docs/REDACTION.md).
const (
	RedactedPrefix     = "[redacted:"
	PrivatePlaceholder = "[private]"
	MaxPlaceholderKind = 64
)

// PlaceholderLen returns the length of the placeholder s starts with, or 0 if none does.
func PlaceholderLen(s string) int {
	if strings.HasPrefix(s, PrivatePlaceholder) {
		return len(PrivatePlaceholder)
	}
	if !strings.HasPrefix(s, RedactedPrefix) {
		return 0
	}
	i := len(RedactedPrefix)
	j := i
	for j < len(s) && j-i < MaxPlaceholderKind && IsPlaceholderKindByte(s[j]) {
		j++
	}
	if j == i || j >= len(s) || s[j] != ']' {
		return 0
	}
	return j + 1
}

// IsPlaceholderKindByte reports whether c may appear in a placeholder's kind.
func IsPlaceholderKindByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}
