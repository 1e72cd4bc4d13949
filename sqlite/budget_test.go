package sqlite_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/storetest"
)

// TestSearchOverItsBudgetAnswersNewestFirst: a search by relevance that runs out of the search
// budget (here one nanosecond, always spent before the store starts) is answered newest first,
// marked partial with the reason, instead of failing.
func TestSearchOverItsBudgetAnswersNewestFirst(t *testing.T) {
	db := openTestDB(t)
	for _, id := range []string{"old", "mid", "new"} {
		if _, err := annals.CreateChat(t.Context(), db, storetest.NewChat(id, "A")); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(t.Context(), db, id, []*annals.Entry{storetest.TextEntry(id+"-1", annals.KindUser, "zqbudget "+id)}); err != nil {
			t.Fatal(err)
		}
	}
	svc := history.New(history.Config{Store: db, SearchBudget: time.Nanosecond})
	for _, mode := range []annals.SearchMode{annals.SearchChatsMode, annals.SearchEntriesMode} {
		page, err := svc.SearchChats(adminCtx(), annals.SearchParams{Scope: annals.ScopeGlobal, Query: "zqbudget", Mode: mode})
		if err != nil {
			t.Fatalf("%s: %v, want the newest matches", mode, err)
		}
		first := ""
		if len(page.Chats) > 0 {
			first = page.Chats[0].Chat.ID
		}
		if len(page.Entries) > 0 {
			first = page.Entries[0].Entry.ChatID
		}
		if page.Total != 3 || first != "new" || !page.Partial || !strings.Contains(page.PartialReason, "search budget (1ns)") {
			t.Errorf("%s: total %d, first %q, partial %v %q; want 3 matches newest first, marked partial for the budget", mode, page.Total, first, page.Partial, page.PartialReason)
		}
	}
}

func adminCtx() context.Context {
	return annals.NewContextWithPrincipal(context.Background(), &annals.Principal{TenantID: "root", Role: annals.RoleAdmin, Scopes: annals.Scopes})
}
