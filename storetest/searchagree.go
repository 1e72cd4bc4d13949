package storetest

import (
	"maps"
	"testing"

	annals "github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// testModesAgreeOnWhatMatches: a chat hit's Matches is the number of entries an entry search
// lists for that chat (the entries that match the query by themselves), on every path a store
// answers by (the chat documents, the entry ranking under an entry filter, filters alone); an
// exclusion that removes a chat from the chat search removes its entries from the entry search.
func testModesAgreeOnWhatMatches(t *testing.T, s Store) {
	c1 := NewChat("c1", "A")
	c1.Title = "Alpha"
	mustCreateChat(t, s, c1)
	mustCreateChat(t, s, NewChat("c2", "A"))
	mustCreateChat(t, s, NewChat("c3", "A"))
	mustCreateChat(t, s, NewChat("b1", "B"))
	mustAppend(t, s, "c1", TextEntry("c1-1", annals.KindUser, "please fix the failing test"),
		TextEntry("c1-2", annals.KindAssistant, "I will fix it"),
		TextEntry("c1-3", annals.KindAssistant, "the test passes now"),
		ToolEntry("c1-4", "Bash", `{"command": "go test"}`, "ok fix"))
	mustAppend(t, s, "c2", TextEntry("c2-1", annals.KindUser, "fix the build"),
		TextEntry("c2-2", annals.KindAssistant, "a test added"))
	mustAppend(t, s, "c3", TextEntry("c3-1", annals.KindUser, "the test is flaky, fix it"),
		TextEntry("c3-2", annals.KindUser, "fix test again"))
	mustAppend(t, s, "b1", TextEntry("b1-1", annals.KindUser, "fix test fix test"))

	search := func(q string) (chats map[string]int, entries map[string]int, entryTotal int) {
		t.Helper()
		pq, err := query.Parse(q)
		if err != nil {
			t.Fatalf("parse %q: %v", q, err)
		}
		f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: tenant("A")}, Text: query.ToTextExpr(pq.Text),
			Roles: pq.Filters.Roles, Tools: pq.Filters.Tools, Limit: 50, Snippets: 1, MarkOpen: "[", MarkClose: "]"}
		ch, _, err := s.SearchChats(t.Context(), f)
		if err != nil {
			t.Fatalf("SearchChats(%q): %v", q, err)
		}
		chats = map[string]int{}
		for _, h := range ch {
			chats[h.Chat.ID] = h.Matches
		}
		eh, n, err := s.SearchEntries(t.Context(), f)
		if err != nil {
			t.Fatalf("SearchEntries(%q): %v", q, err)
		}
		entries = map[string]int{}
		for _, h := range eh {
			entries[h.Entry.ChatID]++
		}
		return chats, entries, n
	}
	for _, tc := range []struct {
		q    string
		want map[string]int // chat → matching entries
	}{
		{"fix test", map[string]int{"c1": 2, "c2": 0, "c3": 2}},
		{"fix OR test", map[string]int{"c1": 4, "c2": 2, "c3": 2}},
		{`"failing test"`, map[string]int{"c1": 1}},
		{"fix -passes", map[string]int{"c2": 1, "c3": 2}},
		{"fix -alpha", map[string]int{"c2": 1, "c3": 2}},
		{"test -flaky", map[string]int{"c1": 3, "c2": 1}},
		{"(fix OR build) test", map[string]int{"c1": 2, "c2": 0, "c3": 2}},
		{"role:user fix test", map[string]int{"c1": 1, "c3": 2}},
		{"role:user fix", map[string]int{"c1": 1, "c2": 1, "c3": 2}},
		{"tool:Bash fix", map[string]int{"c1": 1}},
		{"role:assistant", map[string]int{"c1": 2, "c2": 1}},
		{"role:assistant fix test", map[string]int{"c1": 0}},
	} {
		chats, entries, total := search(tc.q)
		if !maps.Equal(chats, tc.want) {
			t.Errorf("chats %q: matches %v, want %v", tc.q, chats, tc.want)
		}
		sum := 0
		for id, n := range entries {
			sum += n
			if _, ok := chats[id]; !ok {
				t.Errorf("entries %q: %d entries of chat %s, which the chat search does not find", tc.q, n, id)
			}
		}
		for id, m := range chats {
			if entries[id] != m {
				t.Errorf("%q: chat %s says %d matching entries, the entry search lists %d", tc.q, id, m, entries[id])
			}
		}
		if total != sum {
			t.Errorf("entries %q: total %d, listed %d", tc.q, total, sum)
		}
	}
}
