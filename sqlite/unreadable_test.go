package sqlite_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// TestAnUnreadableChatNeverBreaksAPage writes what older versions could leave behind straight
// into the file: a token sum SQLite turned into a float past the int64 limit, an infinite cost,
// and attributes that are not JSON. Lists and searches, the admin's global ones included, still
// answer: the overflowed chat reads saturated, the broken one is left out and named.
func TestAnUnreadableChatNeverBreaksAPage(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	for _, id := range []string{"fine", "overflowed", "broken"} {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "A", UserID: "u", Title: "needle " + id}); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, db, id, []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "needle in " + id}}); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := sql.Open("sqlite", db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{
		`UPDATE chats SET entry_input_tokens = 9223372036854775807 + 9223372036854775807, cost_usd = 9e999 WHERE id = 'overflowed'`,
		`UPDATE chats SET attributes = '{not json' WHERE id = 'broken'`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	svc := history.New(history.Config{Store: db})
	for _, p := range []*annals.Principal{
		{TenantID: "A", UserID: "u", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser}},
		{TenantID: "root", Role: annals.RoleAdmin, Scopes: annals.Scopes},
	} {
		pctx := annals.NewContextWithPrincipal(ctx, p)
		list, err := svc.FindChats(pctx, annals.ListParams{})
		if err != nil {
			t.Fatalf("list as %s: %v", p.Role, err)
		}
		var ids []string
		for _, c := range list.Chats {
			ids = append(ids, c.ID)
			if c.ID == "overflowed" && (c.Totals.InputTokens != 1<<63-1 || c.Totals.CostUSD <= 0) {
				t.Errorf("the overflowed chat reads totals %+v, want them saturated", c.Totals)
			}
		}
		slices.Sort(ids)
		if !slices.Equal(ids, []string{"fine", "overflowed"}) || !slices.Equal(list.Unreadable, []string{"broken"}) {
			t.Errorf("list as %s: chats %v, unreadable %v; want fine and overflowed, broken named", p.Role, ids, list.Unreadable)
		}
		found, err := svc.SearchChats(pctx, annals.SearchParams{Query: "needle"})
		if err != nil {
			t.Fatalf("search as %s: %v", p.Role, err)
		}
		if len(found.Chats) != 2 || !slices.Equal(found.Unreadable, []string{"broken"}) {
			t.Errorf("search as %s: %d chats, unreadable %v; want 2 and broken named", p.Role, len(found.Chats), found.Unreadable)
		}
	}
}
