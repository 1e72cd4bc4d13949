package main

import (
	"context"
	"fmt"
	"strings"

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
	if h.Command == "" {
		return fmt.Sprintf("%s: no tool command continues this chat\n%s", h.SessionID, h.Hint)
	}
	if h.Cwd == "" {
		return h.Command
	}
	return "cd " + shellWord(h.Cwd) + " && " + h.Command
}

// shellWord quotes s for a POSIX shell unless it is made of characters a shell leaves alone.
func shellWord(s string) string {
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
