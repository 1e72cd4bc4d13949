package sqlite

import (
	"reflect"
	"testing"
	"time"
)

// TestMatchPhrasesNumberAsFTS5: the phrases of a MATCH in FTS5's order, with the columns each is
// held to; phrases side by side and NEAR groups, which FTS5 numbers differently when a phrase
// has no tokens, are refused.
func TestMatchPhrasesNumberAsFTS5(t *testing.T) {
	cols := []string{"a", "b", "owner"}
	type ph = matchPhrase
	cases := []struct {
		match string
		want  []ph
	}{
		{`"x"`, []ph{{text: `"x"`}}},
		{`{a b} : ("x y" OR "z"*) AND owner : "t61"`, []ph{{`"x y"`, []string{"a", "b"}}, {`"z"*`, []string{"a", "b"}}, {`"t61"`, []string{"owner"}}}},
		{`(("x") NOT "y") NOT owner : "archived"`, []ph{{text: `"x"`}, {text: `"y"`}, {`"archived"`, []string{"owner"}}}},
		{`x NOT (y AND "") OR w`, []ph{{text: `x`}, {text: `y`}, {text: `""`}, {text: `w`}}},
		{`a : (b : "x") OR -owner : "q"`, []ph{{`"x"`, []string{}}, {`"q"`, []string{"a", "b"}}}},
		{`^"z" + "w"*`, []ph{{text: `^"z" + "w"*`}}},
		{`"say ""hi"""`, []ph{{text: `"say ""hi"""`}}},
	}
	for _, c := range cases {
		got, err := matchPhrases(c.match, cols)
		if err != nil {
			t.Errorf("%s: %v", c.match, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.match, got, c.want)
		}
	}
	for _, bad := range []string{`"x`, `(x`, `{a : x`, `x OR`, `x y`, `"a" "" "b"`, `NEAR("x" "y", 3)`} {
		if _, err := matchPhrases(bad, cols); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestPhraseCountsExpireAndStayBounded: a count is served for phraseCountTTL, then counted
// again; the cache never holds more than phraseCountMax counts.
func TestPhraseCountsExpireAndStayBounded(t *testing.T) {
	c := newPhraseCounts()
	t0 := time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)
	c.put("k", 7, t0)
	if n, ok := c.get("k", t0.Add(phraseCountTTL-time.Second)); !ok || n != 7 {
		t.Errorf("within the TTL: %d, %v; want 7, true", n, ok)
	}
	if _, ok := c.get("k", t0.Add(phraseCountTTL+time.Second)); ok {
		t.Error("past the TTL: still served")
	}
	for i := range 3 * phraseCountMax {
		c.put(string(rune(i)), int64(i), t0.Add(time.Duration(i)*time.Millisecond))
	}
	if len(c.m) > phraseCountMax {
		t.Errorf("%d counts kept, want at most %d", len(c.m), phraseCountMax)
	}
}
