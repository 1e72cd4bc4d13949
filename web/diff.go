package web

import (
	"strings"

	"github.com/annals-dev/annals/internal/termsafe"
)

// An edit's tool call shown as a diff: the old and new text of an edit (old_string/new_string
// and their spellings, or a list of such edits), a new file's content, or a patch.

// diffLine is one line of a diff; Op is its class: add, del, ctx or hunk.
type diffLine struct {
	Op   string
	Text string
}

const (
	// maxDiffLines bounds a diff's lines on the page.
	maxDiffLines = 2000
	// maxDiffCells bounds the line comparison (old lines × new lines); past it the old text is
	// shown removed and the new one added.
	maxDiffCells = 400_000
)

var editPairs = [][2]string{{"old_string", "new_string"}, {"old_str", "new_str"}, {"oldText", "newText"}, {"old_text", "new_text"}}

// editDiff is the diff an edit's arguments describe, or nil for any other call.
func editDiff(tool string, args map[string]any) []diffLine {
	if args == nil {
		return nil
	}
	var out []diffLine
	for _, p := range editPairs {
		o, ok1 := args[p[0]].(string)
		n, ok2 := args[p[1]].(string)
		if ok1 && ok2 {
			return bound(lineDiff(o, n))
		}
	}
	if edits, ok := args["edits"].([]any); ok {
		for _, e := range edits {
			m, _ := e.(map[string]any)
			for _, p := range editPairs {
				o, ok1 := m[p[0]].(string)
				n, ok2 := m[p[1]].(string)
				if ok1 && ok2 {
					out = append(out, diffLine{Op: "hunk", Text: "@@"})
					out = append(out, lineDiff(o, n)...)
					break
				}
			}
		}
		return bound(out)
	}
	for _, k := range []string{"patch", "diff", "input"} {
		if s, ok := args[k].(string); ok && looksLikePatch(s) {
			return bound(patchLines(s))
		}
	}
	lower := strings.ToLower(tool)
	if content, ok := args["content"].(string); ok && (strings.Contains(lower, "write") || strings.Contains(lower, "create")) {
		for _, l := range splitLines(content) {
			out = append(out, diffLine{Op: "add", Text: l})
		}
		return bound(out)
	}
	return nil
}

func looksLikePatch(s string) bool {
	return strings.HasPrefix(s, "*** Begin Patch") || strings.HasPrefix(s, "--- ") || strings.HasPrefix(s, "diff --git") || strings.HasPrefix(s, "@@")
}

func patchLines(s string) []diffLine {
	var out []diffLine
	for _, l := range splitLines(s) {
		op := "ctx"
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"), strings.HasPrefix(l, "***"), strings.HasPrefix(l, "diff "):
			op = "hunk"
		case strings.HasPrefix(l, "+"):
			op = "add"
		case strings.HasPrefix(l, "-"):
			op = "del"
		}
		out = append(out, diffLine{Op: op, Text: l})
	}
	return out
}

func splitLines(s string) []string {
	s = termsafe.String(strings.TrimSuffix(s, "\n"))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func bound(lines []diffLine) []diffLine {
	if len(lines) > maxDiffLines {
		lines = append(lines[:maxDiffLines:maxDiffLines], diffLine{Op: "hunk", Text: "… (the rest of the diff is in the arguments)"})
	}
	return lines
}

// lineDiff compares two texts line by line: the common head and tail as context, the middle
// by longest common subsequence when it is small enough.
func lineDiff(oldText, newText string) []diffLine {
	a, b := splitLines(oldText), splitLines(newText)
	var head, tail []diffLine
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		head = append(head, diffLine{Op: "ctx", Text: a[0]})
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		tail = append([]diffLine{{Op: "ctx", Text: a[len(a)-1]}}, tail...)
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	out := append(head, middle(a, b)...)
	return append(out, tail...)
}

func middle(a, b []string) []diffLine {
	var out []diffLine
	if len(a)*len(b) > maxDiffCells {
		for _, l := range a {
			out = append(out, diffLine{Op: "del", Text: l})
		}
		for _, l := range b {
			out = append(out, diffLine{Op: "add", Text: l})
		}
		return out
	}
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, diffLine{Op: "ctx", Text: a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, diffLine{Op: "del", Text: a[i]})
			i++
		default:
			out = append(out, diffLine{Op: "add", Text: b[j]})
			j++
		}
	}
	return out
}
