package postgres_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/query"
	"github.com/annals-dev/annals/storetest"
)

// TestEntryWalkByPkWindows: a chat search's walk over words asks the newest entries first, a pk
// window ANDed into the match, widened until it holds the walk's matches, and the whole table
// last; each window keeps the scope's tenant. Over a corpus where the first window is too small
// (a walk of 4 matches, a first window of 64 entries holding 1), for every tenant scope, page and
// order the page, its scores, counts, snippets and totals are those of the walk over the whole
// table; and the windows happen: over every tenant, and for A, the page comes from the second
// window without reading the whole table, while B's sparse matches take it to the whole table
// after one window. A phrase's walk reads newest first and stops, unwindowed.
func TestEntryWalkByPkWindows(t *testing.T) {
	ctx := t.Context()
	db := windowCorpus(t)
	type result struct {
		Hits    []annals.ChatHit
		Total   int
		AtLeast bool
	}
	search := func(q string, o annals.Owner, sort string, limit, offset int, whole bool) (result, []annals.Statement) {
		t.Helper()
		pq, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		db.SetWholeWalksForTest(whole)
		defer db.SetWholeWalksForTest(false)
		var stmts []annals.Statement
		report := &annals.SearchReport{}
		sctx := annals.NewContextWithStatementTrace(annals.NewContextWithSearchReport(ctx, report), func(s annals.Statement) { stmts = append(stmts, s) })
		f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: o}, Text: query.ToTextExpr(pq.Text), Roles: pq.Filters.Roles,
			Sort: sort, Limit: limit, Offset: offset, Snippets: 3}
		hits, total, err := db.SearchChats(sctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return result{hits, total, report.TotalAtLeast()}, stmts
	}
	owners := map[string]annals.Owner{"every tenant": {AllTenants: true}, "A": {TenantID: "A"}, "B": {TenantID: "B"}, "none": {TenantID: "C"}}
	windowed := func(stmts []annals.Statement) (n int, whole bool) {
		for _, s := range stmts {
			switch {
			case strings.Contains(s.SQL, "e.pk >"):
				n++
			case strings.Contains(s.SQL, "ORDER BY e.pk DESC LIMIT"):
				whole = true
			}
		}
		return n, whole
	}
	for name, o := range owners {
		for _, q := range []string{"role:user zqwin", "role:user zqpair OR zqnone", `"zqwin zqpair"`} {
			for _, sort := range []string{annals.SortRelevance, annals.SortRecent} {
				for _, page := range [][2]int{{1, 0}, {2, 0}, {1, 1}, {2, 3}, {1, 20}} {
					got, stmts := search(q, o, sort, page[0], page[1], false)
					want, _ := search(q, o, sort, page[0], page[1], true)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s, %s, %s, limit %d offset %d: by windows %+v, want the whole walk's %+v", name, q, sort, page[0], page[1], got, want)
					}
					for _, s := range stmts {
						if strings.Contains(s.SQL, "e.pk >") && o.TenantID != "" && !strings.Contains(s.SQL, "e.tenant_id = ") {
							t.Errorf("%s, %s: a window without the tenant:\n%s", name, q, s.SQL)
						}
						// A phrase's walk reads newest first and stops already.
						if strings.Contains(s.SQL, "e.pk >") && strings.HasPrefix(q, `"`) {
							t.Errorf("%s, %s: a phrase's walk by windows", name, q)
						}
					}
				}
			}
		}
	}
	// The first page of one by relevance: a window of 64 entries holds two matches of the
	// walk's 4, the next (by its density, 160) holds them, and the walk stops there.
	for _, name := range []string{"every tenant", "A"} {
		_, stmts := search("role:user zqwin", owners[name], annals.SortRelevance, 1, 0, false)
		if n, whole := windowed(stmts); n != 2 || whole {
			t.Errorf("%s: %d windows, whole table %v; want 2 windows and not the whole table", name, n, whole)
		}
	}
	// B's first window holds 1 of its 6 matches: at that density a window holding 4 would cost
	// more than reading B's matches, and the walk reads the table.
	_, stmts := search("role:user zqwin", owners["B"], annals.SortRelevance, 1, 0, false)
	if n, whole := windowed(stmts); n != 1 || !whole {
		t.Errorf("B: %d windows, whole table %v; want one window, then the whole table", n, whole)
	}
}

