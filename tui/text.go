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

// wrap lays safe text out in lines of at most width cells, at most max lines; a cut is said.
func wrap(s string, width, max int) []string {
	if width < 4 {
		width = 4
	}
	var out []string
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if len(out) >= max {
			break
		}
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(line, width, ""), "\n")...)
	}
	if len(out) > max {
		out = append(out[:max-1], "… (more in the export: e)")
	}
	return out
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
