package importer

import (
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
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

// resumers are the formats of the registry whose tool can continue a session, by name: a
// chat's source attribute names the format whose command resumes it, whichever reader read it
// (an annals export keeps the source of the chat it copied).
func resumers(formats []Format) map[string]reader.Resumer {
	out := map[string]reader.Resumer{}
	for _, f := range formats {
		if r, ok := f.(reader.Resumer); ok {
			out[f.Name()] = r
		}
	}
	return out
}

// withResume returns c's attributes with the resume attributes added, when c is a session its
// source tool can resume; otherwise c.Attributes unchanged. The map is copied, never changed.
func withResume(rs map[string]reader.Resumer, c *annals.Chat) annals.Attributes {
	format := c.Attributes["source"]
	r, ok := rs[format]
	if !ok || c.Attributes[ResumeCommandAttr] != "" || c.Attributes["parent"] != "" || c.Attributes["subagent"] != "" {
		return c.Attributes
	}
	native, ok := strings.CutPrefix(c.ID, format+":")
	if !ok {
		return c.Attributes
	}
	cmd, sessionID, ok := r.ResumeCommand(native)
	if !ok {
		return c.Attributes
	}
	if len(c.Attributes)+2 > annals.MaxAttributes {
		return c.Attributes
	}
	out := make(annals.Attributes, len(c.Attributes)+2)
	for k, v := range c.Attributes {
		out[k] = v
	}
	out[ResumeCommandAttr] = cmd
	if sessionID != "" && out[SessionIDAttr] == "" {
		out[SessionIDAttr] = sessionID
	}
	return out
}

// resumePlaceholder stands for a session id when a format's command is described rather than
// built for one chat (annals import --list, docs/IMPORT.md).
const resumePlaceholder = "SESSION-ID"

// ResumeTemplate describes the command f's tool continues a session with, "<session id>" standing
// for the id, or "" when the tool has none.
func ResumeTemplate(f Format) string {
	r, ok := f.(reader.Resumer)
	if !ok {
		return ""
	}
	cmd, _, ok := r.ResumeCommand(resumePlaceholder)
	if !ok {
		return ""
	}
	return strings.ReplaceAll(cmd, resumePlaceholder, "<session id>")
}
