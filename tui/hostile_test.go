package tui_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// escapes matches every escape sequence and C1 control that is not one of the browser's own
// style codes (SGR).
var foreignControl = regexp.MustCompile("\x1b[^\\[]|\x1b\\[[0-9;:]*[^0-9;:m]|[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029\r\a\b]")

// A transcript that tries to drive the terminal (clear the screen, write the clipboard, disguise
// a link, reorder text) is shown as visible escapes, and a line of megabytes costs one screen.
func TestAHostileTranscriptReachesTheTerminalAsText(t *testing.T) {
	f := newFixture(t)
	// The largest entry the store takes (annals.MaxEntryBytes, 8 MiB) as one line.
	huge := strings.Repeat("flood ", (annals.MaxEntryBytes-64)/6)
	f.chat("evil", "evil \x1b[2J title \u202eexe.txt", annals.Attributes{"source": "x\x1b]8;;http://evil\x1b\\link", "repository": "r\rwrite"},
		"user: please \x1b[2J\x1b[H clear and \x1b]52;c;aGVsbG8=\x07 copy",
		"assistant: bidi \u202etxet\u2066 and C1 \u009b31m and bell \a",
		"tool Bash {\"command\":\"printf '\\u001b[31m'\"} => \x1b[31mred\x1b[0m and \x1b]0;title\x07",
		"user: "+huge,
		"assistant: after the flood")
	d := newDriver(t, f.opts(f.owner), 120, 40)
	check := func(when string) {
		t.Helper()
		raw := d.raw()
		if loc := foreignControl.FindStringIndex(raw); loc != nil {
			t.Fatalf("%s: a control from the transcript reaches the terminal at %d: %q", when, loc[0], raw[max(0, loc[0]-40):min(len(raw), loc[1]+40)])
		}
		if len(raw) > 64<<10 {
			t.Errorf("%s: the screen is %d bytes", when, len(raw))
		}
	}
	check("results")
	if s := d.screen(); !strings.Contains(s, `evil \x1b[2J title \u202eexe.txt`) {
		t.Errorf("the title's escapes are not shown as text:\n%s", s)
	}
	d.keys("tab", "enter")
	d.settle()
	check("transcript")
	s := d.screen()
	for _, want := range []string{`please \x1b[2J\x1b[H clear`, `\x1b]52;c;aGVsbG8=\x07 copy`, `bidi \u202etxet\u2066`, `C1 \u009b31m`, "flood flood"} {
		if !strings.Contains(s, want) {
			t.Errorf("the transcript does not show %q:\n%s", want, s)
		}
	}
	for i := 0; i < 3; i++ {
		d.keys("j")
	}
	d.keys("space") // the tool call's result, expanded
	check("expanded tool call")
	d.keys("j", "j")
	check("after the flood")
	if !strings.Contains(d.screen(), "after the flood") {
		t.Errorf("the entry after the 10 MB line is not shown:\n%s", d.screen())
	}
}

// The transcript pages: opening a long chat reads one page, moving to its end reads the window
// there, and moving on reads the next page; no request asks for the whole chat.
func TestTheTranscriptPages(t *testing.T) {
	f := newFixture(t)
	var texts []string
	for i := 1; i <= 2500; i++ {
		if i%50 == 1 {
			texts = append(texts, fmt.Sprintf("user: prompt %d", i))
		} else {
			texts = append(texts, fmt.Sprintf("assistant: answer %d", i))
		}
	}
	f.chat("long", "A long chat", nil, texts...)
	rec := &recording{HistoryService: f.owner}
	d := newDriver(t, f.opts(rec), 120, 40)
	d.keys("tab", "enter")
	d.settle()
	if !strings.Contains(d.screen(), "prompt 1") {
		t.Fatalf("the first page is not shown:\n%s", d.screen())
	}
	d.keys("]")
	if !strings.Contains(lineWith(d.screen(), "you #51"), "▌") {
		t.Errorf("] did not go to the next prompt:\n%s", d.screen())
	}
	d.keys("end")
	d.settle()
	if !strings.Contains(d.screen(), "answer 2500") {
		t.Errorf("end did not show the last entry:\n%s", d.screen())
	}
	d.keys("[")
	d.settle()
	if !strings.Contains(lineWith(d.screen(), "you #2451"), "▌") {
		t.Errorf("[ did not go to the previous prompt:\n%s", d.screen())
	}
	for i := 0; i < 300; i++ {
		d.keys("k")
		d.settle()
	}
	if !strings.Contains(lineWith(d.screen(), "#2151"), "▌") {
		t.Errorf("moving up 300 entries did not page back:\n%s", d.screen())
	}
	for _, g := range rec.gets {
		if g.Limit > 200 || (g.Context != nil && *g.Context > 100) || g.Format == annals.FormatMarkdown {
			t.Errorf("a page asked for too much: %+v", g)
		}
	}
	if len(rec.gets) < 3 {
		t.Errorf("%d pages were read, want the first, the last and earlier ones", len(rec.gets))
	}
}

func TestNoColourWithoutColour(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	colour := regexp.MustCompile("\x1b\\[[0-9;]*(3[0-9]|9[0-7]|4[0-9])[;m]")
	for _, c := range []bool{false, true} {
		o := f.opts(f.owner)
		o.Color = c
		d := newDriver(t, o, 120, 30)
		d.typeText("deploy")
		d.settle()
		d.keys("enter", "enter")
		d.settle()
		if got := colour.MatchString(d.raw()); got != c {
			t.Errorf("Color %v: colour codes on the screen = %v:\n%q", c, got, d.raw())
		}
	}
}
