package sqlite_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// TestRankFunctionRanksAsBM25: chat searches scored through the store's ranking function (the
// phrases' document counts cached, not counted by bm25 in every statement) return the pages
// FTS5's bm25 gives: the same chats in the same order with the same scores, matches and totals,
// for owners of every scope, words, phrases, prefixes, OR, NOT and field filters over a corpus
// with long chats (whose walk holds each phrase twice). A second search finds its counts kept.
func TestRankFunctionRanksAsBM25(t *testing.T) {
	db := walkCorpus(t)
	owners := []annals.Owner{{AllTenants: true}, {TenantID: "acme"}, {TenantID: "globex", UserID: "bob"}}
	queries := []string{"timeout", "fix failing test", "timeout OR retry", "timeout -cache", `"then test"`, "te*", "t*",
		"tag:x timeout", "database connection", "in:title notes timeout", "(fix OR cache) -retry test",
		// A NOT whose left side matches nothing leaves its right side's cursor on a row the OR
		// matches: bm25 scores that phrase's instances there, so it is counted too.
		"timeout OR (zzzz -cache)", "timeout -(zzzz -cache)"}
	for _, o := range owners {
		for _, q := range queries {
			for _, archived := range []bool{false, true} {
				f := searchFilter(t, q, o)
				f.Chat.IncludeArchived, f.Limit = archived, 8
				name := fmt.Sprintf("owner %v, %q, archived %v", o, q, archived)
				ctx, ranked := rankedTrace(t)
				got, gotTotal, err := db.SearchChats(ctx, f)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				db.SetBuiltinBM25ForTest(true)
				want, wantTotal, err := db.SearchChats(t.Context(), f)
				db.SetBuiltinBM25ForTest(false)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !*ranked && !strings.HasPrefix(q, "in:title") { // the title alone: chats_fts's bm25
					t.Errorf("%s: no statement scored through annals_bm25", name)
				}
				if gotTotal != wantTotal || len(got) != len(want) {
					t.Fatalf("%s: %d hits of %d, want %d of %d", name, len(got), gotTotal, len(want), wantTotal)
				}
				for i := range want {
					g, w := got[i], want[i]
					if g.Chat.ID != w.Chat.ID || g.Matches != w.Matches || math.Abs(g.Score-w.Score) > 1e-9*math.Abs(w.Score) {
						t.Errorf("%s: hit %d is %s (score %v, %d matches), want %s (score %v, %d matches)", name, i, g.Chat.ID, g.Score, g.Matches, w.Chat.ID, w.Score, w.Matches)
					}
				}
			}
		}
	}
	before := db.PhraseCountsForTest()
	if before == 0 {
		t.Fatal("no phrase's count was kept")
	}
	if _, _, err := db.SearchChats(t.Context(), searchFilter(t, "fix failing test", annals.Owner{TenantID: "acme"})); err != nil {
		t.Fatal(err)
	}
	if after := db.PhraseCountsForTest(); after != before {
		t.Errorf("a search typed again counted %d phrases anew", after-before)
	}
}

