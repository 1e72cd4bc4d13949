package sqlite_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// TestSnippetPassReadsOnlyTheChosenEntries: the page's snippet pass reads each chat's matches
// only between its chosen entries (the first and last of the few it shows), not over the chat's
// whole range of the entry index.
func TestSnippetPassReadsOnlyTheChosenEntries(t *testing.T) {
	db := openTestDB(t)
	if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	var entries []*annals.Entry
	for _, id := range []string{"e1", "e2", "e3", "e4", "e5"} {
		entries = append(entries, &annals.Entry{ID: id, Kind: annals.KindUser, Text: "timeout in " + id})
	}
	if _, err := annals.AppendEntries(t.Context(), db, "c", entries); err != nil {
		t.Fatal(err)
	}
	var page annals.Statement
	ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
		if strings.Contains(s.SQL, "snippet(entries_fts") {
			page = s
		}
	})
	hits, _, err := db.SearchChats(ctx, searchFilter(t, "timeout", annals.Owner{AllTenants: true}))
	if err != nil || len(hits) != 1 || len(hits[0].Snippets) != 3 || hits[0].Matches != 5 {
		t.Fatalf("hits %+v, err %v; want the chat with 5 matches and 3 snippets", hits, err)
	}
	plan, err := db.PlanForTest(t.Context(), page.SQL, page.Args)
	if err != nil {
		t.Fatal(err)
	}
	snip := plan[strings.Index(plan, "MATERIALIZE snip"):]
	if !strings.HasPrefix(snip, "MATERIALIZE snip; MATERIALIZE span") || !strings.Contains(snip, "SCAN g; SCAN entries_fts") {
		t.Errorf("the page statement's plan %q: want the snippet pass over each chat's span of chosen entries (span g), not over the chat's whole range", plan)
	}
}
