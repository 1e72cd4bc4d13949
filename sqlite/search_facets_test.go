package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// TestFacetsNarrowTheEntryMatch: a role: or tool: search hands the entry index its words AND the
// entry's kind and tool tokens (migration 0035), and finds exactly what it found by filtering
// the matches in SQL: the same pages, scores, matching entries and totals, in chat and entry
// searches, over every tenant and in one tenant's scope (never another tenant's entries), with
// the walk cut short or not, with tool names in any case and of any characters.
func TestFacetsNarrowTheEntryMatch(t *testing.T) {
	ctx := t.Context()
	now := func() time.Time { return time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC) }
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"), sqlite.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fillFacetCorpus(t, db)
	db.SetFacetProbeForTest(-1)
	queries := []string{
		"role:user zqword", "role:assistant zqword", "role:tool zqword", "role:system zqword", "role:event zqword",
		"role:user role:assistant zqword", "tool:Bash zqword", "tool:BASH zqword", "tool:mcp__git_hub zqword",
		"tool:Bash tool:grep zqword", "role:tool tool:bash zqword", "role:user tool:bash zqword",
		"role:user zqword other", "role:user zqword -excluded", "tool:bash zqword OR asked", "role:user zq*",
		"tool:Bash",
	}
	// These find nothing: no entry is the user's and a tool call, and every chat holds excluded.
	empty := map[string]bool{"role:event zqword": true, "role:user tool:bash zqword": true, "role:user zqword -excluded": true}
	owners := map[string]annals.Owner{"every tenant": {AllTenants: true}, "tenant T": {TenantID: "T"}}
	type variant struct {
		name       string
		candidates int
		ranges     bool
	}
	variants := []variant{{"whole walk", 0, true}, {"walk cut short", 1, true}, {"walk cut short, no ranges", 1, false}}
	for _, v := range variants {
		db.SetCandidatesForTest(v.candidates)
		db.SetOwnerRangesForTest(v.ranges)
		for _, q := range queries {
			for who, o := range owners {
				for _, mode := range []string{"chats", "entries"} {
					db.SetFacetsForTest(true)
					got, sqls := facetSearch(t, db, q, o, mode)
					db.SetFacetsForTest(false)
					want, _ := facetSearch(t, db, q, o, mode)
					name := fmt.Sprintf("%s, %s, %s, %s", v.name, q, who, mode)
					if got != want {
						t.Errorf("%s: with the facets %s, filtered in SQL %s", name, got, want)
					}
					if strings.HasPrefix(want, "0 ") && !empty[q] {
						t.Errorf("%s: nothing found: the corpus does not exercise the query", name)
					}
					if strings.Contains(q, " ") && !strings.Contains(sqls, "\U000F0100") && !strings.Contains(sqls, "\U000F0101") {
						t.Errorf("%s: no statement matched the kind or tool tokens:\n%s", name, sqls)
					}
					if who == "tenant T" && strings.Contains(got, "else") {
						t.Errorf("%s: tenant U's chat in tenant T's search: %s", name, got)
					}
				}
			}
		}
	}
}

// facetSearch runs q (its role: and tool: filters too) and returns its total and hits, and the
// statements' arguments.
func facetSearch(t *testing.T, db *sqlite.DB, q string, o annals.Owner, mode string) (string, string) {
	t.Helper()
	pq, err := query.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: o}, Text: query.ToTextExpr(pq.Text), Roles: pq.Filters.Roles,
		Tools: pq.Filters.Tools, Limit: 3, Snippets: 3, MarkOpen: "[", MarkClose: "]"}
	var args []string
	ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
		args = append(args, fmt.Sprint(s.Args...))
		// The snippet pass reads the page's entries' range of the index, not every match.
		if strings.Contains(s.SQL, "snippet(entries_fts") && !strings.Contains(s.SQL, "rowid >= (SELECT min(") {
			t.Errorf("%s: the snippet pass has no rowid range: %s", q, s.SQL)
		}
	})
	var out []string
	for page := 0; page < 4; page++ {
		f.Offset = page * f.Limit
		report := &annals.SearchReport{}
		rctx := annals.NewContextWithSearchReport(ctx, report)
		var n int
		if mode == "entries" {
			hits, total, err := db.SearchEntries(rctx, f)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%s/%.6f/%s", h.Entry.ID, h.Score, h.Snippet))
			}
			n = total
		} else {
			hits, total, err := db.SearchChats(rctx, f)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%s/%d/%.6f/%v", h.Chat.ID, h.Matches, h.Score, h.Snippets))
			}
			n = total
		}
		out = append(out, fmt.Sprintf("total %d (at least: %v)", n, report.TotalAtLeast()))
	}
	return fmt.Sprint(strings.Count(strings.Join(out, " "), "/"), " ", out), strings.Join(args, "\n")
}

