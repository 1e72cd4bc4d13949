package importer

import (
	"context"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// Titles a person can scan. A chat is titled, in this order, by the title its source gave it
// (a Claude Code custom-title, summary or ai-title, a Codex thread name, a ChatGPT title, ...),
// by a sub-agent's description, or by its first real prompt. The last two are derived: the
// importer records the derived title in the chat's attribute DerivedTitleAttr when it creates
// the chat, and a title that equals that attribute may be replaced by a better one that comes
// later (a summary line read in a later import). A title a person gave is never replaced: it
// differs from the derived one.

// DerivedTitleAttr is the chat attribute holding the title the importer derived for a chat (a
// sub-agent's description, or the first line of the first real prompt). While the chat's
// title equals it, a title from the source replaces it.
const DerivedTitleAttr = "derived_title"

// MaxDerivedTitle bounds a derived title, in characters.
const MaxDerivedTitle = 80

// TitleReplacer is a TitleSetter that can also replace a derived title. The importer uses it,
// when Options.Titles implements it, for the titles a source gives (summary lines, renames in
// the source), so that they replace a title derived from the first prompt.
type TitleReplacer interface {
	// ReplaceDerivedTitle sets the title of chatID when it has none or when its title is
	// its DerivedTitleAttr attribute. It reports whether it set the title.
	ReplaceDerivedTitle(ctx context.Context, chatID, title string) (bool, error)
}

// ChatTitleStore is what StoreTitles reads and writes: a chat by id, and its title. A chat
// store is one; so is an adapter over a history service (the command line importing through a
// server).
type ChatTitleStore interface {
	FindChatByID(ctx context.Context, id string) (*annals.Chat, error)
	UpdateChat(ctx context.Context, ref annals.ChatRef, upd annals.ChatUpdate) (*annals.Chat, error)
}

// StoreTitles is a TitleSetter and TitleReplacer over a chat store. Clean, when set, is
// applied to every title before it is compared and stored (the command line redacts with it).
type StoreTitles struct {
	Store ChatTitleStore
	Clean func(string) string
}

// SetTitleIfEmpty sets the title of a chat that has none.
func (t *StoreTitles) SetTitleIfEmpty(ctx context.Context, chatID, title string) (bool, error) {
	return t.set(ctx, chatID, title, false)
}

// ReplaceDerivedTitle sets the title of a chat that has none or has its derived title.
func (t *StoreTitles) ReplaceDerivedTitle(ctx context.Context, chatID, title string) (bool, error) {
	return t.set(ctx, chatID, title, true)
}

func (t *StoreTitles) set(ctx context.Context, chatID, title string, replaceDerived bool) (bool, error) {
	chat, err := t.Store.FindChatByID(ctx, chatID)
	if err != nil {
		return false, err
	}
	if chat.Title != "" && !(replaceDerived && chat.Title == chat.Attributes[DerivedTitleAttr]) {
		return false, nil
	}
	title = strings.TrimSpace(title)
	if t.Clean != nil {
		title = t.Clean(title)
	}
	title = Truncated(title, annals.MaxTitleBytes)
	if title == "" || title == chat.Title {
		return false, nil
	}
	if _, err := t.Store.UpdateChat(ctx, chat.Ref(), annals.ChatUpdate{Title: &title}); err != nil {
		return false, err
	}
	return true, nil
}

// injectedTags are the blocks agent tools put into a user message that the person did not
// type: reminders, slash-command plumbing, local command output, environment and IDE context.
var injectedTags = []string{
	"system-reminder", "command-name", "command-message", "command-args", "command-contents",
	"local-command-stdout", "local-command-stderr", "local-command-caveat", "bash-stdout", "bash-stderr",
	"environment_context", "user_instructions", "ide_opened_file", "ide_selection", "ide_diagnostics",
	"user-prompt-submit-hook", "task-notification", "turn_aborted", "user_shell_command", "permissions instructions",
}

// injectedBlocks match one injected block each, up to its closing tag (or the end of the text
// when it is not closed).
var injectedBlocks = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(injectedTags))
	for i, tag := range injectedTags {
		q := regexp.QuoteMeta(tag)
		out[i] = regexp.MustCompile(`(?s)<` + q + `(?:\s[^>]*)?>.*?(?:</` + q + `>|\z)`)
	}
	return out
}()

// wrapperTags wrap what the person typed: the tags go, their text stays.
var wrapperTags = regexp.MustCompile(`</?(bash-input|user_query)>`)

// DeriveTitle returns a title made from a prompt: its first line that is the person's own
// (system-injected blocks, caveats and attachment placeholders left out), on one line, at most
// MaxDerivedTitle characters. It returns "" when nothing of the person's own is left.
func DeriveTitle(prompt string) string {
	text := prompt
	// The Codex IDE extension sends the editor's context first and the request after a
	// heading: the request is what the person typed.
	if _, req, ok := strings.Cut(text, "## My request for Codex:"); ok {
		text = req
	}
	for _, re := range injectedBlocks {
		text = re.ReplaceAllString(text, "\n")
	}
	text = wrapperTags.ReplaceAllString(text, "")
	for _, line := range strings.Split(text, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		line = strings.TrimSpace(strings.TrimLeft(line, "#>"))
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "Caveat: The messages below were generated by the user"):
			continue
		case strings.HasPrefix(line, "[Request interrupted by user"):
			continue
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") && !strings.Contains(line, " "):
			continue // [image], [document], [attachment]
		}
		if m := slashCommand.FindStringSubmatch(line); m != nil {
			// A command typed into the tool (Aider's /add, /run, /undo, ...) names nothing;
			// the ones that carry a request (/ask, /code, /architect) are titled by it.
			switch rest := strings.TrimSpace(m[2]); {
			case rest != "" && (m[1] == "ask" || m[1] == "code" || m[1] == "architect"):
				line = rest
			default:
				continue
			}
		}
		return boundTitle(ValidText(line), MaxDerivedTitle)
	}
	// A slash command with arguments: what the person typed was the command and its
	// arguments ("/review the login flow"). A bare command (/clear, /model) names nothing.
	if m := commandArgs.FindStringSubmatch(prompt); m != nil {
		if args := strings.Join(strings.Fields(m[1]), " "); args != "" {
			name := ""
			if n := commandName.FindStringSubmatch(prompt); n != nil {
				name = strings.TrimSpace(n[1]) + " "
			}
			return boundTitle(ValidText(name+args), MaxDerivedTitle)
		}
	}
	return ""
}

var (
	slashCommand = regexp.MustCompile(`^/([a-z][a-z-]*)(?:\s+(.*))?$`)
	commandName  = regexp.MustCompile(`(?s)<command-name>(.*?)</command-name>`)
	commandArgs  = regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`)
)

// boundTitle cuts s to at most max characters, at a word when one ends near the cut.
func boundTitle(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}
