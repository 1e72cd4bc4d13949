package main

import (
	"strings"

	"github.com/annals-dev/annals"
)

// maxShownMatches bounds the chats an ambiguous id lists.
const maxShownMatches = 10

// resolveID turns the chat id a person typed into the id of one chat in scope: the id itself,
// else the one chat whose id starts with it or holds it right after a ':' (the source tool's own
// session id: 7f3c2a10 finds claude-code:7f3c2a10-...). None is the usual not-found; several is a
// usage error that lists them.
func resolveID(a *app, scope, given string) (string, error) {
	res, err := a.svc.FindChats(a.ctx, annals.ListParams{
		Scope:  annals.Scope(scope),
		Filter: annals.ChatQuery{IDPrefix: given, IncludeArchived: true},
		Page:   annals.PageParams{Limit: maxShownMatches + 1},
	})
	if err != nil {
		return "", err
	}
	for _, c := range res.Chats {
		if c.ID == given {
			return given, nil
		}
	}
	// The source tool's own id, whole: claude-code:<given>.
	for _, c := range res.Chats {
		if _, native, ok := strings.Cut(c.ID, ":"); ok && native == given {
			return c.ID, nil
		}
	}
	switch len(res.Chats) {
	case 0:
		return "", annals.NotFound(given)
	case 1:
		return res.Chats[0].ID, nil
	}
	// A session and its sub-agents (claude-code:<sid> and claude-code:<sid>/sidechain-...) all
	// match a prefix of the session id; the session itself is what was meant.
	if res.Total == len(res.Chats) {
		if base, ok := commonParent(res.Chats); ok {
			return base, nil
		}
	}
	ids := make([]string, 0, len(res.Chats))
	for i, c := range res.Chats {
		if i == maxShownMatches {
			ids = append(ids, "...")
			break
		}
		ids = append(ids, c.ID)
	}
	more := ""
	if res.Total > len(res.Chats) {
		more = " (and more)"
	}
	return "", usagef("%q matches %d chats%s: %s; give more of the id", given, res.Total, more, strings.Join(ids, ", "))
}

// commonParent returns the chat of which every other chat is a sub-chat (its id followed by
// "/"), if there is one.
func commonParent(chats []*annals.Chat) (string, bool) {
	for _, p := range chats {
		all := true
		for _, c := range chats {
			if c.ID != p.ID && !strings.HasPrefix(c.ID, p.ID+"/") {
				all = false
				break
			}
		}
		if all {
			return p.ID, true
		}
	}
	return "", false
}
