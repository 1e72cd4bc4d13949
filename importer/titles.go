package importer

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Titles a person can scan. A chat is titled, in this order, by the title its source gave it
// (a Claude Code custom-title, summary or ai-title, a Codex thread name, a ChatGPT title, ...),
// by a sub-agent's description, or by its first real prompt. The last two are derived: the
// importer records the derived title in the chat's attribute DerivedTitleAttr when it creates
// the chat, and a title that equals that attribute may be replaced by a better one that comes
// later (a summary line read in a later import). A title a person gave is never replaced: it
// differs from the derived one.

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
	if chat.Title != "" && !(replaceDerived && chat.Title == chat.Attributes[reader.DerivedTitleAttr]) {
		return false, nil
	}
	title = strings.TrimSpace(title)
	if t.Clean != nil {
		title = t.Clean(title)
	}
	title = reader.Truncated(title, annals.MaxTitleBytes)
	if title == "" || title == chat.Title {
		return false, nil
	}
	if _, err := t.Store.UpdateChat(ctx, chat.Ref(), annals.ChatUpdate{Title: &title}); err != nil {
		return false, err
	}
	return true, nil
}

var ()
