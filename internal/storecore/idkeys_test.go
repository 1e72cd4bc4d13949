package storecore

import (
	"slices"
	"strings"
	"testing"
)

func TestChatIDKeysAreTheIDAndEveryTextAfterAColon(t *testing.T) {
	for id, want := range map[string][]string{
		"plain":                         {"plain"},
		"claude-code:7f3c":              {"claude-code:7f3c", "7f3c"},
		"claude-code:7f3c/sidechain-ab": {"claude-code:7f3c/sidechain-ab", "7f3c/sidechain-ab"},
		"a:b:c":                         {"a:b:c", "b:c", "c"},
		"ends:":                         {"ends:"},
		"::x":                           {"::x", ":x", "x"},
	} {
		if got := ChatIDKeys(id); !slices.Equal(got, want) {
			t.Errorf("ChatIDKeys(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestPrefixEndBoundsExactlyTheStringsWithThePrefix checks the range [prefix, end) against
// strings.HasPrefix on strings around every edge: the last rune the highest, before the
// surrogates, multi-byte.
func TestPrefixEndBoundsExactlyTheStringsWithThePrefix(t *testing.T) {
	probes := []string{"", "a", "ab", "b", "a\U0010FFFF", "a\U0010FFFFz", "b\x00", "\uD7FF", "\uD7FFx", "\uE000", "é", "éz", "f", "ê", "a~", "\U0010FFFF"}
	for _, prefix := range []string{"a", "ab", "a\U0010FFFF", "\uD7FF", "é", "\U0010FFFF"} {
		end, bounded := PrefixEnd(prefix)
		for _, s := range probes {
			in := s >= prefix && (!bounded || s < end)
			if in != strings.HasPrefix(s, prefix) {
				t.Errorf("prefix %q end %q (bounded %v): %q in range = %v", prefix, end, bounded, s, in)
			}
		}
	}
	if _, bounded := PrefixEnd("\U0010FFFF\U0010FFFF"); bounded {
		t.Error("a prefix of only U+10FFFF has an end")
	}
}
