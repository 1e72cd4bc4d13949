package historytest

import (
	"context"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// The ids of the resolution tests: a Claude Code session with a sub-agent, a second Claude Code
// session sharing the first three hex digits, and a Codex session, all in tenant A (agent aa1
// except the second session); in tenant B a Claude Code session that shares the same three
// digits and one nobody else's id resembles.
const (
	ccA    = "7f3c2a10-1111-4222-8333-444455556666"
	ccA2   = "7f3d9999-0000-4000-8000-000000000000"
	cxA    = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
	ccB    = "7f3e0000-aaaa-4bbb-8ccc-dddddddddddd"
	ccBown = "beefcafe-0000-4111-8222-333344445555"
)

func idsEnv(t *testing.T, open Opener) *env {
	e := newEnv(t, open)
	e.chat("claude-code:"+ccA, "A", "ua1", "aa1", 1, "mine")
	e.chat("claude-code:"+ccA+"/sidechain-ab", "A", "ua1", "aa1", 2, "its sub-agent")
	e.chat("claude-code:"+ccA2, "A", "ua2", "aa2", 3, "a colleague's")
	e.chat("codex:"+cxA, "A", "ua1", "aa1", 4, "from codex")
	e.chat("claude-code:"+ccB, "B", "ub1", "ab1", 5, "other tenant")
	e.chat("claude-code:"+ccBown, "B", "ub1", "ab1", 6, "other tenant, unique")
	return e
}

// testChatIDsAsPeopleHaveThem proves every by-id op finds a chat by its full id, the source
// tool's own id, a unique prefix, and what people paste (spaces, upper-case hex, a Claude Code
// .jsonl path, a Codex rollout file name), refuses an empty id and lists an ambiguous prefix's
// chats — and that all of it stays inside the caller's scope: another tenant's (or, in scope
// self, another agent's) chats are never found, listed or told apart from missing ones.
func testChatIDsAsPeopleHaveThem(t *testing.T, open Opener) {
	e := idsEnv(t, open)
	tenantA := as(member("A", "ua1", "aa1", annals.ScopeTenant))
	get := func(ctx context.Context, id string) (*annals.Chat, error) {
		v, err := e.svc.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: id}, Limit: 1})
		if err != nil {
			return nil, err
		}
		return v.Chat, nil
	}

	t.Run("FoundAsPeopleHaveThem", func(t *testing.T) {
		for given, want := range map[string]string{
			"claude-code:" + ccA:                  "claude-code:" + ccA,
			ccA:                                   "claude-code:" + ccA,
			"  " + ccA + "\n":                     "claude-code:" + ccA,
			strings.ToUpper(ccA):                  "claude-code:" + ccA,
			"claude-code:" + strings.ToUpper(ccA): "claude-code:" + ccA,
			"7f3c":                                "claude-code:" + ccA, // the session, not its sub-agent
			ccA + "/sidechain":                    "claude-code:" + ccA + "/sidechain-ab",
			"/home/dev/.claude/projects/-home-dev-shop/" + ccA + ".jsonl": "claude-code:" + ccA,
			ccA + ".jsonl": "claude-code:" + ccA,
			"rollout-2025-05-07T17-24-21-" + cxA + ".jsonl":                                               "codex:" + cxA,
			"/home/dev/.codex/sessions/2025/05/07/rollout-2025-05-07T17-24-21-" + cxA + ".jsonl":          "codex:" + cxA,
			`C:\Users\dev\.codex\sessions\rollout-2025-05-07T17-24-21-` + strings.ToUpper(cxA) + ".jsonl": "codex:" + cxA,
			"codex:5973": "codex:" + cxA,
		} {
			chat, err := get(tenantA, given)
			if err != nil || chat.ID != want {
				t.Errorf("get %q: %v, %v; want %s", given, chatID(chat), err, want)
			}
		}
	})

	t.Run("EveryByIDOpResolves", func(t *testing.T) {
		e := idsEnv(t, open) // this one writes
		ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))
		if c, err := e.svc.RenameChat(ctx, annals.ChatSelector{ID: " " + strings.ToUpper(ccA)}, "renamed by source id"); err != nil || c.ID != "claude-code:"+ccA {
			t.Errorf("rename by the upper-case source id: %v, %v", chatID(c), err)
		}
		if c, err := e.svc.PinChat(ctx, annals.ChatSelector{ID: "rollout-2025-05-07T17-24-21-" + cxA + ".jsonl"}, true); err != nil || c.ID != "codex:"+cxA || !c.Pinned {
			t.Errorf("pin by a rollout file name: %v, %v", chatID(c), err)
		}
		if h, err := e.svc.ResumeChat(ctx, annals.ChatSelector{ID: ccA}); err != nil || h.SessionID != "claude-code:"+ccA {
			t.Errorf("resume by the source id: %+v, %v", h, err)
		}
		if _, err := e.svc.FindChatRuns(ctx, annals.ChatSelector{ID: ccA}); err != nil {
			t.Errorf("runs by the source id: %v", err)
		}
		if _, err := e.svc.FindRelated(ctx, annals.RelatedParams{ChatID: ccA}); err != nil {
			t.Errorf("related by the source id: %v", err)
		}
		if err := e.svc.DeleteChat(ctx, annals.ChatSelector{ID: "codex:59"}); err != nil {
			t.Errorf("delete by a prefix: %v", err)
		}
		if _, err := e.store.FindChatByID(context.Background(), "codex:"+cxA); annals.ErrorCode(err) != annals.ENOTFOUND {
			t.Errorf("delete by a prefix left codex:%s: %v", cxA, err)
		}
	})

	t.Run("CaptureTakesIDsExactly", func(t *testing.T) {
		// Capture names chats to create and write: a source id or a prefix is never widened
		// into an existing chat's full id.
		for _, given := range []string{ccA, "7f3c", " claude-code:" + ccA} {
			_, err := e.svc.Capture(tenantA, []annals.CaptureOp{{Append: &annals.AppendOp{ChatID: given, Entries: []*annals.Entry{{ID: "x-" + given, Kind: annals.KindUser, Text: "appended"}}}}})
			if err == nil {
				t.Errorf("append to %q was accepted", given)
			}
		}
		if c, err := e.store.FindChatByID(context.Background(), "claude-code:"+ccA); err != nil || c.Totals.Entries != 0 {
			t.Errorf("claude-code:%s after appends by other ids: %+v, %v", ccA, c, err)
		}
	})

	t.Run("EmptyIsRequiredNotAMatch", func(t *testing.T) {
		for _, given := range []string{"", "  ", "\n\t"} {
			_, err := get(tenantA, given)
			wantCode(t, "get "+strings.TrimSpace(given), err, annals.EINVALID)
			if msg := annals.ErrorMessage(err); !strings.Contains(msg, "session_id is required") || strings.Contains(msg, "matches") {
				t.Errorf("get %q: %q, want session_id is required", given, msg)
			}
		}
	})

	t.Run("AmbiguousListsOnlyChatsInScope", func(t *testing.T) {
		_, err := get(tenantA, "7f3")
		wantCode(t, "ambiguous 7f3", err, annals.EINVALID)
		msg := annals.ErrorMessage(err)
		if !strings.Contains(msg, "claude-code:"+ccA) || !strings.Contains(msg, "claude-code:"+ccA2) || !strings.Contains(msg, "give more of the id") {
			t.Errorf("ambiguous 7f3: %q, want tenant A's two sessions listed", msg)
		}
		if strings.Contains(msg, ccB) || !strings.Contains(msg, `"7f3" matches 3 chats:`) {
			t.Errorf("ambiguous 7f3 in tenant A: %q, want its 3 chats counted and tenant B's neither counted nor named", msg)
		}
		// In scope self only aa1's chats are candidates: the same prefix names one session.
		self := as(member("A", "ua1", "aa1", annals.ScopeSelf))
		if c, err := get(self, "7f3"); err != nil || c.ID != "claude-code:"+ccA {
			t.Errorf("7f3 in aa1's self scope: %v, %v; want its one session", chatID(c), err)
		}
	})

	t.Run("OutsideScopeIsNotFoundLikeMissing", func(t *testing.T) {
		missing := "feedface-0000-4000-8000-000000000000"
		for _, tc := range []struct {
			ctx   context.Context
			who   string
			given []string
		}{
			{tenantA, "tenant A", []string{ccBown, "beef", "claude-code:" + ccBown, strings.ToUpper(ccBown), "/x/" + ccBown + ".jsonl", "claude-code:beef", missing}},
			{as(member("B", "ub1", "ab1", annals.ScopeTenant)), "tenant B", []string{ccA, "7f3c", cxA, "codex:5", "rollout-2025-05-07T17-24-21-" + cxA + ".jsonl"}},
			{as(member("A", "ua2", "aa2", annals.ScopeSelf)), "agent aa2 (self)", []string{ccA, "7f3c", "codex:" + cxA}},
		} {
			for _, given := range tc.given {
				for name, call := range map[string]func() error{
					"get":    func() error { _, err := get(tc.ctx, given); return err },
					"rename": func() error { _, err := e.svc.RenameChat(tc.ctx, annals.ChatSelector{ID: given}, "taken"); return err },
					"delete": func() error { return e.svc.DeleteChat(tc.ctx, annals.ChatSelector{ID: given}) },
					"related": func() error {
						_, err := e.svc.FindRelated(tc.ctx, annals.RelatedParams{ChatID: given})
						return err
					},
				} {
					err := call()
					want := `chat "` + strings.TrimSpace(given) + `" not found`
					if annals.ErrorCode(err) != annals.ENOTFOUND || annals.ErrorMessage(err) != want {
						t.Errorf("%s: %s %q = %v; want exactly %s, as for a missing id", tc.who, name, given, err, want)
					}
				}
			}
		}
		for _, id := range []string{"claude-code:" + ccBown, "claude-code:" + ccA, "codex:" + cxA} {
			if c, err := e.store.FindChatByID(context.Background(), id); err != nil || c.Title == "taken" {
				t.Errorf("%s after refused renames: %v, %v", id, chatID(c), err)
			}
		}
	})
}

func chatID(c *annals.Chat) string {
	if c == nil {
		return "<nil>"
	}
	return c.ID
}
