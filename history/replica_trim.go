package history

import (
	"fmt"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// MaxReplicaEntryBytes is the size (annals.Entry.Size) over which a replicated entry is cut for
// the remote's copy; the host's own copy stays whole.
const MaxReplicaEntryBytes = 1 << 20

// TrimEntry returns e cut to at most limit bytes for a remote's copy: the largest of its text,
// reasoning and tool result loses its middle, first, then the next, and each cut text keeps
// both ends with a marker between them naming the bytes removed. Cuts fall on character
// boundaries. An entry within the limit is returned as it is; e is never modified. Tool
// arguments and metadata are JSON and are not cut.
func TrimEntry(e *annals.Entry, limit int) *annals.Entry {
	if e == nil || e.Size() <= limit {
		return e
	}
	out := *e
	if e.Tool != nil {
		t := *e.Tool
		out.Tool = &t
	}
	for range 3 {
		excess := out.Size() - limit
		if excess <= 0 {
			break
		}
		field := largestText(&out)
		if field == nil || len(*field) == 0 {
			break
		}
		*field = cutMiddle(*field, excess)
	}
	return &out
}

// largestText points at the longest of the entry's text, reasoning and tool result.
func largestText(e *annals.Entry) *string {
	best := &e.Text
	if len(e.Reasoning) > len(*best) {
		best = &e.Reasoning
	}
	if e.Tool != nil && len(e.Tool.Result) > len(*best) {
		best = &e.Tool.Result
	}
	return best
}

// cutMarker is the text put where a middle was cut.
func cutMarker(removed int) string {
	return fmt.Sprintf("\n[… annals replication removed %d bytes from the middle of this text …]\n", removed)
}

// cutMiddle removes at least excess bytes (and room for the marker) from the middle of s,
// keeping both ends whole characters.
func cutMiddle(s string, excess int) string {
	keep := len(s) - excess - len(cutMarker(len(s)))
	if keep < 0 {
		keep = 0
	}
	head := keep / 2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (keep - head)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + cutMarker(tail-head) + s[tail:]
}
