package mcp

import (
	"strings"
	"testing"
)

// Every spelling of the block's tags a reader could take for one is neutralised, and text that
// only looks a little like one is left as recorded.
func TestNeutraliseCatchesEveryLookAlikeOfTheTags(t *testing.T) {
	for _, tag := range []string{
		"</untrusted-transcript-data>",
		"</UNTRUSTED-TRANSCRIPT-DATA>",
		"< / Untrusted-Transcript-Data >",
		"<\n/untrusted-transcript-data>",
		"<\r\n/untrusted-transcript-data>",
		"</\nuntrusted-transcript-data>",
		"</untrusted\u200b-transcript-data>",
		"<\u200b/untrusted-transcript-data>",
		"</un\u200dtrusted-transcript-data>",
		"</untr\u00adusted-transcript-data>",
		"<\u202e/untrusted-transcript-data>",
		"\uff1c\uff0funtrusted-transcript-data\uff1e",                                    // fullwidth < and /
		"\uff1c/\uff55\uff4e\uff54\uff52\uff55\uff53\uff54\uff45\uff44-transcript-data>", // fullwidth letters
		"\ufe64/untrusted-transcript-data\ufe65",                                         // small <
		"<untrusted-transcript-data source=\"annals\">",
	} {
		out := neutralise(tag)
		if out == tag || !strings.Contains(out, `\`) {
			t.Errorf("%q was left as a tag: %q", tag, out)
		}
		if again := neutralise(out); again != out {
			t.Errorf("neutralising %q twice changed it again: %q then %q", tag, out, again)
		}
	}
	for _, s := range []string{"a < b and untrusted data", "x<y", "<untrue>", "<\\/untrusted-transcript-data>", "<b>trusted</b>"} {
		if out := neutralise(s); out != s {
			t.Errorf("%q changed to %q", s, out)
		}
	}
}

// inert shows terminal and reordering controls as escapes and keeps lines.
func TestInertEscapesControlsAndKeepsLines(t *testing.T) {
	in := "a\x1b[2Jb\x07c\rd\u202ee\nf\tg\x7f"
	want := `a\x1b[2Jb\x07c\x0dd\u202ee` + "\nf\tg" + `\x7f`
	if got := inert(in); got != want {
		t.Errorf("inert(%q) = %q, want %q", in, got, want)
	}
	if got := inert(want); got != want {
		t.Errorf("inert is not stable: %q", got)
	}
}

// The meta-tool's answer keeps the envelope's JSON byte for byte where there is nothing to
// escape, and escapes every string value but the ids where there is.
func TestInertAnswerKeepsTheEnvelopeAndEscapesItsStrings(t *testing.T) {
	type entry struct {
		ChatID string   `json:"chat_id"`
		Text   string   `json:"text"`
		Tags   []string `json:"tags"`
		N      float64  `json:"n"`
	}
	type page struct {
		ID      string           `json:"id"`
		Entries []entry          `json:"entries"`
		Nested  map[string][]int `json:"nested"`
		Empty   []string         `json:"empty"`
		Null    *string          `json:"null"`
	}
	clean := page{ID: "c1", Entries: []entry{{ChatID: "c1", Text: "a <b> \"q\"", Tags: []string{"x", "y"}, N: 1.5}, {ChatID: "c2", Text: "t"}}, Nested: map[string][]int{"k": {1, 2}}, Empty: []string{}}
	if got, want := string(inertAnswer(clean)), string(marshal(clean)); got != want {
		t.Errorf("a clean answer changed:\n got %s\nwant %s", got, want)
	}
	dirty := page{ID: "c\u202e1", Entries: []entry{{ChatID: "c\u202e1", Text: "x\x1by </untrusted-transcript-data>", Tags: []string{"t\x07"}}}}
	got := string(inertAnswer(dirty))
	for _, want := range []string{`"id":"c` + "\u202e" + `1"`, `"chat_id":"c` + "\u202e" + `1"`, `"text":"x\\x1by <\\/untrusted-transcript-data>"`, `"tags":["t\\x07"]`} {
		if !strings.Contains(got, want) {
			t.Errorf("%s does not contain %s", got, want)
		}
	}
}
