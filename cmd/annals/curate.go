package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
)

// byID runs a one-chat op of the history service on the chat the user named (a full id, a
// unique prefix, the source tool's own id or a pasted transcript path: the service resolves it)
// and prints the answer (or JSON). An id the service refuses as invalid (ambiguous, empty) is a
// usage mistake.
func (m *Main) byID(ctx context.Context, c *common, asJSON bool, scope, given string, op func(a *app, sel annals.ChatSelector) (any, error), say func(out any) string) error {
	a, err := m.openRead(ctx, c)
	if err != nil {
		return err
	}
	out, err := op(a, annals.ChatSelector{Scope: annals.Scope(scope), ID: given})
	if err != nil {
		return invalidIsUsage(err)
	}
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(out)
	}
	_, err = fmt.Fprintln(m.human(), say(out))
	return err
}

// fullID returns sel naming its chat by the full id the service resolves the given one to (a
// prefix, the source tool's own id, a pasted path): for the commands that must know the chat
// before they act on it.
func fullID(a *app, sel annals.ChatSelector) (annals.ChatSelector, error) {
	v, err := a.svc.GetChat(a.ctx, annals.GetParams{Chat: sel, Limit: 1})
	if err != nil {
		return sel, invalidIsUsage(err)
	}
	sel.ID = v.Chat.ID
	return sel, nil
}

// chatAnswer wraps an updated chat as the envelope answers it, so --json prints the same
// {"chat": ...} locally and against a server.
func chatAnswer(chat *annals.Chat, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return &envelope.ChatResponse{Chat: chat}, nil
}

func chatOf(out any) string {
	cr := out.(*envelope.ChatResponse)
	title := cr.Chat.Title
	if title == "" {
		title = "(untitled)"
	}
	return fmt.Sprintf("%s  %s", cr.Chat.ID, title)
}

func runRename(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("rename", "[flags] CHAT_ID TITLE...", "Set a chat's title. An empty TITLE (\"\") clears it.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print the updated chat as JSON")
	scope := fs.String("scope", "", "scope to find the chat in")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usagef("rename needs a chat id and a title")
	}
	title := strings.Join(fs.Args()[1:], " ")
	return m.byID(ctx, c, *asJSON, *scope, fs.Arg(0), func(a *app, sel annals.ChatSelector) (any, error) {
		return chatAnswer(a.svc.RenameChat(a.ctx, sel, title))
	}, func(out any) string { return "renamed " + chatOf(out) })
}

func runTag(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("tag", "[flags] CHAT_ID [TAG...]", "Replace a chat's tags with TAG... (--clear removes them all), and/or set its\ndescription with --description.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print the updated chat as JSON")
	scope := fs.String("scope", "", "scope to find the chat in")
	clear := fs.Bool("clear", false, "remove every tag")
	desc := fs.String("description", "", "set the description")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return usagef("tag needs a chat id")
	}
	var ann annals.Annotation
	if tags := fs.Args()[1:]; len(tags) > 0 || *clear {
		if len(tags) > 0 && *clear {
			return usagef("give tags or --clear, not both")
		}
		t := append([]string{}, tags...)
		ann.Tags = &t
	}
	fs.Visit(func(f *flagT) {
		if f.Name == "description" {
			ann.Description = desc
		}
	})
	if ann.Tags == nil && ann.Description == nil {
		return usagef("tag needs tags, --clear or --description")
	}
	return m.byID(ctx, c, *asJSON, *scope, fs.Arg(0), func(a *app, sel annals.ChatSelector) (any, error) {
		return chatAnswer(a.svc.AnnotateChat(a.ctx, sel, ann))
	}, func(out any) string {
		cr := out.(*envelope.ChatResponse)
		return fmt.Sprintf("%s tags: %s", cr.Chat.ID, orDash(strings.Join(cr.Chat.Tags, ", ")))
	})
}

func runPin(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("pin", "[flags] CHAT_ID", "Pin a chat so it lists first; --off unpins it.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print the updated chat as JSON")
	scope := fs.String("scope", "", "scope to find the chat in")
	off := fs.Bool("off", false, "unpin")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("pin needs exactly one chat id")
	}
	pinned := !*off
	return m.byID(ctx, c, *asJSON, *scope, fs.Arg(0), func(a *app, sel annals.ChatSelector) (any, error) {
		return chatAnswer(a.svc.PinChat(a.ctx, sel, pinned))
	}, func(out any) string {
		if pinned {
			return "pinned " + chatOf(out)
		}
		return "unpinned " + chatOf(out)
	})
}

func runArchive(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("archive", "[flags] CHAT_ID", "Archive a chat (hidden from list unless --archived); --off brings it back, as pin --off unpins.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print the updated chat as JSON")
	scope := fs.String("scope", "", "scope to find the chat in")
	off := fs.Bool("off", false, "restore an archived chat")
	restore := fs.Bool("restore", false, "the same as --off")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("archive needs exactly one chat id")
	}
	archived := !*off && !*restore
	return m.byID(ctx, c, *asJSON, *scope, fs.Arg(0), func(a *app, sel annals.ChatSelector) (any, error) {
		return chatAnswer(a.svc.ArchiveChat(a.ctx, sel, archived))
	}, func(out any) string {
		if archived {
			return "archived " + chatOf(out)
		}
		return "restored " + chatOf(out)
	})
}

func runRecap(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("recap", "[flags] CHAT_ID", "Summarise a chat's transcript so far and store the summary on the chat\n(replacing an earlier one). Uses the configured summarizer; the default is offline.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON: {chat, summary}")
	scope := fs.String("scope", "", "scope to find the chat in")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("recap needs exactly one chat id")
	}
	return m.byID(ctx, c, *asJSON, *scope, fs.Arg(0), func(a *app, sel annals.ChatSelector) (any, error) {
		return a.svc.RecapChat(a.ctx, sel)
	}, func(out any) string { return out.(*envelope.RecapResponse).Summary })
}
