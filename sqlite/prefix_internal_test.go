package sqlite

import (
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals/internal/storecore"
)

// A longer prefix is answered from a kept read only when that read reached the end of its words:
// a read cut at its limit (MaxPrefixScan words of a short prefix) may lack words of the longer
// prefix beyond where it stopped, so the longer prefix is read from the index.
func TestVocabNarrowsOnlyACompleteRead(t *testing.T) {
	var c vocabCache
	read := func(words ...string) func() ([]storecore.VocabWord, error) {
		return func() ([]storecore.VocabWord, error) {
			var out []storecore.VocabWord
			for i, w := range words {
				out = append(out, storecore.VocabWord{Word: w, Docs: i + 1})
			}
			return out, nil
		}
	}
	mustWords := func(prefix string, limit int, r func() ([]storecore.VocabWord, error)) []string {
		t.Helper()
		w, err := c.words("v1", prefix, limit, r)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range w {
			out = append(out, x.Word)
		}
		return out
	}
	// "co" read to its end (2 words, limit 3); "re" cut at its limit (3 words, limit 3).
	mustWords("co", 3, read("con", "cot"))
	mustWords("re", 3, read("ra", "rea", "reb"))
	if got := mustWords("con", 3, read("not", "from", "the cache")); !slices.Equal(got, []string{"con"}) {
		t.Errorf("con* from co*'s complete read: %q, want [con]", got)
	}
	if got := mustWords("rez", 3, read("rez", "rezz")); !slices.Equal(got, []string{"rez", "rezz"}) {
		t.Errorf("rez* after re*'s cut read: %q, want it read from the index", got)
	}
	if c.reads != 3 {
		t.Errorf("%d reads, want 3 (co, re, rez)", c.reads)
	}
	// Another version of the index: nothing kept is used.
	if got, _ := c.words("v2", "con", 3, read("con", "conn")); len(got) != 2 {
		t.Errorf("con* at a new version: %d words, want the index's 2", len(got))
	}
}

// Prefixes answered by narrowing a kept read are kept too, but never past maxVocabPrefixes: a
// read-mostly server asked ever new longer prefixes holds a bounded set until the index changes.
func TestVocabNarrowedPrefixesStayBounded(t *testing.T) {
	var c vocabCache
	words := func() ([]storecore.VocabWord, error) {
		return []storecore.VocabWord{{Word: "ca", Docs: 1}}, nil
	}
	if _, err := c.words("v1", "c", 1000, words); err != nil {
		t.Fatal(err)
	}
	for i := range 4 * maxVocabPrefixes {
		if _, err := c.words("v1", "c"+strings.Repeat("a", i+1), 1000, words); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.kept) > maxVocabPrefixes {
		t.Errorf("%d prefixes kept, want at most %d", len(c.kept), maxVocabPrefixes)
	}
}
