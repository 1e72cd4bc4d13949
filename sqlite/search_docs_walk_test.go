package sqlite_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// TestWidestAndDeepestQueriesRunOnTheChatIndex: the chat index's walk adds the long chats'
// documents to each item of an AND (walkBody); queries of the most items and exclusions the
// language allows, and nested to its limit, must still run on FTS5.
func TestWidestAndDeepestQueriesRunOnTheChatIndex(t *testing.T) {
	db := openTestDB(t)
	if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(t.Context(), db, "c", []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: "w1 w2 z"}}); err != nil {
		t.Fatal(err)
	}
	var words, excl []string
	for i := range query.MaxTerms - 1 {
		words = append(words, "w"+strings.Repeat("x", i%3)+string(rune('a'+i%26)))
		excl = append(excl, "-n"+string(rune('a'+i%26))+strings.Repeat("y", i/26))
	}
	deep := strings.Repeat("a (", query.MaxDepth) + "z w" + strings.Repeat(")", query.MaxDepth)
	deepNot := strings.Repeat("z -(", query.MaxDepth) + "q" + strings.Repeat(")", query.MaxDepth)
	for _, q := range []string{strings.Join(words, " ") + " z", "z " + strings.Join(excl, " "), deep, deepNot, `"w1 w2" -"x y" z*`} {
		for _, o := range []annals.Owner{{AllTenants: true}, {TenantID: "t"}} {
			if _, _, err := db.SearchChats(t.Context(), searchFilter(t, q, o)); err != nil {
				t.Errorf("%.60q as %v: %v", q, o, err)
			}
		}
	}
}

// TestWalkHoldsEachPhraseOnce: bm25 counts each phrase of the walk's MATCH over the whole index,
// once per occurrence, so the walk of an AND (with an exclusion) names each of its phrases once.
func TestWalkHoldsEachPhraseOnce(t *testing.T) {
	db := openTestDB(t)
	if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(t.Context(), db, "c", []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: "fix the failing test"}}); err != nil {
		t.Fatal(err)
	}
	var walk string
	ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
		if strings.Contains(s.SQL, "walk(k, bb, pk, long)") {
			walk = firstTextArg(s.Args)
		}
	})
	hits, _, err := db.SearchChats(ctx, searchFilter(t, `fix "failing test" -flaky`, annals.Owner{AllTenants: true}))
	if err != nil || len(hits) != 1 {
		t.Fatalf("%d hits, err %v; want the chat", len(hits), err)
	}
	for _, phrase := range []string{`"fix"`, `"failing test"`, `"flaky"`} {
		if n := strings.Count(walk, phrase); n != 1 {
			t.Errorf("the walk's MATCH %s holds %s %d times, want once", walk, phrase, n)
		}
	}
}
