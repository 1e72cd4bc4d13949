package postgres

import (
	"strings"

	"github.com/annals-dev/annals/internal/storecore"
)

// The view's substring filter (annals.ViewFilter.Substring) on PostgreSQL. Migration 0005
// indexes annals_view_text, every field in the 'escape' encoding, with pg_trgm; the condition
// below asks that index for candidates with ILIKE on the substring in the same encoding, and
// proves each one on the bytes of each field, ASCII letters folded: SQL LIKE's match, the same
// answer SQLite gives, whatever the server's locale.

// substringCond is the condition and its arguments.
func substringCond(s string) (string, []any) {
	folded := []byte(storecore.FoldASCII(s))
	fields := []string{"e.text", "e.reasoning", "convert_to(e.tool_name, 'UTF8')", "convert_to(e.tool_args, 'UTF8')", "e.tool_result"}
	parts := make([]string, len(fields))
	args := []any{storecore.LikePattern(pgEscape(s))}
	for i, col := range fields {
		parts[i] = "position(?::bytea in annals_view_fold(" + col + ")) > 0"
		args = append(args, folded)
	}
	return `annals_view_text(e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result) ILIKE ? AND (` + strings.Join(parts, " OR ") + `)`, args
}

// pgEscape is PostgreSQL's encode(b, 'escape') of the bytes of s: a backslash doubled, NUL and
// every byte from 0x80 as a backslash and three octal digits, every other byte itself.
func pgEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == 0 || c >= 0x80:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + c>>3&7)
			b.WriteByte('0' + c&7)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