// fillFacetCorpus writes chats of tenant T (one archived) and of tenant U, each holding entries
// of every kind with zqword, and tool calls of tools named in several cases and characters.
func fillFacetCorpus(t *testing.T, db *sqlite.DB) {
	t.Helper()
	ctx := context.Background()
	chats := []string{"one", "two", "three", "gone", "else", "more"}
	tenants := map[string]string{"else": "U", "more": "U"}
	tools := []string{"Bash", "BASH", "mcp__git_hub", "Grep", "bash", "Édit"}
	for ci, id := range chats {
		tenant := tenants[id]
		if tenant == "" {
			tenant = "T"
		}
		if _, err := annals.CreateChat(ctx, db, storetest.NewChat(id, tenant)); err != nil {
			t.Fatal(err)
		}
		var es []*annals.Entry
		for i := range 14 {
			eid := fmt.Sprintf("%s-%d", id, i)
			text := "zqword " + strings.Repeat("other ", (i+ci)%3) + []string{"asked", "excluded", "said"}[(i+ci)%3]
			switch i % 5 {
			case 0:
				es = append(es, storetest.TextEntry(eid, annals.KindUser, text))
			case 1:
				es = append(es, storetest.TextEntry(eid, annals.KindAssistant, text))
			case 2:
				es = append(es, storetest.ToolEntry(eid, tools[(i+ci)%len(tools)], `{"command": "zqword"}`, text))
			case 3:
				es = append(es, storetest.TextEntry(eid, annals.KindSystem, text))
			default:
				es = append(es, storetest.TextEntry(eid, annals.KindUser, "zqword "+strings.Repeat("zqword ", i%4)))
			}
		}
		if _, err := annals.AppendEntries(ctx, db, id, es); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ExecForTest(ctx, `UPDATE chats SET archived_at = 1 WHERE id = 'gone'`); err != nil {
		t.Fatal(err)
	}
}

// TestFacetTokensAreNotWords: the kind and tool tokens are not words a search can name (a search
// for "user" or for the hex of a tool name finds nothing by them), and the index stays exact
// (FTS5's own check and the index text's) after entries are deleted and their kind changed.
func TestFacetTokensAreNotWords(t *testing.T) {
	ctx := t.Context()
	db := openTestDB(t)
	fillFacetCorpus(t, db)
	all := annals.Owner{AllTenants: true}
	for _, q := range []string{"user", "assistant", "system", "42415348", "6d63705f5f6769745f687562", "facets"} {
		for _, mode := range []string{"chats", "entries"} {
			if got, _ := facetSearch(t, db, q, all, mode); !strings.HasPrefix(got, "0 ") {
				t.Errorf("%q (%s) found %s; want nothing: the facets are not words", q, mode, got)
			}
		}
	}
	if got, _ := facetSearch(t, db, "bash", all, "entries"); strings.HasPrefix(got, "0 ") {
		t.Errorf("bash found nothing; want the tool calls naming it in their tool name column")
	}
	if err := db.WriteTxForTest(ctx, `UPDATE entries SET kind = 'event' WHERE id IN ('one-0', 'two-1')`); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("after a change of kind: %v", annals.ErrorDetail(err))
	}
	db.SetFacetsForTest(true)
	got, _ := facetSearch(t, db, "role:event zqword", all, "entries")
	if !strings.Contains(got, "one-0/") || !strings.Contains(got, "two-1/") {
		t.Errorf("role:event after the change of kind: %s; want one-0 and two-1", got)
	}
	if err := db.WriteTxForTest(ctx, `DELETE FROM entries WHERE id IN ('one-2', 'else-2', 'two-0')`); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("after deleting entries: %v", annals.ErrorDetail(err))
	}
}

