package query

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// TestSnippetShapes pins the choices query.Snippet shares with FTS5's snippet() (the sqlite
// package's TestGoSnippetsAgreeWithFTS5 compares the two on a generated corpus).
func TestSnippetShapes(t *testing.T) {
	term := func(prefix bool, toks ...string) *annals.TextExpr {
		return &annals.TextExpr{Op: annals.TextTerm, Tokens: toks, Prefix: prefix}
	}
	var filler []string
	for i := 1; i <= 14; i++ {
		filler = append(filler, "t"+string(rune('a'+i)))
	}
	cut := "a " + strings.Join(filler, " ") + " p q tr ts tt"
	for _, c := range []struct {
		name   string
		fields []string
		terms  []*annals.TextExpr
		want   string
	}{
		{"no match: the first non-empty field's start", []string{"", "one two three"}, []*annals.TextExpr{term(false, "zzz")}, "one two three"},
		{"a phrase cut by the window's end is marked up to it", []string{cut}, []*annals.TextExpr{term(false, "a"), term(false, "p", "q")},
			"[a] " + strings.Join(filler, " ") + " [p]…"},
		{"the field with the best window, not the first", []string{"x timeout", "timeout retry"}, []*annals.TextExpr{term(false, "timeout"), term(false, "retry")},
			"[timeout] [retry]"},
		{"a prefix marks every word it starts", []string{"Rebase, RELEASE; ré-run"}, []*annals.TextExpr{term(true, "re")}, "[Rebase], [RELEASE]; [ré]-run"},
		{"a placeholder is never marked", []string{"[redacted:aws] aws"}, []*annals.TextExpr{term(false, "aws")}, "[redacted:aws] [aws]"},
		{"overlapping matches are one mark", []string{"new york city"}, []*annals.TextExpr{term(false, "new", "york"), term(false, "york", "city")}, "[new york city]"},
	} {
		if got := Snippet(c.fields, c.terms, Fold, "[", "]"); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFoldKeepsFoldedASCII: a token already folded (ASCII, no capitals: most of a transcript's)
// is returned as it is, without a copy; Spans folds every token of a snippet's fields.
func TestFoldKeepsFoldedASCII(t *testing.T) {
	tok := strings.Repeat("timeout42", 2)
	if n := testing.AllocsPerRun(100, func() { _ = Fold(tok) }); n != 0 {
		t.Errorf("Fold(%q) allocates %v times, want 0", tok, n)
	}
	for in, want := range map[string]string{"Timeout": "timeout", "café": "cafe", "a-b": "a-b", "": ""} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}
