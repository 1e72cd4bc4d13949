// Package termsafe makes text from transcripts safe to print on a terminal. A title, a tool's
// output or a message can hold escape sequences (ESC[2J clears the screen, OSC 52 writes the
// clipboard, OSC 8 disguises links) and characters that reorder or hide text (a carriage return,
// bidirectional overrides). Every such character is shown as a visible escape instead, so the
// reader sees what is there and the terminal executes nothing.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// String returns s with control characters other than newline and tab, DEL, C1 controls,
// bidirectional formatting characters, line and paragraph separators, and invalid UTF-8 bytes
// written as visible escapes (\x1b, \u202e, \xff). Text without any is returned as it is.
func String(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// clean reports whether s needs no escaping, scanning without allocating.
func clean(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			return false
		}
	}
	return true
}

func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true // bidirectional formatting: reorders what the reader sees
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}

// Writer escapes everything written through it with String. It is for human output only: JSON
// output escapes control characters itself and must stay byte-exact.
type Writer struct{ W io.Writer }

// Write writes p escaped. It reports len(p) on success, as io.Writer requires, although more
// bytes may reach the underlying writer. A rune split across two writes is escaped as bytes;
// callers write whole strings.
func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