// windowCorpus is the windows' corpus: tenants A and B, matches at both ends of the pks and
// fillers between, and a chat of A stored in the middle but written before every other.
func windowCorpus(t *testing.T) *postgres.DB {
	t.Helper()
	ctx := t.Context()
	now := storetest.BaseTime.Add(time.Hour)
	db := MustOpen(t, MustCreateSchema(t), postgres.Options{PoolSize: 4, Now: func() time.Time { return now }})
	db.SetCandidatesForTest(1) // a walk of 4 entries for a page of 1, 8 for 2
	n := 0
	add := func(tenant, id string, texts ...string) {
		t.Helper()
		if _, err := annals.CreateChat(ctx, db, storetest.NewChat(id, tenant)); err != nil {
			t.Fatal(err)
		}
		var es []*annals.Entry
		for i, x := range texts {
			kind := annals.KindUser
			if strings.HasPrefix(x, "said ") {
				kind = annals.KindAssistant
			}
			n++
			e := storetest.TextEntry(fmt.Sprintf("%s-%03d", id, i), kind, x)
			e.Time = storetest.BaseTime.Add(time.Duration(n) * time.Second)
			if id == "a-imported" {
				e.Time = storetest.BaseTime.Add(-time.Duration(n) * time.Hour)
			}
			es = append(es, e)
		}
		if _, err := annals.AppendEntries(ctx, db, id, es); err != nil {
			t.Fatal(err)
		}
	}
	rep := func(s string, k int) []string {
		out := make([]string, k)
		for i := range out {
			out[i] = s
		}
		return out
	}
	match := func(i int) string { return fmt.Sprintf("zqwin zqpair %s", strings.Repeat("zqwin ", i%3)) }
	fill := "filler words only"
	// Oldest first: the pk order.
	add("A", "a-old", match(2), match(2), match(2), match(2))
	add("B", "b-old", match(1), match(2), match(0))
	add("A", "a-fill", rep(fill, 600)...)
	// Imported late, written long before: the oldest entries by time, not by pk.
	add("A", "a-imported", match(1), match(2), match(0), match(1), match(2))
	add("B", "b-mid", append([]string{match(0), "said " + match(1), match(1)}, rep(fill, 30)...)...)
	add("A", "a-mid", match(1), "said "+match(2), match(0))
	add("A", "a-fill2", rep(fill, 50)...)
	add("B", "b-new", append([]string{match(2)}, rep(fill, 20)...)...)
	add("A", "a-new", append(append([]string{match(1)}, rep(fill, 70)...), match(2), match(1))...)
	if err := db.Analyze(ctx); err != nil {
		t.Fatal(err)
	}

	return db
}

// TestEntrySearchByTimeWindows: an entry search over every tenant walks its newest candidates by
// time in windows of the newest entries by time (e.time >= bound), widened until one holds them:
// for every page, order and query, the hits, scores, snippets and totals are those of the walk
// over every entry (here entries stored later are not always newer); the windows happen (a page
// of 3 takes a second window and stops there); a member's search is not windowed.
func TestEntrySearchByTimeWindows(t *testing.T) {
	ctx := t.Context()
	db := windowCorpus(t)
	type result struct {
		Hits    []annals.EntryHit
		Total   int
		AtLeast bool
	}
	search := func(q string, o annals.Owner, sort string, limit, offset int, whole bool) (result, int, bool) {
		t.Helper()
		pq, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		db.SetWholeWalksForTest(whole)
		defer db.SetWholeWalksForTest(false)
		windows, unwindowed := 0, false
		report := &annals.SearchReport{}
		sctx := annals.NewContextWithStatementTrace(annals.NewContextWithSearchReport(ctx, report), func(s annals.Statement) {
			switch {
			case strings.Contains(s.SQL, "e.time >= "):
				windows++
				if o.TenantID != "" {
					t.Errorf("a member's search by windows: %s", s.SQL)
				}
			case strings.Contains(s.SQL, "JOIN chats c ON c.pk = e.chat_pk WHERE"):
				unwindowed = true
			}
		})
		f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: o}, Text: query.ToTextExpr(pq.Text), Roles: pq.Filters.Roles,
			Sort: sort, Limit: limit, Offset: offset}
		hits, total, err := db.SearchEntries(sctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return result{hits, total, report.TotalAtLeast()}, windows, unwindowed
	}
	for name, o := range map[string]annals.Owner{"every tenant": {AllTenants: true}, "A": {TenantID: "A"}} {
		for _, q := range []string{"role:user zqwin", "zqwin", `"zqwin zqpair"`} {
			for _, sort := range []string{annals.SortRelevance, annals.SortRecent} {
				for _, page := range [][2]int{{1, 0}, {2, 0}, {1, 1}, {2, 3}, {3, 2}, {1, 40}} {
					got, _, _ := search(q, o, sort, page[0], page[1], false)
					want, _, _ := search(q, o, sort, page[0], page[1], true)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s, %s, %s, limit %d offset %d: by windows %+v, want the whole walk's %+v", name, q, sort, page[0], page[1], got, want)
					}
				}
			}
		}
	}
	// A walk of 3 by relevance: the newest 48 entries by time hold 2 matches, the next window
	// (96) holds 3, and the walk stops there.
	if _, windows, whole := search("role:user zqwin", annals.Owner{AllTenants: true}, annals.SortRelevance, 3, 0, false); windows != 2 || whole {
		t.Errorf("%d windows, every entry %v; want 2 windows and not every entry", windows, whole)
	}
}
