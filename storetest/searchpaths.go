package storetest

import (
	"slices"
	"testing"

	annals "github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

func searchPathTests() []test {
	return []test{
		{"APrefixFindsTheSameOnEveryPath", testSearchPrefixPaths},
		{"ModesAgreeOnWhatMatches", testModesAgreeOnWhatMatches},
	}
}

// testSearchPrefixPaths: a prefix finds every word it stands for, whichever way the store
// answers: a chat search, a chat search under an entry-level filter (role:, tool:), an entry
// search; an entry search's total counts every match, not only the page's.
func testSearchPrefixPaths(t *testing.T, s Store) {
	for _, id := range []string{"c1", "c2", "c3"} {
		mustCreateChat(t, s, NewChat(id, "A"))
	}
	mustAppend(t, s, "c1", TextEntry("e1", annals.KindUser, "the alphaone thing"), TextEntry("e2", annals.KindUser, "and alphathree too"))
	mustAppend(t, s, "c2", ToolEntry("e3", "Bash", `{"command": "run alphatwo"}`, "done"))
	mustAppend(t, s, "c3", TextEntry("e4", annals.KindUser, "beta only"))
	search := func(q string, mode annals.SearchMode, limit int) ([]string, int) {
		t.Helper()
		pq, err := query.Parse(q)
		if err != nil {
			t.Fatalf("parse %q: %v", q, err)
		}
		f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: tenant("A")}, Text: query.ToTextExpr(pq.Text),
			Roles: pq.Filters.Roles, Tools: pq.Filters.Tools, Limit: limit, Snippets: 1, MarkOpen: "[", MarkClose: "]"}
		var ids []string
		var total int
		if mode == annals.SearchEntriesMode {
			hits, n, err := s.SearchEntries(t.Context(), f)
			if err != nil {
				t.Fatalf("SearchEntries(%q): %v", q, err)
			}
			for _, h := range hits {
				ids = append(ids, h.Entry.ID)
			}
			total = n
		} else {
			hits, n, err := s.SearchChats(t.Context(), f)
			if err != nil {
				t.Fatalf("SearchChats(%q): %v", q, err)
			}
			for _, h := range hits {
				ids = append(ids, h.Chat.ID)
			}
			total = n
		}
		slices.Sort(ids)
		return ids, total
	}
	for _, tc := range []struct {
		q     string
		mode  annals.SearchMode
		limit int
		want  []string
		total int
	}{
		{"alpha*", annals.SearchChatsMode, 10, []string{"c1", "c2"}, 2},
		{"role:user alpha*", annals.SearchChatsMode, 10, []string{"c1"}, 1},
		{"tool:Bash alpha*", annals.SearchChatsMode, 10, []string{"c2"}, 1},
		{"alpha*", annals.SearchEntriesMode, 10, []string{"e1", "e2", "e3"}, 3},
		{"role:user alpha*", annals.SearchEntriesMode, 10, []string{"e1", "e2"}, 2},
	} {
		ids, total := search(tc.q, tc.mode, tc.limit)
		if !slices.Equal(ids, tc.want) || total != tc.total {
			t.Errorf("%s %q: %v (total %d), want %v (total %d)", tc.mode, tc.q, ids, total, tc.want, tc.total)
		}
	}
	// One entry per page: the total still counts every match.
	if ids, total := search("alpha*", annals.SearchEntriesMode, 1); len(ids) != 1 || total != 3 {
		t.Errorf("entries %q, limit 1: %v (total %d), want one entry of 3", "alpha*", ids, total)
	}
	if ids, total := search("alpha*", annals.SearchChatsMode, 1); len(ids) != 1 || total != 2 {
		t.Errorf("chats %q, limit 1: %v (total %d), want one chat of 2", "alpha*", ids, total)
	}
}
