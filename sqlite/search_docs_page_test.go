package sqlite_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// TestSnippetsAreCutInGo: the page's snippets are cut in Go (query.Snippet) from the chosen
// entries read by pk, not by FTS5's snippet(), whose pass needed an FTS5 cursor per page chat
// (a seek of every term in every segment of the entry index) to highlight three entries each;
// no statement of a chat search's page runs snippet(), and the snippet statement reads the
// chosen entries by their primary key only. The per-entry ranking's and an entry search's
// snippets are cut in Go too, from the page's entries their statements read.
func TestSnippetsAreCutInGo(t *testing.T) {
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
	var stmts []annals.Statement
	ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) { stmts = append(stmts, s) })
	hits, _, err := db.SearchChats(ctx, searchFilter(t, "timeout", annals.Owner{AllTenants: true}))
	if err != nil || len(hits) != 1 || len(hits[0].Snippets) != 3 || hits[0].Matches != 5 {
		t.Fatalf("hits %+v, err %v; want the chat with 5 matches and 3 snippets", hits, err)
	}
	for i, want := range []string{"[timeout] in e1", "[timeout] in e2", "[timeout] in e3"} {
		if got := hits[0].Snippets[i].Text; got != want {
			t.Errorf("snippet %d = %q, want %q", i, got, want)
		}
	}
	// The per-entry ranking (role:, tool:, after:, before:, or the chat index not built yet).
	db.SetEntryRankingForTest(true)
	f := searchFilter(t, "timeout", annals.Owner{AllTenants: true})
	f.Roles = []annals.EntryKind{annals.KindUser}
	ranked, _, err := db.SearchChats(ctx, f)
	if err != nil || len(ranked) != 1 || len(ranked[0].Snippets) != 3 {
		t.Fatalf("entry-ranked hits %+v, err %v; want the chat with 3 snippets", ranked, err)
	}
	if got := ranked[0].Snippets[0].Text; !strings.HasPrefix(got, "[timeout] in e") {
		t.Errorf("entry-ranked snippet = %q, want [timeout] in e…", got)
	}
	db.SetEntryRankingForTest(false)
	for _, sort := range []string{annals.SortRelevance, annals.SortRecent} {
		f := searchFilter(t, "timeout", annals.Owner{AllTenants: true})
		f.Sort = sort
		hits, _, err := db.SearchEntries(ctx, f)
		if err != nil || len(hits) != 5 {
			t.Fatalf("entry search (%s): %d hits, err %v; want 5", sort, len(hits), err)
		}
		for _, h := range hits {
			if want := "[timeout] in " + h.Entry.ID; h.Snippet != want {
				t.Errorf("entry search (%s): %s's snippet = %q, want %q", sort, h.Entry.ID, h.Snippet, want)
			}
		}
	}
	var snip *annals.Statement
	for i, s := range stmts {
		if strings.Contains(s.SQL, "snippet(") {
			t.Errorf("statement %q runs FTS5's snippet(): want the snippets cut in Go", s.SQL)
		}
		if strings.Contains(s.SQL, "CROSS JOIN entries e WHERE e.pk = j.value") {
			snip = &stmts[i]
		}
	}
	if snip == nil {
		t.Fatalf("no statement read the chosen entries' fields: %d statements", len(stmts))
	}
	plan, err := db.PlanForTest(t.Context(), snip.SQL, snip.Args)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plan, "entries_fts") || !strings.Contains(plan, "SEARCH e USING INTEGER PRIMARY KEY") {
		t.Errorf("the snippet statement's plan %q: want the chosen entries read by pk, no pass over the entry index", plan)
	}
}

// TestPageRanksMatchesWithoutAWindow: a page chat's matching entries are counted and its
// snippets' entries chosen (every term first, then the shortest, then the earliest) without a
// window function in SQL, whose sort and numbering of every match of the page cost 5–8 ms at
// 1M entries for a head word; the choice and the counts are the same.
func TestPageRanksMatchesWithoutAWindow(t *testing.T) {
	db := openTestDB(t)
	if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"retry after the timeout of the long running database call, which took a while", // every term, longest
		"timeout",                  // one term, shorter than the next
		"ab timeout",               // one term, the same size, later
		"retry",                    // one term, shortest of all
		"nothing at all",           // no term
		"database retry once more", // no timeout: one term
	}
	var entries []*annals.Entry
	for i, s := range texts {
		entries = append(entries, &annals.Entry{ID: fmt.Sprintf("e%d", i), Kind: annals.KindUser, Text: s})
	}
	if _, err := annals.AppendEntries(t.Context(), db, "c", entries); err != nil {
		t.Fatal(err)
	}
	var stmts []string
	ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) { stmts = append(stmts, s.SQL) })
	for _, c := range []struct {
		q       string
		matches int
		seqs    []int64
	}{
		{"timeout", 3, []int64{2, 3, 1}},
		{"timeout retry", 1, []int64{1, 4, 2}},
		{"timeout OR retry", 5, []int64{1, 4, 2}},
	} {
		stmts = nil
		hits, _, err := db.SearchChats(ctx, searchFilter(t, c.q, annals.Owner{AllTenants: true}))
		if err != nil || len(hits) != 1 {
			t.Fatalf("%s: hits %+v, err %v; want the chat", c.q, hits, err)
		}
		var seqs []int64
		for _, s := range hits[0].Snippets {
			seqs = append(seqs, s.Seq)
		}
		if hits[0].Matches != c.matches || !slices.Equal(seqs, c.seqs) {
			t.Errorf("%s: %d matches, snippets of entries %v; want %d, %v", c.q, hits[0].Matches, seqs, c.matches, c.seqs)
		}
		for _, s := range stmts {
			if strings.Contains(s, " OVER (") {
				t.Errorf("%s: a statement numbers the matches with a window: %s", c.q, s)
			}
		}
	}
}

// TestANegativeSnippetCountAsksForNone: a library caller's negative SearchFilter.Snippets is
// taken as none (the page's statement once clamped it in SQL), not a slice out of range.
func TestANegativeSnippetCountAsksForNone(t *testing.T) {
	db := openTestDB(t)
	if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(t.Context(), db, "c", []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "a timeout"}}); err != nil {
		t.Fatal(err)
	}
	f := searchFilter(t, "timeout", annals.Owner{AllTenants: true})
	f.Snippets = -1
	hits, _, err := db.SearchChats(t.Context(), f)
	if err != nil || len(hits) != 1 || len(hits[0].Snippets) != 0 {
		t.Fatalf("hits %+v, err %v; want the chat without snippets", hits, err)
	}
}
