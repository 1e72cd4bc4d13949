package termsafe_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/annals-dev/annals/internal/termsafe"
)

func TestStringShowsEscapesInsteadOfRunningThem(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, ünïcode 日本 and emoji 😀\nline two\tcol", "plain text, ünïcode 日本 and emoji 😀\nline two\tcol"},
		{"clear \x1b[2J screen", `clear \x1b[2J screen`},
		{"clip \x1b]52;c;aGVsbG8=\x07", `clip \x1b]52;c;aGVsbG8=\x07`},
		{"csi \u009b31m red", `csi \u009b31m red`},
		{"over\rwrite", `over\x0dwrite`},
		{"bidi \u202etxet", `bidi \u202etxet`},
		{"bad \xff byte", `bad \xff byte`},
		{"del \x7f", `del \x7f`},
	} {
		if got := termsafe.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriterEscapesWhatPassesThrough(t *testing.T) {
	var b bytes.Buffer
	w := termsafe.Writer{W: &b}
	fmt.Fprintf(w, "title: %s\n", "evil\x1b]8;;http://x\x1b\\link")
	if got, want := b.String(), "title: evil\\x1b]8;;http://x\\x1b\\link\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
