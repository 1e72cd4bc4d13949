package historytest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/annals-dev/annals"
)

// A search under a field filter, or an entry search, over more matches than it ranks may stop
// after its page (both stores do): the total is then a lower bound, said by
// total_is_lower_bound, and a full page carries a cursor, so a client that pages on still meets
// every match once.

// lowerBoundCorpus: 21 chats of 200 entries each holding zqlb (4,200 matching entries, more than
// the 4,000 a field-filtered chat search walks and the 1,000 an entry search ranks), all alike
// so that relevance ties and the order is the same however many candidates are ranked; each
// chat's entries are older than the next chat's.
func lowerBoundCorpus(t *testing.T, open Opener) *env {
	t.Helper()
	e := newEnv(t, open)
	texts := make([]string, 200)
	for i := range texts {
		texts[i] = "zqlb found here"
	}
	for i := range 21 {
		e.chat(fmt.Sprintf("lb%02d", i), "A", "ua1", "", 10*i, "", texts...)
	}
	return e
}

// TotalLowerBound pages through a field-filtered chat search and an entry search of
// lowerBoundCorpus, checking that a total the page calls a lower bound is one (no more than
// every match, no fewer than those paged through, the page full with a cursor), that an exact
// total is exact, and that the pages together hold every match once with its exact match
// count. It reports whether any page's total was a lower bound.
func TotalLowerBound(t *testing.T, open Opener) (sawLowerBound bool) {
	e := lowerBoundCorpus(t, open)
	ctx := as(admin(allScopes...))
	for _, tc := range []struct {
		q     string
		mode  annals.SearchMode
		limit int
		all   int
	}{
		{"role:user role:assistant zqlb", annals.SearchChatsMode, 10, 21},
		{"zqlb", annals.SearchEntriesMode, 500, 21 * 200},
	} {
		var seen []string
		cursor := ""
		for range 20 {
			page, err := e.svc.SearchChats(ctx, annals.SearchParams{Scope: annals.ScopeGlobal, Query: tc.q, Mode: tc.mode,
				Page: annals.PageParams{Limit: tc.limit, Cursor: cursor}})
			if err != nil {
				t.Fatalf("%s: %v", tc.q, err)
			}
			for _, h := range page.Chats {
				if h.Matches != 200 {
					t.Errorf("%s: chat %s has %d matching entries, want 200", tc.q, h.Chat.ID, h.Matches)
				}
				seen = append(seen, h.Chat.ID)
			}
			for _, h := range page.Entries {
				seen = append(seen, h.Entry.ID)
			}
			n := len(page.Chats) + len(page.Entries)
			switch {
			case page.TotalIsLowerBound:
				sawLowerBound = true
				if page.Total > tc.all || page.Total < len(seen) || n != tc.limit || page.NextCursor == "" {
					t.Errorf("%s at %d: a lower bound of %d with %d hits (cursor %q); want at most %d, at least the %d seen, a full page and a cursor",
						tc.q, len(seen)-n, page.Total, n, page.NextCursor, tc.all, len(seen))
				}
			case page.Total != tc.all:
				t.Errorf("%s at %d: total %d, exact; want %d", tc.q, len(seen)-n, page.Total, tc.all)
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		slices.Sort(seen)
		if len(seen) != tc.all || len(slices.Compact(seen)) != tc.all {
			t.Errorf("%s: the pages held %d hits, %d distinct; want every one of the %d matches once", tc.q, len(seen), len(slices.Compact(seen)), tc.all)
		}
	}
	return sawLowerBound
}

// testTotalLowerBound runs TotalLowerBound; whether a store stops early is its own choice.
func testTotalLowerBound(t *testing.T, open Opener) {
	TotalLowerBound(t, open)
}
