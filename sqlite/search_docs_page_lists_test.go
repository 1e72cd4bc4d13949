package sqlite_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// TestPageListsAreThePageRows: a one-pass page (one positive term: a word, a phrase, a prefix's
// words) reads each chat's matches as one list, and its page is the one reading them a row each
// gives: the same chats in the same order with the same match counts, snippets and totals, for
// any number of snippets, prefixes narrowed to each chat's words or not, long chats' blocks or
// not. A page of several terms reads its rows as before.
func TestPageListsAreThePageRows(t *testing.T) {
	dbs := map[string]*sqlite.DB{"words": wordsCorpus(t, false), "words in blocks": wordsCorpus(t, true), "walk": walkCorpus(t)}
	queries := []string{"re*", "co*", "read", "retry", "re* -retry", `"the thing"`, "timeout", "te*", "t*", "fix failing test", "timeout OR retry", "timeout -cache", "tag:x timeout"}
	for name, db := range dbs {
		for _, q := range queries {
			for _, snippets := range []int{0, 1, 3} {
				for _, narrow := range []bool{true, false} {
					f := searchFilter(t, q, annals.Owner{AllTenants: true})
					f.Snippets = snippets
					var lists int
					ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
						if strings.Contains(s.SQL, "group_concat(entries_fts.rowid") {
							lists++
						}
					})
					db.SetPageWordsForTest(narrow)
					got, gotTotal, err := db.SearchChats(ctx, f)
					if err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					db.SetPageListsForTest(false)
					want, wantTotal, err := db.SearchChats(t.Context(), f)
					db.SetPageListsForTest(true)
					db.SetPageWordsForTest(true)
					if err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					desc := fmt.Sprintf("%s, %q, %d snippets, narrowed %v", name, q, snippets, narrow)
					if !reflect.DeepEqual(got, want) || gotTotal != wantTotal {
						t.Errorf("%s: page read as lists (total %d)\n%+v\nwant the page read a row each (total %d)\n%+v", desc, gotTotal, got, wantTotal, want)
					}
					oneTerm := !strings.Contains(q, " ") || q == "re* -retry" || q == `"the thing"` || q == "timeout -cache" || q == "tag:x timeout"
					if len(want) > 0 && oneTerm != (lists == 1) {
						t.Errorf("%s: %d statements read lists, want one for a one-term query", desc, lists)
					}
				}
			}
		}
	}
}
