package textcut

import "testing"

func TestFirstCutsWholeCharacters(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 0, ""},
		{"abc", 2, "ab"},
		{"abc", 3, "abc"},
		{"abc", 9, "abc"},
		{"häß日本", 3, "häß"},
		{"日本語", 2, "日本"},
		{"a\xffb", 2, "a\xff"}, // a bad byte counts as one character, as range reads it
	} {
		if got := First(c.s, c.n); got != c.want {
			t.Errorf("First(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
