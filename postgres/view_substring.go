package postgres

import (
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals/internal/storecore"
)

// The view's substring filter (annals.ViewFilter.Substring) on PostgreSQL. Migration 0005
// indexes annals_view_text, every field in the 'escape' encoding, with pg_trgm; the condition
// below asks that index for candidates with ILIKE on the substring in the same encoding, and
// proves each one on the bytes of each field, ASCII letters folded: SQL LIKE's match, the same
// answer SQLite gives, whatever the server's locale.

// substringCond is the condition and its arguments. A substring of fewer than three characters
// has no trigram: pg_trgm would answer the ILIKE with every entry (a full index scan, then a
// sort of all of them), so the condition is the proof alone, and the planner walks
// entries_by_time newest first, stopping at the page, as the reference's LIKE scan does.
func substringCond(s string) (string, []any) {
	folded := []byte(storecore.FoldASCII(s))
	fields := []string{"e.text", "e.reasoning", "convert_to(e.tool_name, 'UTF8')", "convert_to(e.tool_args, 'UTF8')", "e.tool_result"}
	parts := make([]string, len(fields))
	var args []any
	for i, col := range fields {
		parts[i] = "position(?::bytea in annals_view_fold(" + col + ")) > 0"
		args = append(args, folded)
	}
	proof := "(" + strings.Join(parts, " OR ") + ")"
	if utf8.RuneCountInString(s) < 3 {
		return proof, args
	}
	return `annals_view_text(e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result) ILIKE ? AND ` + proof,
		append([]any{storecore.LikePattern(pgEscape(s))}, args...)
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
