package sqlite_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// The chat index holds owner tokens (tenant, user and agent as t, u and a with their hex,
// "archived", "multi") beside the chats' words. A search for a word that happens to be one of
// them finds the chats whose text holds it, never a chat for its owner or state; ordinary words
// still find every chat that holds them, long chats' blocks included.
func TestOwnerTokensAreNotWords(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.SetBlockLimitsForTest(2, 1<<20) // "long" gets sealed blocks, so its documents carry "multi"
	owner := annals.Chat{TenantID: "acme", UserID: "bob", AgentID: "bot"}
	refs := map[string]annals.ChatRef{}
	for _, id := range []string{"plain", "long", "gone", "mentions"} {
		c := owner
		c.ID = id
		created, err := annals.CreateChat(ctx, db, &c)
		if err != nil {
			t.Fatal(err)
		}
		refs[id] = created.Ref()
	}
	appendWords(t, db, "plain", "hello")
	appendWords(t, db, "long", "hello", "l1", "l2", "l3", "l4", "l5")
	appendWords(t, db, "gone", "hello")
	appendWords(t, db, "mentions", "archived", "multi", "t61636d65", "u626f62x")
	archived := true
	if _, err := db.UpdateChat(ctx, refs["gone"], annals.ChatUpdate{Archived: &archived}); err != nil {
		t.Fatal(err)
	}
	if b, _ := mustBlocks(t, db, "long"); len(b) == 0 {
		t.Fatal("the long chat has no sealed blocks: the test needs its multi token")
	}
	cases := []struct {
		q    string
		want []string
	}{
		{"archived", []string{"mentions"}},
		{"multi", []string{"mentions"}},
		{"t61636d65", []string{"mentions"}}, // acme's tenant token
		{"u626f62", nil},                    // bob's user token
		{"a626f74", nil},                    // bot's agent token
		{`"t61636d65 u626f62"`, nil},        // acme's and bob's tokens side by side, as in the owner column
		{"x-t61636d65", nil},
		{"t61636d6", nil},   // acme's token but for its last digit
		{"t61636d656", nil}, // and with one more
		{"t6*", []string{"mentions"}},
		{"u626f62*", []string{"mentions"}},
		{"hello", []string{"gone", "long", "plain"}},
		{"hello common", []string{"gone", "long", "plain"}},
		{"common -hello", []string{"mentions"}},
	}
	for _, o := range []annals.Owner{{AllTenants: true}, {TenantID: "acme"}, {TenantID: "acme", UserID: "bob", AgentID: "bot"}} {
		for _, tc := range cases {
			f := searchFilter(t, tc.q, o)
			f.Chat.IncludeArchived = true
			hits, total := searchAll(t, db, f, true)
			var got []string
			for _, h := range hits {
				got = append(got, h.Chat.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) || total != len(tc.want) {
				t.Errorf("owner %s, %q: chats %q (total %d), want %q", o, tc.q, got, total, tc.want)
			}
		}
	}
}

// TestOddHexWordsNeedNoColumnFilter: the owner column's tenant, user and agent tokens are a
// letter and the hex of their bytes, an even number of digits, so a word of the form t, u or a
// and an odd number of hex digits ("te", one of te*'s words) is matched in every column, without
// the column filter FTS5 applies to every position list it reads; a word of an even number still
// has it, as do "archived" and "multi".
func TestOddHexWordsNeedNoColumnFilter(t *testing.T) {
	db := openTestDB(t)
	if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: "c", TenantID: "acme"}); err != nil {
		t.Fatal(err)
	}
	appendWords(t, db, "c", "te tab t61636d6 t61636d65 archived")
	for _, tc := range []struct {
		q        string
		filtered bool
	}{{"te", false}, {"t61636d6", false}, {"a1", false}, {"tab", true}, {"t61636d65", true}, {"u", true}, {"archived", true}, {"te tab", true}} {
		var walks []string
		ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
			if strings.Contains(s.SQL, "walk(k, bb, pk, long)") {
				walks = append(walks, firstTextArg(s.Args))
			}
		})
		hits, _, err := db.SearchChats(ctx, searchFilter(t, tc.q, annals.Owner{AllTenants: true}))
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if want := 1; tc.q != "a1" && tc.q != "u" && len(hits) != want {
			t.Errorf("%s: %d hits, want %d", tc.q, len(hits), want)
		}
		if len(walks) != 1 {
			t.Fatalf("%s: %d walks traced, want 1", tc.q, len(walks))
		}
		if got := strings.Contains(walks[0], "{title description"); got != tc.filtered {
			t.Errorf("%s: the walk's MATCH %q has the column filter %v, want %v", tc.q, walks[0], got, tc.filtered)
		}
	}
}
