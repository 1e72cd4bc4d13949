// Package jsonesc writes JSON string literals: the one quoter behind the query view's answers
// (view, queryview), which must match encoding/json byte for byte, and the redactor's rewritten
// values (redact), which keep text readable. The two differ only in which characters they
// escape, so they are two Styles of one function rather than two functions that could drift.
package jsonesc

import "unicode/utf8"

// Style says which ASCII characters AppendString escapes, and how. Every style escapes ", \ and
// the control characters, writes invalid UTF-8 as \ufffd, and U+2028 and U+2029 as \u2028 and
// \u2029 (valid JSON, but line ends to JavaScript), as encoding/json does.
type Style uint8

const (
	// EncodingJSON is encoding/json's escaping (json.Marshal, HTML-safe): <, > and & as \u003c,
	// \u003e and \u0026, and the short escapes \b, \f, \n, \r and \t.
	EncodingJSON Style = iota
	// Readable leaves <, > and & as they are, so redacted text stays readable, writes \n, \r
	// and \t short and every other control character as \u00XX.
	Readable
)

// The styles' tables: for each ASCII byte, '.' to write it as it is, 'u' as \u00XX, any other
// byte c as the short escape \c (\", \\, \n, ...). TestTables derives them from the rules above.
const (
	encodingJSONTable = "uuuuuuuubtnufruuuuuuuuuuuuuuuuuu" +
		"..\"...u.....................u.u." +
		"............................\\..." +
		"................................"
	readableTable = "uuuuuuuuutnuuruuuuuuuuuuuuuuuuuu" +
		"..\"............................." +
		"............................\\..." +
		"................................"
)

func (st Style) table() string {
	if st == Readable {
		return readableTable
	}
	return encodingJSONTable
}

const hexDigits = "0123456789abcdef"

// AppendString appends s to dst as a JSON string literal written in style st.
func AppendString(dst []byte, s string, st Style) []byte {
	tab := st.table()
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			e := tab[b]
			if e == '.' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			if e == 'u' {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			} else {
				dst = append(dst, '\\', e)
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
