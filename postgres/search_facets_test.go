package postgres_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/query"
	"github.com/annals-dev/annals/storetest"
)

// facetSearch runs a search of q (a chat search, or an entry search) as an admin and returns its
// hits and the statements it ran.
func facetSearch(t *testing.T, db *postgres.DB, q string, entries bool) (int, []annals.Statement) {
	t.Helper()
	pq, err := query.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{AllTenants: true}}, Text: query.ToTextExpr(pq.Text),
		Roles: pq.Filters.Roles, Tools: pq.Filters.Tools, Limit: 100}
	var stmts []annals.Statement
	ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) { stmts = append(stmts, s) })
	if entries {
		hits, _, err := db.SearchEntries(ctx, f)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return len(hits), stmts
	}
	hits, _, err := db.SearchChats(ctx, f)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return len(hits), stmts
}

// firstMatch is the first statement that reads the entry index (before it, a chat search's walk
// asks the range of pks its windows are cut from: search_entry_window.go).
func firstMatch(t *testing.T, stmts []annals.Statement) annals.Statement {
	t.Helper()
	for _, s := range stmts {
		if strings.Contains(s.SQL, "e.tsv @@") {
			return s
		}
	}
	t.Fatalf("no statement reads the entry index: %v", stmts)
	return annals.Statement{}
}

// TestFilteredSearchMatchesTheFilterInTheIndex: a search under tool: or role: hands the entry
// index its filter as lexemes of the index's second column (migration 0031), so GIN intersects
// them with the words' postings and the plan reads only the entries passing both. Before, the
// filter was `lower(tool_name) IN (...)` on the rows read, which the planner guessed at 0.5% of
// the rows: at 1M entries `tool:Bash timeout` scanned the whole table.
func TestFilteredSearchMatchesTheFilterInTheIndex(t *testing.T) {
	ctx := t.Context()
	db := MustOpenDB(t)
	for c := range 30 {
		id := fmt.Sprintf("f%d", c)
		if _, err := annals.CreateChat(ctx, db, storetest.NewChat(id, "t1")); err != nil {
			t.Fatal(err)
		}
		var es []*annals.Entry
		for i := range 200 {
			words := "plain words of a line"
			if i%5 == 0 {
				words += " zqfacet"
			}
			if i%50 == 1 {
				words += " zqrare"
			}
			eid := fmt.Sprintf("%s-%d", id, i)
			switch {
			case i%8 == 0:
				es = append(es, storetest.ToolEntry(eid, "Bash", `{"command":"ls"}`, words))
			case i%2 == 0:
				es = append(es, storetest.ToolEntry(eid, "Read", `{"path":"a"}`, words))
			default:
				es = append(es, storetest.TextEntry(eid, annals.KindUser, words))
			}
		}
		if _, err := annals.AppendEntries(ctx, db, id, es); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Analyze(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query   string
		entries bool
		want    int
	}{
		{"tool:Bash zqfacet", false, 30},
		{"tool:Bash zqfacet", true, 100},
		{"role:user zqrare", false, 30},
		{"role:user zqrare", true, 100},
	} {
		n, stmts := facetSearch(t, db, c.query, c.entries)
		if n != c.want {
			t.Errorf("%s (entries %v): %d hits, want %d", c.query, c.entries, n, c.want)
		}
		if len(stmts) == 0 {
			t.Fatalf("%s: no statement traced", c.query)
		}
		plan, err := db.PlanAsIsForTest(ctx, firstMatch(t, stmts))
		if err != nil {
			t.Fatal(err)
		}
		inIndex, seqScan, rankedInScan := false, false, false
		lines := strings.Split(plan, "\n")
		for i, l := range lines {
			// annals_entry_facets is inlined: its lexemes name it.
			if strings.Contains(l, "Index Cond") && (strings.Contains(l, "'k:") || strings.Contains(l, "'t:")) {
				inIndex = true
			}
			if strings.Contains(l, "Seq Scan on") && strings.Contains(l, "entries e") {
				seqScan = true
			}
			// The chat search's walk over words reads keys: the vectors are ranked after
			// its limit, for the entries it kept.
			if !c.entries && strings.Contains(l, "Heap Scan on") && strings.Contains(l, "entries e") &&
				i+1 < len(lines) && strings.Contains(lines[i+1], "Output:") && strings.Contains(lines[i+1], "ts_rank") {
				rankedInScan = true
			}
		}
		if !inIndex || seqScan {
			t.Errorf("%s (entries %v): the filter is not matched in the entry index:\n%s", c.query, c.entries, plan)
		}
		if rankedInScan {
			t.Errorf("%s: every match is ranked before the walk's limit:\n%s", c.query, plan)
		}
	}
}

// TestFilteredSearchFindsEveryToolName: the tool lexemes narrow without changing what matches —
// any case, spaces and quotes in a name, a searched name too long for a lexeme (the SQL filter
// alone then decides), several tools, a role beside a tool.
func TestFilteredSearchFindsEveryToolName(t *testing.T) {
	ctx := t.Context()
	db := MustOpenDB(t)
	long := strings.Repeat("Long", 300) // no tool is named so (256 bytes at most): matches nothing
	if _, err := annals.CreateChat(ctx, db, storetest.NewChat("names", "t1")); err != nil {
		t.Fatal(err)
	}
	var es []*annals.Entry
	for i, name := range []string{"Bash", "BASH", "bash", "my tool", "it's", `back\slash`, "Read"} {
		es = append(es, storetest.ToolEntry(fmt.Sprintf("e%d", i), name, `{}`, "zqname"))
	}
	es = append(es, storetest.TextEntry("u", annals.KindUser, "zqname"))
	if _, err := annals.AppendEntries(ctx, db, "names", es); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tools []string
		roles []annals.EntryKind
		want  int
	}{
		{[]string{"bash"}, nil, 3},
		{[]string{"BaSh"}, nil, 3},
		{[]string{"My Tool"}, nil, 1},
		{[]string{"IT'S"}, nil, 1},
		{[]string{`back\slash`}, nil, 1},
		{[]string{long}, nil, 0},
		{[]string{"bash", "read"}, nil, 4},
		{[]string{"bash", long}, nil, 3},
		{[]string{"bash"}, []annals.EntryKind{annals.KindTool}, 3},
		{[]string{"bash"}, []annals.EntryKind{annals.KindUser}, 0},
		{nil, []annals.EntryKind{annals.KindUser}, 1},
		{nil, []annals.EntryKind{annals.KindUser, annals.KindTool}, 8},
		{[]string{"nosuch"}, nil, 0},
	} {
		for _, text := range []bool{true, false} {
			f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{AllTenants: true}}, Tools: c.tools, Roles: c.roles, Limit: 100}
			if text {
				f.Text = &annals.TextExpr{Op: annals.TextTerm, Tokens: []string{"zqname"}}
			}
			hits, _, err := db.SearchEntries(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != c.want {
				t.Errorf("tools %q roles %v (text %v): %d entries, want %d", c.tools, c.roles, text, len(hits), c.want)
			}
		}
	}
}

