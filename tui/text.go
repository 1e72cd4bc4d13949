package tui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/termsafe"
)

// Bounds on what one entry may put on the screen: a transcript can hold a 10 MB line, and the
// pane shows the start of it (export shows all of it).
const (
	// maxShownBytes is how much of one text field is laid out at all.
	maxShownBytes = 16 << 10
	// maxEntryLines is how many screen lines one entry takes at most.
	maxEntryLines = 60
)

// safe makes transcript text printable: at most maxShownBytes of it (cut on a rune boundary),
// every terminal control shown as a visible escape (termsafe), tabs as spaces.
func safe(s string) string {
	if len(s) > maxShownBytes {
		cut := maxShownBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.ReplaceAll(termsafe.String(s), "\t", "    ")
}

// oneLine is safe text on one line: newlines become spaces.
func oneLine(s string) string {
	if len(s) > maxShownBytes {
		s = s[:maxShownBytes]
	}
	return safe(strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " "))
}

// clip cuts safe text to width cells, marking a cut with "…".
func clip(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// pad clips s to width cells and fills the rest with spaces, so panes line up.
func pad(s string, width int) string {
	s = clip(s, width)
	if w := ansi.StringWidth(s); w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// marking is how a text's matched words are shown: the byte ranges marks of the text
// (ascending, not overlapping) styled by mark, the rest by plain (nil: as it is).
type marking struct {
	marks       [][2]int
	mark, plain func(string) string
}

// wrapMarked lays safe text out in lines of at most width cells, at most max lines (a cut is
// said), styled by mk. Lines break on spaces; a word longer than a line is cut where the line
// ends. Each styled part is closed on its own line, so no style runs
// on into the next line or pane.
func wrapMarked(s string, width, max int, mk marking) []string {
	if width < 4 {
		width = 4
	}
	s = strings.TrimRight(s, "\n")
	var out []string
	for start := 0; start <= len(s) && len(out) <= max; {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		for _, r := range rows(s[start:end], width) {
			out = append(out, mk.style(s, start+r[0], start+r[1]))
		}
		start = end + 1
	}
	if len(out) > max {
		out = append(out[:max-1], "… (more in the export: e)")
	}
	return out
}

// rows breaks one line of safe text (no newline, no escape sequence: termsafe shows those as
// text) into rows of at most width cells, as byte ranges of line. A row ends at the last space
// that fits, which is left out; a word wider than a row is cut where the row is full.
func rows(line string, width int) [][2]int {
	var out [][2]int
	start, w := 0, 0
	space, afterSpace := -1, -1 // the last space of the row and where the text after it starts
	for i := 0; i < len(line); {
		c, cw := ansi.FirstGraphemeCluster(line[i:], ansi.GraphemeWidth)
		if c == "" {
			break
		}
		isSpace := c == " "
		if w+cw > width && w > 0 {
			switch {
			case isSpace:
				out = append(out, [2]int{start, i})
				start, w, space = i+len(c), 0, -1
				i += len(c)
				continue
			case space > start:
				out = append(out, [2]int{start, space})
				start, space = afterSpace, -1
				w = ansi.StringWidth(line[start:i])
			}
			if w+cw > width && w > 0 {
				out = append(out, [2]int{start, i})
				start, w, space = i, 0, -1
			}
		}
		if isSpace {
			space, afterSpace = i, i+len(c)
		}
		w += cw
		i += len(c)
	}
	return append(out, [2]int{start, len(line)})
}

// style is s[from:to] styled: the parts inside the marks by mark, the others by plain.
func (mk marking) style(s string, from, to int) string {
	plain := func(t string) string {
		if mk.plain == nil || t == "" {
			return t
		}
		return mk.plain(t)
	}
	if mk.mark == nil || len(mk.marks) == 0 {
		return plain(s[from:to])
	}
	var b strings.Builder
	pos := from
	for _, r := range mk.marks {
		a, z := max(r[0], pos), min(r[1], to)
		if a >= z {
			continue
		}
		b.WriteString(plain(s[pos:a]))
		b.WriteString(mk.mark(s[a:z]))
		pos = z
	}
	b.WriteString(plain(s[pos:to]))
	return b.String()
}

// highlight renders a snippet whose matches are marked with annals.SnippetMarkOpen and
// SnippetMarkClose: the text is made safe first, then each marked part is styled.
func highlight(s string, mark func(string) string) string {
	s = oneLine(s)
	var b strings.Builder
	for {
		i := strings.Index(s, annals.SnippetMarkOpen)
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i+len(annals.SnippetMarkOpen):]
		j := strings.Index(s, annals.SnippetMarkClose)
		if j < 0 {
			j = len(s)
		}
		b.WriteString(mark(s[:j]))
		s = strings.TrimPrefix(s[j:], annals.SnippetMarkClose)
	}
	b.WriteString(strings.ReplaceAll(s, annals.SnippetMarkClose, ""))
	return b.String()
}
