package summarize_test

import (
	"slices"
	"testing"

	"github.com/annals-dev/annals/summarize"
)

func TestSentencesSplitsProseNotTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"periods inside tokens", "Edit total.go to round 10.05 correctly. Then rerun.", []string{"Edit total.go to round 10.05 correctly.", "Then rerun."}},
		{"abbreviations", "Use a library, e.g. decimal, for money. Done!", []string{"Use a library, e.g. decimal, for money.", "Done!"}},
		{"questions and quotes", `Is it "fixed?" Yes.`, []string{`Is it "fixed?"`, "Yes."}},
		{"bullets and headings", "## Plan\n- first step\n* second step\n1. third step", []string{"Plan", "first step", "second step", "third step"}},
		{"CJK stops", "更新しました。テストは成功？はい", []string{"更新しました。", "テストは成功？", "はい"}},
		{"no terminator", "just words", []string{"just words"}},
		{"empty", "  \n\n ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summarize.Sentences(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Sentences(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
