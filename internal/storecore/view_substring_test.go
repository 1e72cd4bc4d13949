package storecore

import (
	"slices"
	"testing"
)

func TestLikePatternEscapesWildcards(t *testing.T) {
	for in, want := range map[string]string{
		"abc":     `%abc%`,
		"100%":    `%100\%%`,
		"a_b":     `%a\_b%`,
		`C:\temp`: `%C:\\temp%`,
		"":        `%%`,
		"ça va":   `%ça va%`,
		`%_\`:     `%\%\_\\%`,
	} {
		if got := LikePattern(in); got != want {
			t.Errorf("LikePattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTrigramsSpreadOverALongSubstring(t *testing.T) {
	if got := Trigrams("ab", 12); got != nil {
		t.Errorf("two characters: %q, want none", got)
	}
	if got, want := Trigrams("Überd", 12), []string{"Übe", "ber", "erd"}; !slices.Equal(got, want) {
		t.Errorf("short: %q, want %q", got, want)
	}
	if got, want := Trigrams("aaaaa", 12), []string{"aaa"}; !slices.Equal(got, want) {
		t.Errorf("repeats: %q, want %q", got, want)
	}
	s := "the reactor pressure is nominal today"
	got := Trigrams(s, 12)
	if len(got) != 12 || got[0] != "the" || got[len(got)-1] != "day" {
		t.Errorf("long: %q, want 12 windows from the first to the last", got)
	}
	for _, g := range got {
		if !slices.Contains(Trigrams(s, 100), g) {
			t.Errorf("long: %q is no window of %q", g, s)
		}
	}
}

func TestFoldASCIILeavesOtherBytes(t *testing.T) {
	if got := FoldASCII("ÜBER Straße ÇA"); got != "Über straße Ça" {
		t.Errorf("FoldASCII = %q", got)
	}
}
