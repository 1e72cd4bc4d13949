package main

import (
	"context"
	"fmt"

	"github.com/annals-dev/annals"
)

func runResume(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("resume", "[flags] CHAT_ID", "Print how to continue a chat: for an imported chat, the source tool's own command\n(claude --resume, codex resume, gemini --resume, opencode --session, copilot --resume,\naider --restore-chat-history) in the folder it ran in. Starts nothing.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print the continuation handle as JSON")
	scope := fs.String("scope", "", "scope to find the chat in")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("resume needs exactly one chat id")
	}
	return m.byID(ctx, c, *asJSON, *scope, fs.Arg(0), func(a *app, sel annals.ChatSelector) (any, error) {
		return a.svc.ResumeChat(a.ctx, sel)
	}, func(out any) string { return resumeText(out.(*annals.ResumeHandle)) })
}

// resumeText is the command to run, ready to paste (with a cd into the chat's folder), or
// the handle's hint for a chat no tool command continues.
func resumeText(h *annals.ResumeHandle) string {
	if line := h.ShellLine(); line != "" {
		return line
	}
	return fmt.Sprintf("%s: no tool command continues this chat\n%s", h.SessionID, h.Hint)
}
