package historytest

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// Search holds the owner fold in every rank and mode: lexical (chats and entries), hybrid and
// semantic each return exactly the chats of the caller's scope — its agent's (self), its user's,
// its tenant's, every tenant's for an admin's global — and never another's, however close. And a
// hybrid page shows what the full-text search found of its chats (the matching entries' count
// and snippets), though it fuses a ranking read without them.
func testMeaningOwnerFold(t *testing.T, open Opener) {
	e := newEnv(t, open)
	ctx := context.Background()
	text := []string{"the replica lag grows during bulk loads", "Replica lag comes from slow replay of the write ahead log."}
	owners := map[string][3]string{
		"a-u1-g1": {"A", "ua1", "aa1"}, "a-u1-g2": {"A", "ua1", "aa2"},
		"a-u2-g1": {"A", "ua2", "aa1"}, "a-u2-g2": {"A", "ua2", "aa2"}, "b": {"B", "ub1", "ab1"},
	}
	minutes := 0
	for _, id := range slices.Sorted(maps.Keys(owners)) {
		minutes += 10
		o := owners[id]
		e.chat(id, o[0], o[1], o[2], minutes, "replica lag notes", text...)
	}
	if _, err := e.svc.Backfill(ctx, nil); err != nil {
		t.Fatal(err)
	}
	in := func(pred func(o [3]string) bool) []string {
		var ids []string
		for id, o := range owners {
			if pred(o) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		return ids
	}
	callers := []struct {
		name  string
		who   *annals.Principal
		scope annals.Scope
		want  []string
	}{
		{"self", member("A", "ua1", "aa1", allScopes[:3]...), annals.ScopeSelf, in(func(o [3]string) bool { return o[0] == "A" && o[2] == "aa1" })},
		{"user", member("A", "ua1", "aa1", allScopes[:3]...), annals.ScopeUser, in(func(o [3]string) bool { return o[0] == "A" && o[1] == "ua1" })},
		{"tenant", member("A", "ua1", "aa1", allScopes[:3]...), annals.ScopeTenant, in(func(o [3]string) bool { return o[0] == "A" })},
		{"tenant B", member("B", "ub1", "ab1", allScopes[:3]...), annals.ScopeTenant, []string{"b"}},
		{"global", admin(allScopes...), annals.ScopeGlobal, in(func([3]string) bool { return true })},
	}
	for _, c := range callers {
		for _, rank := range []string{annals.RankLexical, annals.RankHybrid, annals.RankSemantic} {
			page, err := e.svc.SearchChats(as(c.who), annals.SearchParams{Scope: c.scope, Query: "replica lag", Rank: rank})
			if err != nil {
				t.Fatalf("%s, rank %s: %v", c.name, rank, err)
			}
			got := hitIDs(page.Chats)
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s, rank %s: found %q, want %q", c.name, rank, got, c.want)
			}
			for _, h := range page.Chats {
				if rank != annals.RankSemantic && (h.Matches != 2 || len(h.Snippets) == 0 || !strings.Contains(h.Snippets[0].Text, annals.SnippetMarkOpen)) {
					t.Errorf("%s, rank %s: %s has %d matches and snippets %+v; want the 2 matching entries and their marked snippets", c.name, rank, h.Chat.ID, h.Matches, h.Snippets)
				}
			}
		}
		page, err := e.svc.SearchChats(as(c.who), annals.SearchParams{Scope: c.scope, Query: "replica lag", Mode: annals.SearchEntriesMode})
		if err != nil {
			t.Fatalf("%s, entries: %v", c.name, err)
		}
		var got []string
		for _, h := range page.Entries {
			if !slices.Contains(got, h.Entry.ChatID) {
				got = append(got, h.Entry.ChatID)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) || len(page.Entries) != 2*len(c.want) {
			t.Errorf("%s, entries mode: %d entries of %q, want 2 of each of %q", c.name, len(page.Entries), got, c.want)
		}
	}
}
