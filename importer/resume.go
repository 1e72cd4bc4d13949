package importer

import (
	"strings"

	"github.com/annals-dev/annals"
)

// Resuming in the source tool. Where a tool has its own command to continue a saved session,
// an imported chat carries it: the attribute ResumeCommandAttr (what `annals resume` prints,
// with the chat's cwd), and SessionIDAttr, the tool's own id of the session. Only a session the
// tool lists as its own gets them (not a sub-agent, a side chain or a branch, which the tools
// do not resume on their own).

// Attributes set for resuming a chat in its source tool.
const (
	ResumeCommandAttr = "resume_command"
	SessionIDAttr     = "session_id"
)

// resumeCommands are the tools' commands to continue a session, by format; %s is the
// session id. Each was checked against the tool's documentation:
//   - Claude Code: `claude --resume <session id>`, run in the session's project folder.
//   - Codex CLI: `codex resume <session id>` (exec sessions too).
//   - Gemini CLI: `gemini --resume <session UUID>`, in the project's folder (sessions are per
//     project).
//   - OpenCode: `opencode --session <ses_… id>`.
//   - GitHub Copilot CLI: `copilot --resume=<session id>`.
//   - Aider keeps no session ids: `aider --restore-chat-history`, in the repository, loads the
//     history file back.
var resumeCommands = map[string]string{
	"claude-code": "claude --resume %s",
	"codex":       "codex resume %s",
	"gemini-cli":  "gemini --resume %s",
	"opencode":    "opencode --session %s",
	"copilot-cli": "copilot --resume=%s",
	"aider":       "aider --restore-chat-history",
}

// withResume returns c's attributes with the resume attributes added, when c is a session its
// source tool can resume; otherwise c.Attributes unchanged. The map is copied, never changed.
func withResume(c *annals.Chat) annals.Attributes {
	format := c.Attributes["source"]
	tmpl, ok := resumeCommands[format]
	if !ok || c.Attributes[ResumeCommandAttr] != "" || c.Attributes["parent"] != "" || c.Attributes["subagent"] != "" {
		return c.Attributes
	}
	native, ok := strings.CutPrefix(c.ID, format+":")
	if !ok {
		return c.Attributes
	}
	if format == "codex" {
		native = strings.TrimSuffix(native, "/exec")
	}
	cmd := tmpl
	if strings.Contains(tmpl, "%s") {
		if !resumableID(native) {
			return c.Attributes
		}
		cmd = strings.ReplaceAll(tmpl, "%s", native)
	}
	if len(c.Attributes)+2 > annals.MaxAttributes {
		return c.Attributes
	}
	out := make(annals.Attributes, len(c.Attributes)+2)
	for k, v := range c.Attributes {
		out[k] = v
	}
	out[ResumeCommandAttr] = cmd
	if strings.Contains(tmpl, "%s") && out[SessionIDAttr] == "" {
		out[SessionIDAttr] = native
	}
	return out
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
