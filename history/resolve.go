package history

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/annals-dev/annals"
)

// maxShownMatches bounds the chats an ambiguous id lists.
const maxShownMatches = 10

// resumedFromAttr is the chat attribute an importer gives a resumed session's chat: the id of
// the session it continued (docs/IMPORT.md, Claude Code).
const resumedFromAttr = "resumed_from"

// findChat turns the chat id a caller gave into the one chat in res's scope it names, the way
// people have ids: the id itself; else what they paste (surrounding spaces, upper-case hex, a
// Claude Code .../<uuid>.jsonl path, a Codex rollout-<time>-<uuid>.jsonl file name) reduced to
// the id it holds; else the one chat in scope whose id starts with it or holds it right after
// a ':' (the source tool's own id: 7f3c2a10 finds claude-code:7f3c2a10-...). Only chats in
// scope are ever looked at or listed, so a chat outside it is exactly as not found as a missing
// one. Several matches are an invalid error listing them; none is the usual not-found.
func (s *Service) findChat(ctx context.Context, op string, res *Resolved, given string) (*annals.Chat, error) {
	id := strings.TrimSpace(given)
	if id == "" {
		return nil, annals.Errorf(annals.EINVALID, "session_id is required for op %s (a chat's id, a unique prefix of it, or the source tool's own session id)", op)
	}
	if chat, err := s.inScope(ctx, res, id); chat != nil || err != nil {
		return chat, err
	}
	want := pastedID(id)
	if want != id {
		if chat, err := s.inScope(ctx, res, want); chat != nil || err != nil {
			return chat, err
		}
	}
	if annals.ValidateID("session_id", want) != nil {
		return nil, annals.NotFound(id)
	}
	// One more than are listed, to tell "these" from "these and more"; the store finds them by
	// index range scans, so an unknown id costs a lookup, not a scan of the tenant's chats.
	ids, err := s.store.MatchChatIDs(ctx, res.Owner, want, maxShownMatches+1)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		// A resumed session's earlier id names the chat that continued it (importer: a Claude
		// Code file of a resumed session is keyed on its own, newer id).
		if ids, err = s.store.ChatIDsWithAttribute(ctx, res.Owner, resumedFromAttr, want, maxShownMatches+1); err != nil {
			return nil, err
		}
	}
	match, err := s.oneMatch(ctx, res, id, want, ids)
	if err != nil {
		return nil, err
	}
	// Fetched again by its id, so a by-id op binds to the chat as a by-id fetch returns it.
	chat, err := s.inScope(ctx, res, match)
	if err == nil && chat == nil {
		err = annals.NotFound(id)
	}
	return chat, err
}

// inScope fetches the chat with exactly this id: nil without an error when it is missing or
// outside the scope (the two are never told apart).
func (s *Service) inScope(ctx context.Context, res *Resolved, id string) (*annals.Chat, error) {
	chat, err := s.store.FindChatByID(ctx, id)
	switch {
	case annals.ErrorCode(err) == annals.ENOTFOUND:
		return nil, nil
	case err != nil:
		return nil, err
	case !res.Owner.Matches(chat):
		return nil, nil
	}
	return chat, nil
}

// oneMatch picks the chat a prefix names among the ids of the chats in scope that match it
// (at most maxShownMatches+1 of them): one whose source id is exactly it, the only one, or a
// session whose sub-agents are all the others.
func (s *Service) oneMatch(ctx context.Context, res *Resolved, given, want string, ids []string) (string, error) {
	if native, err := s.sameSourceID(ctx, res, want, ids); native != "" || err != nil {
		return native, err
	}
	switch len(ids) {
	case 0:
		return "", annals.NotFound(given)
	case 1:
		return ids[0], nil
	}
	more := len(ids) > maxShownMatches
	// A session and its sub-agents (claude-code:<sid> and claude-code:<sid>/sidechain-...) all
	// match a prefix of the session id; the session itself is what was meant.
	if !more {
		if base, ok := commonParent(ids); ok {
			return base, nil
		}
	}
	count := fmt.Sprintf("%d chats", len(ids))
	shown := ids
	if more {
		count = fmt.Sprintf("more than %d chats", maxShownMatches)
		shown = append(ids[:maxShownMatches:maxShownMatches], "...")
	}
	return "", annals.Errorf(annals.EINVALID, "%q matches %s: %s; give more of the id", given, count, strings.Join(shown, ", "))
}

// sameSourceID returns the chat among ids whose source id (the text after its first ':') is
// exactly want; of several (two tools with one session id), the one a chat list shows first:
// pinned, then the most recent activity, then the least id.
func (s *Service) sameSourceID(ctx context.Context, res *Resolved, want string, ids []string) (string, error) {
	var best *annals.Chat
	for _, id := range ids {
		if _, native, ok := strings.Cut(id, ":"); !ok || native != want {
			continue
		}
		c, err := s.inScope(ctx, res, id)
		if err != nil {
			return "", err
		}
		if c != nil && (best == nil || listedBefore(c, best)) {
			best = c
		}
	}
	if best == nil {
		return "", nil
	}
	return best.ID, nil
}

// listedBefore reports whether a chat list (annals.ChatStore.FindChats) shows a before b.
func listedBefore(a, b *annals.Chat) bool {
	if a.Pinned != b.Pinned {
		return a.Pinned
	}
	if !a.LastActivity.Equal(b.LastActivity) {
		return a.LastActivity.After(b.LastActivity)
	}
	return a.ID < b.ID
}

// commonParent returns the id of which every other id is a sub-chat's (its id followed by
// "/"), if there is one.
func commonParent(ids []string) (string, bool) {
	for _, p := range ids {
		all := true
		for _, c := range ids {
			if c != p && !strings.HasPrefix(c, p+"/") {
				all = false
				break
			}
		}
		if all {
			return p, true
		}
	}
	return "", false
}

// uuidLen is the length of a UUID in its text form.
const uuidLen = 36

// pastedID reduces what people paste for a session to the id it holds: a transcript file's
// path or name to its session id (Claude Code names the file <session id>.jsonl, Codex
// rollout-<time>-<session id>.jsonl), and upper-case hex to the lower case tools write.
func pastedID(id string) string {
	if strings.HasSuffix(strings.ToLower(id), ".jsonl") {
		base := path.Base(strings.ReplaceAll(id, `\`, "/"))
		base = base[:len(base)-len(".jsonl")]
		if strings.HasPrefix(base, "rollout-") && len(base) > uuidLen && isHexID(base[len(base)-uuidLen:]) {
			base = base[len(base)-uuidLen:]
		}
		id = base
	}
	// The hex after the last ':' (or the whole id): 7F3C2A10-... is 7f3c2a10-....
	head, tail := "", id
	if i := strings.LastIndexByte(id, ':'); i >= 0 {
		head, tail = id[:i+1], id[i+1:]
	}
	if isHexID(tail) {
		tail = strings.ToLower(tail)
	}
	return head + tail
}

// isHexID reports whether s is hex digits and dashes only (a UUID or a prefix of one).
func isHexID(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || r == '-') {
			return false
		}
	}
	return true
}
