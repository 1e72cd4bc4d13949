package reader

import "strings"

// Resumer is a Format whose tool has its own command to continue a saved session. Each was
// checked against the tool's documentation; importer adds the command to the chats the tool
// lists as its own sessions (not sub-agents, side chains or branches) as the attribute
// resume_command, and the tool's session id as session_id.
type Resumer interface {
	// ResumeCommand returns the command that continues the session whose chat id, without
	// "<Name()>:", is native, and the tool's own id of that session ("" when the command names
	// none). ok is false when native is not a session id the command can name.
	ResumeCommand(native string) (cmd, sessionID string, ok bool)
}

// ResumeWith is ResumeCommand for a command template: "%s" in tmpl stands for the session id,
// which must be the tool's own (see resumableID); a template without "%s" resumes by folder and
// names no session.
func ResumeWith(tmpl, native string) (cmd, sessionID string, ok bool) {
	if !strings.Contains(tmpl, "%s") {
		return tmpl, "", true
	}
	if !resumableID(native) {
		return "", "", false
	}
	return strings.ReplaceAll(tmpl, "%s", native), native, true
}

// resumableID reports whether id is a tool's own session id that is safe to print in a shell
// command as it is: letters, digits, '-', '_' and '.', and not a hash annals made of a long id.
func resumableID(id string) bool {
	if id == "" || len(id) > 128 || strings.HasPrefix(id, "h-") || strings.HasPrefix(id, "-") {
		return false
	}
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return true
}
