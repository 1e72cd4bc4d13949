package mcp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// middle shortens s to at most max bytes by cutting its middle, keeping the start and the end
// (where a command and its verdict usually are) and saying in the cut how much went and how to
// read it: more is the call that reads on. The result is at most limit bytes unless limit is too
// small to hold the marker and a little text on each side.
func middle(s string, limit int, more string) string {
	if len(s) <= limit {
		return s
	}
	const format = " [… %s of %s bytes cut here; %s …] "
	// The cut count has at most as many digits as the whole length.
	room := limit - len(fmt.Sprintf(format, groupDigits(len(s)), groupDigits(len(s)), more))
	room = min(len(s), max(room, 32))
	head := cutValid(s, room*2/3)
	tail := s[len(s)-validSuffix(s, room-len(head)):]
	cut := len(s) - len(head) - len(tail)
	return head + fmt.Sprintf(format, groupDigits(cut), groupDigits(len(s)), more) + tail
}

// cutValid is the longest prefix of s of at most n bytes that ends on a rune boundary.
func cutValid(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// validSuffix is the length of the longest suffix of s of at most n bytes that starts on a
// rune boundary.
func validSuffix(s string, n int) int {
	if n <= 0 {
		return 0
	}
	if n >= len(s) {
		return len(s)
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return len(s) - i
}

func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// stamp is a time as the answers show it, UTC to the second; "" for no time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// oneLine is s on one line, at most n bytes, for overviews and list rows.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return cutValid(s, n-len("…")) + "…"
}

// titleOf is a chat's title for display.
func titleOf(c *annals.Chat) string {
	if c.Title != "" {
		return c.Title
	}
	return "(untitled)"
}

// call renders a tool call the model can make, for the hints that say how to read on.
func call(tool string, args map[string]any) string {
	b, _ := json.Marshal(args)
	return tool + " " + string(b)
}

// entryHeader is the first line of an entry: seq, kind, time, and the tool with its outcome.
func entryHeader(e *annals.Entry) string {
	h := fmt.Sprintf("#%d %s", e.Seq, e.Kind)
	if e.Tool != nil {
		h += " " + e.Tool.Name
		if e.Tool.Outcome != "" {
			h += " (" + string(e.Tool.Outcome) + ")"
		}
	}
	if t := stamp(e.Time); t != "" {
		h += " · " + t
	}
	return h
}

// entryBody is an entry's whole content as one text: message, reasoning, tool arguments and
// result, each labelled. history_read with seq pages through it.
func entryBody(e *annals.Entry) string {
	var parts []string
	if e.Text != "" {
		parts = append(parts, e.Text)
	}
	if e.Reasoning != "" {
		parts = append(parts, "reasoning: "+e.Reasoning)
	}
	if e.Tool != nil {
		if len(e.Tool.Arguments) > 0 {
			parts = append(parts, "arguments: "+string(e.Tool.Arguments))
		}
		if e.Tool.Result != "" {
			parts = append(parts, "result: "+e.Tool.Result)
		}
	}
	return strings.Join(parts, "\n")
}