// TestFacetProbe: a scored walk leaves the kind and tool tokens out of its MATCH when the filters
// keep at least half of the newest matches (bm25 would count the tokens' documents for nothing)
// and uses them when they keep fewer; the statements that only walk or count use them always.
func TestFacetProbe(t *testing.T) {
	db := openTestDB(t)
	fillFacetCorpus(t, db)
	db.SetFacetProbeForTest(10)
	db.SetCandidatesForTest(1)
	all := annals.Owner{AllTenants: true}
	// The newest ten entries holding zqword: else-4 .. else-13 and more-*; user entries are 4 in
	// 10 (seq 0 and 4 of each 5), user or assistant 6 in 10.
	for _, c := range []struct {
		q      string
		tokens bool
	}{{"role:user zqword", true}, {"tool:bash zqword", true}, {"role:user role:assistant zqword", false}, {"role:user role:assistant role:system zqword", false}} {
		for _, mode := range []string{"chats", "entries"} {
			var scored []string
			pq, err := query.Parse(c.q)
			if err != nil {
				t.Fatal(err)
			}
			f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: all}, Text: query.ToTextExpr(pq.Text), Roles: pq.Filters.Roles, Tools: pq.Filters.Tools, Limit: 2}
			ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
				if strings.Contains(s.SQL, "bm25(entries_fts") && !strings.Contains(s.SQL, "og(pk") {
					scored = append(scored, fmt.Sprint(s.Args...))
				}
			})
			if mode == "entries" {
				_, _, err = db.SearchEntries(ctx, f)
			} else {
				_, _, err = db.SearchChats(ctx, f)
			}
			if err != nil {
				t.Fatal(err)
			}
			joined := strings.Join(scored, " ")
			got := strings.Contains(joined, "\U000F0100") || strings.Contains(joined, "\U000F0101")
			if len(scored) == 0 || got != c.tokens {
				t.Errorf("%s (%s): the scored walk's MATCH holds the tokens: %v, want %v (%q)", c.q, mode, got, c.tokens, scored)
			}
		}
	}
}

// TestNestedQueriesRunOnTheEntryIndex: the entry-level ranking and the entry search, under role:
// and without, with the kind tokens in the MATCH and the snippet pass's rowid bound, run nested
// queries, exclusions and phrases. (The widest and deepest the language allows fail on this path
// before this change too: "VIEWs and/or subqueries nested too deep".)
func TestNestedQueriesRunOnTheEntryIndex(t *testing.T) {
	db := openTestDB(t)
	db.SetEntryRankingForTest(true)
	db.SetFacetProbeForTest(-1)
	if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(t.Context(), db, "c", []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: "w1 w2 z a"}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"a (z (w1 OR w2))", "z -(q -(r))", "a OR (z w1)", `"w1 w2" -"x y" z*`, "w1 -q -r -s"} {
		for _, roles := range [][]annals.EntryKind{nil, {annals.KindUser}} {
			for _, o := range []annals.Owner{{AllTenants: true}, {TenantID: "t"}} {
				f := searchFilter(t, q, o)
				f.Roles = roles
				if hits, _, err := db.SearchChats(t.Context(), f); err != nil || len(hits) != 1 {
					t.Errorf("%q %v as %v: %d hits, %v; want the chat", q, roles, o, len(hits), annals.ErrorDetail(err))
				}
				if hits, _, err := db.SearchEntries(t.Context(), f); err != nil || len(hits) != 1 {
					t.Errorf("entries %q %v as %v: %d hits, %v; want the entry", q, roles, o, len(hits), annals.ErrorDetail(err))
				}
			}
		}
	}
}