// TestRankFunctionRanksEntriesAsBM25: the entry-level rankings (a chat search under role:, an
// entry search by relevance or newest first, with the owner's tokens in the MATCH or its chats'
// ranges) score through the ranking function and return what bm25 gives.
func TestRankFunctionRanksEntriesAsBM25(t *testing.T) {
	db := walkCorpus(t)
	// A tenant with under a twentieth of the entries, small enough for its token in the MATCH.
	if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: "tiny", TenantID: "tiny"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(t.Context(), db, "tiny", []*annals.Entry{
		{ID: "t0", Kind: annals.KindUser, Text: "timeout retry then test"}, {ID: "t1", Kind: annals.KindUser, Text: "fix failing test timeout"}}); err != nil {
		t.Fatal(err)
	}
	owners := []annals.Owner{{AllTenants: true}, {TenantID: "acme"}, {TenantID: "globex", UserID: "bob"}, {TenantID: "tiny"}}
	queries := []string{"timeout", "fix failing test", "timeout OR retry", "timeout -cache", `"then test"`, "te*", "timeout OR (zzzz -cache)"}
	paths := map[string]bool{} // the search paths taken: each scores in its own statement
	for _, ownerTokens := range []bool{true, false} {
		db.SetOwnerFacetsForTest(ownerTokens)
		for _, o := range owners {
			for _, q := range queries {
				for _, sort := range []string{annals.SortRelevance, annals.SortRecent} {
					name := fmt.Sprintf("owner tokens %v, owner %v, %q, %s", ownerTokens, o, q, sort)
					f := searchFilter(t, q, o)
					f.Roles, f.Sort, f.Limit = []annals.EntryKind{annals.KindUser}, sort, 6
					ctx, ranked := rankedTrace(t)
					report := &annals.SearchReport{}
					ctx = annals.NewContextWithSearchReport(ctx, report)
					got, gotTotal, err := db.SearchChats(ctx, f)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					paths[report.Explain().Path] = true
					report = &annals.SearchReport{}
					gotE, gotETotal, err := db.SearchEntries(annals.NewContextWithSearchReport(ctx, report), f)
					if err != nil {
						t.Fatalf("%s: entries: %v", name, err)
					}
					paths[report.Explain().Path] = true
					db.SetBuiltinBM25ForTest(true)
					want, wantTotal, err := db.SearchChats(t.Context(), f)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					wantE, wantETotal, err := db.SearchEntries(t.Context(), f)
					db.SetBuiltinBM25ForTest(false)
					if err != nil {
						t.Fatalf("%s: entries: %v", name, err)
					}
					if !*ranked {
						t.Errorf("%s: no statement scored through annals_bm25", name)
					}
					if gotTotal != wantTotal || len(got) != len(want) || gotETotal != wantETotal || len(gotE) != len(wantE) {
						t.Fatalf("%s: chats %d of %d, want %d of %d; entries %d of %d, want %d of %d", name,
							len(got), gotTotal, len(want), wantTotal, len(gotE), gotETotal, len(wantE), wantETotal)
					}
					if !strings.Contains(q, " ") && (len(want) == 0 || len(wantE) == 0) { // one word: in every owner's chats
						t.Errorf("%s: nothing matched; the corpus should", name)
					}
					for i := range want {
						if g, w := got[i], want[i]; g.Chat.ID != w.Chat.ID || math.Abs(g.Score-w.Score) > 1e-9*math.Abs(w.Score) {
							t.Errorf("%s: chat %d is %s (%v), want %s (%v)", name, i, g.Chat.ID, g.Score, w.Chat.ID, w.Score)
						}
					}
					for i := range wantE {
						if g, w := gotE[i], wantE[i]; g.Entry.ID != w.Entry.ID || math.Abs(g.Score-w.Score) > 1e-9*math.Abs(w.Score) {
							t.Errorf("%s: entry %d is %s (%v), want %s (%v)", name, i, g.Entry.ID, g.Score, w.Entry.ID, w.Score)
						}
					}
				}
			}
		}
	}
	for _, want := range []string{"entry index", "entry index (the owner's postings)", "entry index (the owner's chats' ranges)"} {
		if !paths[want] {
			t.Errorf("no search took the path %q (took %v)", want, paths)
		}
	}
}

// firstTextArg is a statement's first text argument: a walk's MATCH (the arguments before it,
// if any, are the ranking function's counts, a blob).
func firstTextArg(args []any) string {
	for _, a := range args {
		if s, ok := a.(string); ok {
			return s
		}
	}
	return ""
}

// TestRankFunctionAfterADeleteWithKeptCounts: a phrase's count kept from before chats were
// deleted exceeds the rows left; the search still ranks (held to the rows, not NaN, which
// SQLite would return as a NULL score).
func TestRankFunctionAfterADeleteWithKeptCounts(t *testing.T) {
	db := walkCorpus(t)
	f := searchFilter(t, "timeout", annals.Owner{AllTenants: true})
	f.Limit = 10
	if _, _, err := db.SearchEntries(t.Context(), f); err != nil {
		t.Fatal(err)
	}
	for c := 2; c < 30; c++ {
		ch, err := db.FindChatByID(t.Context(), fmt.Sprintf("c%02d", c))
		if err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteChat(t.Context(), ch.Ref()); err != nil {
			t.Fatal(err)
		}
	}
	entries, _, err := db.SearchEntries(t.Context(), f)
	if err != nil {
		t.Fatalf("entries: %v", err)
	}
	chats, _, err := db.SearchChats(t.Context(), f)
	if err != nil {
		t.Fatalf("chats: %v", err)
	}
	if len(entries) == 0 || len(chats) == 0 {
		t.Fatalf("%d entries, %d chats; the two chats left hold timeout", len(entries), len(chats))
	}
	for _, h := range entries {
		if !(h.Score > 0) {
			t.Errorf("entry %s scored %v", h.Entry.ID, h.Score)
		}
	}
	for _, h := range chats {
		if !(h.Score > 0) {
			t.Errorf("chat %s scored %v", h.Chat.ID, h.Score)
		}
	}
}

// rankedTrace is a context whose statements are watched for the ranking function: ranked says
// whether one scored through it.
func rankedTrace(t *testing.T) (context.Context, *bool) {
	ranked := new(bool)
	ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
		*ranked = *ranked || strings.Contains(s.SQL, "annals_bm25(")
	})
	return ctx, ranked
}
