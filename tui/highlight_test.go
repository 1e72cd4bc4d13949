package tui_test

import (
	"slices"
	"strings"
	"testing"
)

// marked lists the highlighted words of a rendered line: runs of characters styled bold and
// underlined (the highlight without colour; lipgloss styles an underlined run per character).
func marked(raw string) []string {
	var out []string
	var cur strings.Builder
	on, prevOn := false, false
	for i := 0; i < len(raw); {
		if loc := sgr.FindStringIndex(raw[i:]); loc != nil && loc[0] == 0 {
			code := raw[i : i+loc[1]]
			on = slices.Contains(strings.Split(strings.TrimSuffix(strings.TrimPrefix(code, "\x1b["), "m"), ";"), "4")
			i += loc[1]
			continue
		}
		if !on && prevOn {
			out = append(out, cur.String())
			cur.Reset()
		}
		if on {
			cur.WriteByte(raw[i])
		}
		prevOn = on
		i++
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// rawLineWith is the styled line of the screen whose text holds text.
func rawLineWith(d *driver, text string) string {
	raw := lines(d.raw())
	for i, l := range lines(d.screen()) {
		if strings.Contains(l, text) {
			return raw[i]
		}
	}
	return ""
}

// The transcript highlights the words the query matched inside each entry, by the index's own
// token rules: a word in any case, a prefix*, a phrase, one side of an OR; not a word that
// merely contains the query's (redeploy).
func TestTheTranscriptHighlightsTheMatchedWords(t *testing.T) {
	f := newFixture(t)
	f.chat("ops", "Release notes", nil,
		"user: Deploy the shop, then redeploy staging; deployment notes in the wiki",
		"tool Bash {\"command\":\"make deploy\"} => deploy: permission denied",
		"assistant: The staging deploy is green. Rollback plan: none needed.")
	for _, c := range []struct {
		query string
		line  string // a screen line's text
		want  []string
	}{
		{"deploy", "Deploy the shop", []string{"Deploy"}},
		{"deploy", "staging deploy is green", []string{"deploy"}},
		{"deploy*", "Deploy the shop", []string{"Deploy", "deployment"}},
		{`"staging deploy"`, "staging deploy is green", []string{"staging deploy"}},
		{"penguins OR deploy", "staging deploy is green", []string{"deploy"}},
		{"deploy", "▸ Bash", []string{"deploy"}},
	} {
		d := newDriver(t, f.opts(f.owner), 140, 30)
		d.typeText(c.query)
		d.settle()
		d.keys("enter", "enter")
		d.settle()
		got := marked(rawLineWith(d, c.line))
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: the line with %q highlights %q, want %q:\n%q", c.query, c.line, got, c.want, rawLineWith(d, c.line))
		}
	}
	// An expanded tool call highlights inside its result too.
	d := newDriver(t, f.opts(f.owner), 140, 30)
	d.typeText("permission")
	d.settle()
	d.keys("enter", "enter")
	d.settle()
	d.keys("space")
	if got := marked(rawLineWith(d, "permission denied")); len(got) != 1 || got[0] != "permission" {
		t.Errorf("the expanded result highlights %q, want [permission]:\n%s", got, d.screen())
	}
}

// The transcript breaks lines between words ("refactor" never ends one line as "refa" and
// starts the next as "ctor"); a word longer than a line is still cut to fit, and a highlighted
// word wrapped to the next line is styled on that line alone.
func TestTheTranscriptWrapsBetweenWords(t *testing.T) {
	f := newFixture(t)
	text := "`go test ./...` fails on main since yesterday's currency refactor. Can you fix TestTotalRoundsHalfUp without changing what the test expects?"
	long := strings.Repeat("0123456789", 20)
	f.chat("wrap", "Wrapping", nil, "user: "+text, "assistant: see "+long+" end", "user: \x1b[31mred\x1b[0m and refactor words wrap safely around escapes")
	for _, width := range []int{60, 64, 71, 80, 110} {
		d := newDriver(t, f.opts(f.owner), width, 40)
		d.typeText("refactor")
		d.settle()
		d.keys("enter", "enter")
		d.settle()
		s := d.screen()
		var body []string
		for _, l := range lines(s) {
			if _, right, ok := strings.Cut(l, "│"); ok {
				l = right // the transcript pane, beside the results
			}
			body = append(body, strings.TrimSpace(strings.TrimLeft(l, "▌◆ ")))
		}
		joined := strings.Join(body, "\n")
		for _, w := range strings.Fields(text) {
			if !strings.Contains(joined, w) {
				t.Errorf("width %d: the word %q is broken across lines:\n%s", width, w, s)
			}
		}
		// The long token is cut into full lines, in order.
		if !strings.Contains(strings.ReplaceAll(joined, "\n", ""), long) {
			t.Errorf("width %d: the 200-character token is not shown whole across its lines:\n%s", width, s)
		}
		if loc := foreignControl.FindStringIndex(d.raw()); loc != nil {
			t.Errorf("width %d: an escape from the transcript reaches the terminal", width)
		}
		if !strings.Contains(s, `\x1b[31mred\x1b[0m`) {
			t.Errorf("width %d: the escape is not shown as text:\n%s", width, s)
		}
		for i, l := range lines(d.raw()) {
			if open := strings.LastIndex(l, "\x1b[1;4m"); open >= 0 && !strings.Contains(l[open:], "\x1b[m") {
				t.Errorf("width %d: line %d opens a highlight it does not close: %q", width, i, l)
			}
		}
	}
}
