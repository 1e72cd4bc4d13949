package claudecode

import (
	"regexp"
	"strings"
)

// Commands. Claude Code writes a command the person ran (a slash command) as a user line of
// tags, "<command-name>/clear</command-name><command-message>clear</command-message>
// <command-args></command-args>", and a local command's output as another,
// "<local-command-stdout>…</local-command-stdout>". A command without arguments (/clear,
// /compact, /model) and such output are no prompt: they are event entries on ccCommandChannel
// with the command in metadata. A command with arguments ("/review the login flow") carries
// the person's request and stays a user entry, with the command in metadata.

// ccCommandChannel is the channel of a command's event.
const ccCommandChannel = "claude-code/command"

// Compiled once, never changed.
var (
	ccCommandTag = regexp.MustCompile(`(?s)^\s*(?:<command-message>.*?</command-message>\s*)?<command-name>(.*?)</command-name>`)
	ccArgsTag    = regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`)
	ccOutputTag  = regexp.MustCompile(`(?s)^\s*<local-command-(stdout|stderr)>(.*?)</local-command-(?:stdout|stderr)>\s*$`)
)

// ccCommand reports whether a user line's text is a command without arguments or a local
// command's output, adding what it is to the entry's metadata m; a command with arguments
// gets its name in m and is not one.
func ccCommand(text string, m map[string]any) bool {
	if o := ccOutputTag.FindStringSubmatch(text); o != nil {
		m["command_output"] = o[1]
		return true
	}
	c := ccCommandTag.FindStringSubmatch(text)
	if c == nil {
		return false
	}
	m["command"] = strings.TrimSpace(c[1])
	args := ""
	if a := ccArgsTag.FindStringSubmatch(text); a != nil {
		args = strings.TrimSpace(a[1])
	}
	if args != "" {
		m["command_args"] = args
		return false
	}
	return true
}

// ccCommandText is what a command's event says: the command, or the output.
func ccCommandText(text string, m map[string]any) string {
	if o := ccOutputTag.FindStringSubmatch(text); o != nil {
		return strings.TrimSpace(o[2])
	}
	if name, ok := m["command"].(string); ok {
		return name
	}
	return text
}
