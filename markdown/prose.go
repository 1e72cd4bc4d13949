package markdown

import "strings"

// proseSafe reports whether s may be written as raw Markdown, followed by a blank line and a
// line that starts in column 0, without changing how a CommonMark renderer reads anything after
// it. Parse does not depend on the answer (it reads content by length); the rendered view does.
//
// Two things can leak out of a message:
//   - a top-level code fence left open, which swallows the rest of the document;
//   - an HTML block of types 1-5 (<script, <pre, <style, <textarea, <!--, <?, <!X, <![CDATA[),
//     which ends only at its own marker, not at a blank line.
//
// Anything opened inside a container (a block quote or list item) ends with that container at
// the latest, and our blank line plus column-0 line ends every container. HTML blocks of types
// 6 and 7 end at a blank line. So it is enough to follow top-level fences, and to give up where
// following them is ambiguous: a fence line within an HTML-looking paragraph (a type 6 or 7
// block would hide it), or an indented fence whose lines a list item could claim. Every doubt
// answers false, which only costs readability: the message is then shown in a fence.
//
// afterList is set when s directly follows a list (the chat's header); then s must not start
// with a list item or an indented line, which a renderer would fold into that list.
func proseSafe(s string, afterList bool) bool {
	var (
		inFence     bool
		fenceChar   byte
		fenceLen    int
		fenceIndent int
		htmlish     bool // since the last blank line, a line started like an HTML block
		first       = true
	)
	for len(s) > 0 {
		var line string
		line, s = cutLine(s)
		indent, rest := leadingIndent(line)
		blank := rest == ""
		if inFence {
			if blank {
				continue
			}
			if fenceIndent > 0 && indent < fenceIndent {
				// Inside a list item this line would end the item and its fence; at top level
				// it would be fence content. The two readings diverge.
				return false
			}
			if isClosingFence(rest, fenceChar, fenceLen) {
				if indent <= 3 {
					inFence = false
				} else if fenceIndent > 0 {
					// Relative to a list item this could still close the fence.
					return false
				}
			}
			continue
		}
		if blank {
			htmlish = false
			continue
		}
		if first {
			first = false
			if afterList && (indent > 0 || startsListItem(rest)) {
				return false
			}
		}
		body, nested := stripContainers(rest)
		if opensUnboundedHTML(body) {
			return false
		}
		if strings.HasPrefix(body, "<") {
			htmlish = true
		}
		ch, n, ok := openingFence(body)
		if !ok {
			continue
		}
		if htmlish {
			return false
		}
		if nested || indent > 3 {
			// A fence inside a container closes with it; four columns of indent make an
			// indented code line, not a fence.
			continue
		}
		inFence, fenceChar, fenceLen, fenceIndent = true, ch, n, indent
	}
	return !inFence
}

// cutLine splits off the first line of s. Like CommonMark, it treats "\n", "\r\n" and "\r" as
// line endings.
func cutLine(s string) (line, rest string) {
	i := strings.IndexAny(s, "\r\n")
	if i < 0 {
		return s, ""
	}
	if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
		return s[:i], s[i+2:]
	}
	return s[:i], s[i+1:]
}

// leadingIndent returns the width of the line's leading spaces and tabs (a tab advances to the
// next multiple of four columns) and the rest of the line.
func leadingIndent(line string) (int, string) {
	col := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, line[i:]
		}
	}
	return col, ""
}

// stripContainers removes block quote markers and list markers from the start of a line, and
// reports whether there were any.
func stripContainers(s string) (string, bool) {
	nested := false
	for {
		switch {
		case strings.HasPrefix(s, ">"):
			s = s[1:]
		case startsListItem(s):
			s = s[listMarkerLen(s):]
		default:
			return s, nested
		}
		nested = true
		_, s = leadingIndent(s)
	}
}

// startsListItem reports whether s begins with a list marker: -, + or * or 1-9 digits and . or
// ), then a space, a tab or the end of the line.
func startsListItem(s string) bool {
	return listMarkerLen(s) > 0
}

func listMarkerLen(s string) int {
	n := 0
	switch {
	case s == "":
		return 0
	case s[0] == '-' || s[0] == '+' || s[0] == '*':
		n = 1
	default:
		for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(s) || (s[n] != '.' && s[n] != ')') {
			return 0
		}
		n++
	}
	if n < len(s) && s[n] != ' ' && s[n] != '\t' {
		return 0
	}
	return n
}

// opensUnboundedHTML reports whether s starts an HTML block of CommonMark types 1-5, the ones
// that end at their own marker rather than at a blank line. It matches generously: "<pre" also
// matches "<preview", which can only make a message fenced that did not need to be.
func opensUnboundedHTML(s string) bool {
	if len(s) < 2 || s[0] != '<' {
		return false
	}
	if s[1] == '!' || s[1] == '?' {
		return true
	}
	lower := strings.ToLower(s[:min(len(s), len("<textarea"))])
	for _, tag := range []string{"<script", "<pre", "<style", "<textarea"} {
		if strings.HasPrefix(lower, tag) {
			return true
		}
	}
	return false
}

// openingFence reports whether s (with its indent removed) opens a fenced code block, and with
// which character and length. A backtick fence's info string cannot contain a backtick: such
// a line is a paragraph with inline code.
func openingFence(s string) (byte, int, bool) {
	if s == "" || (s[0] != '`' && s[0] != '~') {
		return 0, 0, false
	}
	c := s[0]
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.IndexByte(s[n:], '`') >= 0) {
		return 0, 0, false
	}
	return c, n, true
}

// isClosingFence reports whether s closes a fence of c repeated n times: at least n of c and
// nothing after them but spaces and tabs.
func isClosingFence(s string, c byte, n int) bool {
	i := 0
	for i < len(s) && s[i] == c {
		i++
	}
	if i < n {
		return false
	}
	return strings.Trim(s[i:], " \t") == ""
}
