package annals

import "strings"

// ShellLine is the command that continues the chat, ready to paste into a POSIX shell: the
// source tool's command, after a cd into the chat's folder when it has one. It is "" when no
// tool command continues the chat (Hint then says how to continue it). The CLI prints it and
// the terminal UI copies or runs it.
func (h *ResumeHandle) ShellLine() string {
	if h.Command == "" {
		return ""
	}
	if h.Cwd == "" {
		return h.Command
	}
	return "cd " + ShellWord(h.Cwd) + " && " + h.Command
}

// ShellWord quotes s for a POSIX shell unless it is made of characters a shell leaves alone.
func ShellWord(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=~", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
