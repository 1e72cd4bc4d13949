package jsonesc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// hostile are strings whose escaping a hand-written quoter gets wrong first.
var hostile = []string{
	"", "plain", "\xff\xfe invalid \xc3", "a\u2028b\u2029c", "<script>&amp;</script>",
	"\x00\x01\x07\b\f\n\r\t\x1f\x7f", `"quoted" \back\slash`, "é 漢 🦅", "\xe2\x80", "…", "\xed\xa0\x80",
}

// inputs is every ASCII byte alone, the hostile strings, and random byte strings.
func inputs() []string {
	in := append([]string(nil), hostile...)
	for b := 0; b < 256; b++ {
		in = append(in, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	r := rand.New(rand.NewPCG(1, 2))
	pieces := append([]string{"\u2028", "\u2029", "é", "🦅"}, hostile...)
	for range 2000 {
		var sb strings.Builder
		for range r.IntN(12) {
			if r.IntN(3) == 0 {
				sb.WriteString(pieces[r.IntN(len(pieces))])
			} else {
				sb.WriteByte(byte(r.IntN(256)))
			}
		}
		in = append(in, sb.String())
	}
	return in
}

// TestEncodingJSONMatchesMarshal holds EncodingJSON to json.Marshal's bytes.
func TestEncodingJSONMatchesMarshal(t *testing.T) {
	for _, s := range inputs() {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s, EncodingJSON); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
		if got := AppendString([]byte("x"), s, EncodingJSON); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Errorf("%q: appending after a prefix lost it", s)
		}
	}
}

// TestReadable holds Readable to encoding/json without HTML escaping, but for \b and \f, which
// it writes as \u0008 and \u000c (what the redactor has always stored).
func TestReadable(t *testing.T) {
	for _, s := range inputs() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := longBF(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		if got := AppendString(nil, s, Readable); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

// longBF rewrites the short escapes \b and \f of a JSON literal as \u0008 and \u000c.
func longBF(lit []byte) []byte {
	var out []byte
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' {
			out = append(out, lit[i])
			continue
		}
		i++
		switch lit[i] {
		case 'b':
			out = append(out, `\u0008`...)
		case 'f':
			out = append(out, `\u000c`...)
		default:
			out = append(out, '\\', lit[i])
		}
	}
	return out
}

// TestTables derives each style's table from its rules.
func TestTables(t *testing.T) {
	for _, c := range []struct {
		st            Style
		html, shortBF bool
	}{{EncodingJSON, true, true}, {Readable, false, false}} {
		tab := c.st.table()
		if len(tab) != 128 {
			t.Fatalf("style %d: table of %d bytes", c.st, len(tab))
		}
		for b := 0; b < 128; b++ {
			want := byte('.')
			switch {
			case b == '"' || b == '\\':
				want = byte(b)
			case b == '\n':
				want = 'n'
			case b == '\r':
				want = 'r'
			case b == '\t':
				want = 't'
			case c.shortBF && b == '\b':
				want = 'b'
			case c.shortBF && b == '\f':
				want = 'f'
			case b < 0x20, c.html && (b == '<' || b == '>' || b == '&'):
				want = 'u'
			}
			if tab[b] != want {
				t.Errorf("style %d, byte %#x: %q, want %q", c.st, b, tab[b], want)
			}
		}
	}
}
