package query_test

import (
	"slices"
	"testing"

	"github.com/annals-dev/annals/query"
)

func TestIndexTextHidesPlaceholderWordsAndKeepsPositions(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"key [redacted:aws_access_key] here", "key [" + shift("redacted") + ":" + shift("aws") + "_" + shift("access") + "_" + shift("key") + "] here"},
		{"a [private] b [redacted:my-rule2] c", "a [" + shift("private") + "] b [" + shift("redacted") + ":" + shift("my") + "-" + shift("rule2") + "] c"},
		{"[redacted:] [redacted:UPPER] [redacted:x", "[redacted:] [redacted:UPPER] [redacted:x"},
	} {
		got := query.IndexText(tc.in)
		if got != tc.want {
			t.Errorf("IndexText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if a, b := len(query.Tokenize(tc.in)), len(query.Tokenize(got)); a != b {
			t.Errorf("%q: %d tokens, %d indexed: positions would shift", tc.in, a, b)
		}
		if tc.in != tc.want && (slices.Contains(query.Tokenize(got), "aws") || slices.Contains(query.Tokenize(got), "redacted")) {
			t.Errorf("%q: a placeholder word is still a token", tc.in)
		}
	}
}

func shift(w string) string {
	var b []rune
	for _, c := range w {
		b = append(b, 0xF0000+c)
	}
	return string(b)
}
