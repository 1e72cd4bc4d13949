package web

import "github.com/annals-dev/annals"

// The chat header's resume menu: the ways to continue an imported chat in its source tool,
// each shown as text with a copy button (never a link: nothing from a transcript becomes a URL).
// The commands are the history's (ResumeChat) and the CLI's (annals resume), quoted for a POSIX
// shell where they carry a folder or an id.

// resumeOption is one line of the menu.
type resumeOption struct {
	Label, Command string
}

// resumeOptions lists, for a chat its source tool can continue: the command in the chat's
// folder (the folder quoted, as annals resume prints it), the command alone (for a shell already
// there), and annals resume, which prints the command from any terminal that reaches the
// history. A chat without a tool command has none.
func resumeOptions(h *annals.ResumeHandle) []resumeOption {
	if h == nil || h.Command == "" {
		return nil
	}
	var out []resumeOption
	if h.Cwd != "" {
		out = append(out, resumeOption{"In the chat's folder", h.ShellLine()})
	}
	out = append(out, resumeOption{"In the current folder", h.Command})
	out = append(out, resumeOption{"Through annals (prints the command)", "annals resume " + annals.ShellWord(h.SessionID)})
	return out
}
