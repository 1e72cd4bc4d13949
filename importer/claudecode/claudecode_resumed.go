package claudecode

import (
	"path/filepath"
	"regexp"
	"strings"
)

// A resumed session. `claude --resume <id>` (and --continue) starts a new session with a new id
// and writes it to a new file named by that id, <new id>.jsonl, whose first lines are the
// earlier session's, copied with their own sessionId; the lines written after the resume carry
// the new one (anthropics/claude-code#4926 shows the files). The file's chat is the new
// session's, keyed on the file's id, which is what `claude --resume` takes to continue the
// whole conversation; the earlier id is the chat's attribute ResumedFromAttr, by which annals
// finds the chat too when the earlier session's own file is gone (history's id resolution).

// ResumedFromAttr is the attribute naming the session a resumed session's file started from.
const ResumedFromAttr = "resumed_from"

// ccUUID is a session id as Claude Code names its files; compiled once, never changed.
var ccUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ccSessionOf returns the session a main file's chat is keyed on, given the sessionId of its
// first line, and the session it was resumed from: the file's own id when the file is named by
// a session id other than its first line's (a resumed session), else the line's.
func ccSessionOf(path string, agent bool, first string) (session, resumedFrom string) {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if agent || !ccUUID.MatchString(base) || !ccUUID.MatchString(first) || base == first {
		return first, ""
	}
	return base, first
}
