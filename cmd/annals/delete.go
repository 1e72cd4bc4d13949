package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/internal/termsafe"
)

func runDelete(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("delete", "[flags] CHAT_ID", "Delete a chat with its transcript, runs, index rows and embedding. Irreversible:\non a terminal it shows the chat and asks; --yes deletes without asking, and is\nneeded where nobody can answer (a script, a pipe).")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	scope := fs.String("scope", "", "scope to find the chat in")
	yes := fs.Bool("yes", false, "delete without asking")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("delete needs exactly one chat id")
	}
	if !*yes && !m.interactive() {
		return usagef("delete is irreversible; run it again with --yes to delete %s", fs.Arg(0))
	}
	return m.byID(ctx, c, *asJSON, *scope, fs.Arg(0), func(a *app, sel annals.ChatSelector) (any, error) {
		// The full id, so the question and the answer name the chat, not the prefix typed.
		v, err := a.svc.GetChat(a.ctx, annals.GetParams{Chat: sel, Limit: 1})
		if err != nil {
			return nil, invalidIsUsage(err)
		}
		sel.ID = v.Chat.ID
		if !*yes {
			if err := m.confirmDelete(v.Chat); err != nil {
				return nil, err
			}
		}
		if err := a.svc.DeleteChat(a.ctx, sel); err != nil {
			return nil, err
		}
		return &envelope.DeleteResponse{Deleted: sel.ID}, nil
	}, func(out any) string { return "deleted " + out.(*envelope.DeleteResponse).Deleted })
}

// errNotConfirmed ends a delete the person did not confirm; nothing was deleted.
var errNotConfirmed = errors.New("not deleted (answer y to delete it, or pass --yes)")

// confirmDelete shows the chat a delete resolved to and asks the person at the terminal.
func (m *Main) confirmDelete(chat *annals.Chat) error {
	title := chat.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(m.Stderr, "Delete %s  %s  (%s, last active %s)? This cannot be undone. [y/N] ",
		termsafe.String(chat.ID), termsafe.String(oneLine(title)), plural(int(chat.Totals.Entries), "entry", "entries"), humanTime(chat.LastActivity))
	answer, _ := bufio.NewReader(m.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return errNotConfirmed
}

// interactive reports whether a person answers at standard input: Interactive when set (tests),
// else standard input and standard error are both terminals.
func (m *Main) interactive() bool {
	if m.Interactive != nil {
		return m.Interactive()
	}
	f, ok := m.Stdin.(*os.File)
	return ok && m.IsTerminal(f) && m.IsTerminal(m.Stderr)
}
