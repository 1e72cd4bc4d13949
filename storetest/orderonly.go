package storetest

import (
	"slices"
	"testing"

	annals "github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

func orderOnlyTests() []test {
	return []test{{"SameOrderAndTotalWithoutMatches", testOrderOnly}}
}

// testOrderOnly: a chat search with OrderOnly answers the same chats in the same order with the
// same total as without it, on every path (the chat documents; an entry filter, which ranks
// entries), and leaves every hit's Matches 0 and its Snippets empty.
func testOrderOnly(t *testing.T, s Store) {
	for i, id := range []string{"c1", "c2", "c3", "c4"} {
		mustCreateChat(t, s, NewChat(id, "A"))
		texts := []*annals.Entry{TextEntry("e1", annals.KindUser, "the replica lag grows"), TextEntry("e2", annals.KindAssistant, "replay is slow")}
		for j := range i {
			texts = append(texts, TextEntry("x"+string(rune('a'+j)), annals.KindUser, "replica lag again"))
		}
		mustAppend(t, s, id, texts...)
	}
	mustCreateChat(t, s, NewChat("other", "B"))
	mustAppend(t, s, "other", TextEntry("e1", annals.KindUser, "replica lag"))
	for _, q := range []string{"replica lag", "replica OR replay", "replica -standby", "lag role:user"} {
		pq, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: tenant("A")}, Text: query.ToTextExpr(pq.Text), Roles: pq.Filters.Roles,
			Limit: 3, Snippets: 3, MarkOpen: "[", MarkClose: "]"}
		full, fullTotal, err := s.SearchChats(t.Context(), f)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		f.OrderOnly = true
		bare, bareTotal, err := s.SearchChats(t.Context(), f)
		if err != nil {
			t.Fatalf("%q order only: %v", q, err)
		}
		ids := func(hits []annals.ChatHit) []string {
			var out []string
			for _, h := range hits {
				out = append(out, h.Chat.ID)
			}
			return out
		}
		if !slices.Equal(ids(bare), ids(full)) || bareTotal != fullTotal || len(full) == 0 {
			t.Errorf("%q: order only found %q of %d, the full search %q of %d", q, ids(bare), bareTotal, ids(full), fullTotal)
		}
		for i, h := range bare {
			if h.Matches != 0 || len(h.Snippets) != 0 {
				t.Errorf("%q order only: %s has %d matches and %d snippets, want none", q, h.Chat.ID, h.Matches, len(h.Snippets))
			}
			if full[i].Matches == 0 {
				t.Errorf("%q: the full search counted no matches for %s", q, h.Chat.ID)
			}
		}
	}
}