// Migration 0031 on a database holding entries: the index is built again with the facets, and a
// filtered search finds what it found before the upgrade.
func TestEntryFacetsUpgrade(t *testing.T) {
	ctx := t.Context()
	dsn := MustCreateSchema(t)
	db := MustOpen(t, dsn, postgres.Options{})
	if _, err := annals.CreateChat(ctx, db, storetest.NewChat("up", "t1")); err != nil {
		t.Fatal(err)
	}
	es := []*annals.Entry{
		storetest.ToolEntry("a", "Bash", `{}`, "zqup"),
		storetest.ToolEntry("b", "Read", `{}`, "zqup"),
		storetest.TextEntry("c", annals.KindUser, "zqup"),
	}
	if _, err := annals.AppendEntries(ctx, db, "up", es); err != nil {
		t.Fatal(err)
	}
	// The schema as 0030 left it.
	for _, q := range []string{
		`DROP INDEX entries_tsv`,
		`DROP FUNCTION annals_entry_facets(text, text)`,
		`CREATE INDEX entries_tsv ON entries USING gin (tsv) WITH (gin_pending_list_limit = 1024)`,
		`DELETE FROM schema_migrations WHERE version = 31`,
	} {
		if err := db.ExecForTest(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	db = MustOpen(t, dsn, postgres.Options{})
	var def string
	if err := db.QueryRowForTest(ctx, `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'entries_tsv'`, &def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "annals_entry_facets(kind, tool_name)") {
		t.Errorf("entries_tsv after the upgrade: %s", def)
	}
	for _, c := range []struct {
		tools []string
		roles []annals.EntryKind
		want  int
	}{
		{[]string{"bash"}, nil, 1},
		{nil, []annals.EntryKind{annals.KindTool}, 2},
		{nil, []annals.EntryKind{annals.KindUser}, 1},
	} {
		f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{AllTenants: true}}, Tools: c.tools, Roles: c.roles, Limit: 10,
			Text: &annals.TextExpr{Op: annals.TextTerm, Tokens: []string{"zqup"}}}
		hits, _, err := db.SearchEntries(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != c.want {
			t.Errorf("tools %q roles %v: %d entries, want %d", c.tools, c.roles, len(hits), c.want)
		}
	}
}
