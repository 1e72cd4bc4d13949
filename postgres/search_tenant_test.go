package postgres_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
	"github.com/annals-dev/annals/storetest"
)

// TestMemberEntrySearchReadsItsTenantsEntries: a member's search on the entry index — an entry
// search, a chat search under an entry-level filter, a phrase — finds its tenant's entries
// through the tenant's index (migration 0029), not by reading every tenant's matches from the
// table and dropping the others', so a small tenant pays for its own share.
func TestMemberEntrySearchReadsItsTenantsEntries(t *testing.T) {
	ctx := t.Context()
	db := MustOpenDB(t)
	add := func(tenant, id string, n int) {
		t.Helper()
		c := storetest.NewChat(id, tenant)
		if _, err := annals.CreateChat(ctx, db, c); err != nil {
			t.Fatal(err)
		}
		var es []*annals.Entry
		for i := range n {
			es = append(es, storetest.TextEntry(fmt.Sprintf("%s-%d", id, i), annals.KindUser, "zqtenant zqwide words of a line"))
		}
		if _, err := annals.AppendEntries(ctx, db, id, es); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		add("big", fmt.Sprintf("b%d", i), 100)
	}
	add("small", "s0", 5)
	if err := db.Analyze(ctx); err != nil {
		t.Fatal(err)
	}
	member := annals.Owner{TenantID: "small"}
	for _, c := range []struct {
		name, query string
		entries     bool
	}{
		{"entry search", "zqtenant", true},
		{"entry-level filter", "role:user zqtenant", false},
		{"phrase", `"zqtenant zqwide"`, false},
	} {
		pq, err := query.Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: member}, Text: query.ToTextExpr(pq.Text), Roles: pq.Filters.Roles, Limit: 10}
		var stmts []annals.Statement
		tctx := annals.NewContextWithStatementTrace(ctx, func(s annals.Statement) { stmts = append(stmts, s) })
		n := 0
		if c.entries {
			hits, _, err := db.SearchEntries(tctx, f)
			n = len(hits)
			if err != nil {
				t.Fatal(err)
			}
		} else {
			hits, _, err := db.SearchChats(tctx, f)
			n = len(hits)
			if err != nil {
				t.Fatal(err)
			}
		}
		if want := map[bool]int{true: 5, false: 1}[c.entries]; n != want {
			t.Errorf("%s: %d hits, want %d", c.name, n, want)
		}
		if len(stmts) == 0 {
			t.Fatalf("%s: no statement traced", c.name)
		}
		plan, err := db.PlanForTest(ctx, firstMatch(t, stmts))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "entries_by_tenant") {
			t.Errorf("%s: the plan reads every tenant's matches:\n%s", c.name, plan)
		}
	}
}
