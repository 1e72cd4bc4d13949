package historytest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// testExactChatID: ChatQuery.ChatID keeps exactly the chat of that id — in a list and in an
// entry search (find in one chat) — never a chat whose id merely starts with it or holds it
// after a ':' (which IDPrefix keeps), and only inside the caller's owner fold: another user's
// chat of that id is not found in a narrower scope, nor another tenant's in any.
func testExactChatID(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("abc", "A", "ua1", "aa1", 1, "short", "needle one", "needle two")
	e.chat("abcdef", "A", "ua1", "aa1", 2, "longer", "needle three", "needle four", "needle five")
	e.chat("tool:abc", "A", "ua1", "aa1", 3, "source id", "needle six")
	e.chat("theirs", "A", "ua2", "aa2", 4, "another user's", "needle seven")
	e.chat("btenant", "B", "ub1", "ab1", 5, "tenant B", "needle eight")
	mine := as(member("A", "ua1", "aa1", annals.ScopeTenant, annals.ScopeUser))

	find := func(ctx context.Context, scope annals.Scope, id string) []string {
		t.Helper()
		res, err := e.svc.SearchChats(ctx, annals.SearchParams{Scope: scope, Query: "needle", Mode: annals.SearchEntriesMode,
			Sort: annals.SortRecent, Filter: annals.ChatQuery{ChatID: id, IncludeArchived: true}, Page: annals.PageParams{Limit: 50}})
		if err != nil {
			t.Fatalf("find in %q: %v", id, err)
		}
		var got []string
		for _, h := range res.Entries {
			got = append(got, h.Entry.ChatID+"#"+itoa(int(h.Entry.Seq)))
		}
		slices.Sort(got)
		if res.Total != len(got) {
			t.Errorf("find in %q: total %d, %d hits %v", id, res.Total, len(got), got)
		}
		return got
	}
	if got := find(mine, "", "abc"); !slices.Equal(got, []string{"abc#1", "abc#2"}) {
		t.Errorf("find in abc: %v, want abc's two entries only", got)
	}
	if got := find(mine, "", "abcdef"); len(got) != 3 {
		t.Errorf("find in abcdef: %v, want its three entries", got)
	}
	// The prefix filter keeps all three chats: the exact one is what find in a chat needs.
	res, err := e.svc.SearchChats(mine, annals.SearchParams{Query: "needle", Mode: annals.SearchEntriesMode,
		Filter: annals.ChatQuery{IDPrefix: "abc", IncludeArchived: true}, Page: annals.PageParams{Limit: 50}})
	if err != nil || len(res.Entries) != 6 {
		t.Fatalf("the prefix abc: %v, %d hits, want 6 (abc, abcdef, tool:abc)", err, len(res.Entries))
	}
	// The owner fold: another user's chat in the user scope, another tenant's in any scope.
	if got := find(mine, annals.ScopeUser, "theirs"); len(got) != 0 {
		t.Errorf("another user's chat in the user scope: %v", got)
	}
	if got := find(mine, annals.ScopeTenant, "theirs"); len(got) != 1 {
		t.Errorf("another user's chat in the tenant scope: %v, want its entry", got)
	}
	if got := find(mine, "", "btenant"); len(got) != 0 {
		t.Errorf("another tenant's chat: %v", got)
	}
	// A list keeps the one chat too.
	page, err := e.svc.FindChats(mine, annals.ListParams{Filter: annals.ChatQuery{ChatID: "abc"}})
	if err != nil || len(page.Chats) != 1 || page.Chats[0].ID != "abc" || page.Total != 1 {
		t.Errorf("list chat_id abc: %v %+v", err, page)
	}
	// A chat id that is no id is refused with the field's name.
	_, err = e.svc.FindChats(mine, annals.ListParams{Filter: annals.ChatQuery{ChatID: "a\x1bb"}})
	if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(annals.ErrorMessage(err), "chat_id") {
		t.Errorf("a chat id holding an escape: %v", err)
	}
}
