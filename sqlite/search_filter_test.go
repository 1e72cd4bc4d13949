package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// TestEntryFilterIndex: the searches that check matching entries against their chat or an
// entry-level filter read them through the entry filter index (migration 0025), with the same
// pages, scores, matches and totals as through the entries rows; a database opened read-only
// before its upgrade (no index) still answers them.
func TestEntryFilterIndex(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "a.db")
	// The clock is pinned: the scores blend in recency, and the runs compared are apart in time.
	now := func() time.Time { return time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC) }
	db, err := sqlite.Open(ctx, path, sqlite.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	fillFilterCorpus(t, db)
	type query struct {
		q       string
		mode    string
		roles   []annals.EntryKind
		tools   []string
		archive bool
	}
	queries := []query{
		{q: "zqword"},
		{q: "zqword other"},
		{q: "zqword", roles: []annals.EntryKind{annals.KindUser}},
		{q: "zqword", tools: []string{"BASH"}},
		{q: "zqword", tools: []string{"bash"}, mode: "entries"},
		{q: "zqword", mode: "entries"},
		{q: "zqword -excluded", roles: []annals.EntryKind{annals.KindUser}},
		{q: "zqword other", roles: []annals.EntryKind{annals.KindUser, annals.KindTool}},
		{q: "", roles: []annals.EntryKind{annals.KindAssistant}},
		{q: "zqword", roles: []annals.EntryKind{annals.KindUser}, archive: true},
	}
	run := func(db *sqlite.DB, q query) (string, []string) {
		t.Helper()
		var sqls []string
		tctx := annals.NewContextWithStatementTrace(ctx, func(s annals.Statement) { sqls = append(sqls, s.SQL) })
		var f annals.SearchFilter
		if q.q == "" {
			f = annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{TenantID: "T"}}, Limit: annals.MaxListLimit, Snippets: 3}
		} else {
			f = searchFilter(t, q.q, annals.Owner{TenantID: "T"})
		}
		f.Roles, f.Tools, f.Chat.IncludeArchived = q.roles, q.tools, q.archive
		var out []string
		var total int
		if q.mode == "entries" {
			hits, n, err := db.SearchEntries(tctx, f)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%s/%.6f/%s", h.Entry.ID, h.Score, h.Snippet))
			}
			total = n
		} else {
			hits, n, err := db.SearchChats(tctx, f)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%s/%d/%.6f/%v", h.Chat.ID, h.Matches, h.Score, h.Snippets))
			}
			total = n
		}
		return fmt.Sprint(total, out), sqls
	}
	for _, q := range queries {
		db.SetEntryFilterIndexForTest(true)
		got, sqls := run(db, q)
		db.SetEntryFilterIndexForTest(false)
		want, _ := run(db, q)
		if got != want {
			t.Errorf("%+v: through the index %s, through the rows %s", q, got, want)
		}
		if !strings.Contains(strings.Join(sqls, "\n"), "INDEXED BY entries_filter") {
			t.Errorf("%+v: no statement read the entry filter index", q)
		}
		if strings.HasPrefix(want, "0 ") {
			t.Errorf("%+v: nothing found (%s): the corpus does not exercise the query", q, want)
		}
	}
	db.SetEntryFilterIndexForTest(true)
	wants := map[string]string{}
	for i, q := range queries {
		wants[fmt.Sprint(i)], _ = run(db, q)
	}
	// A database from before migration 0025, opened read-only, has no index to name.
	if err := db.ExecForTest(ctx, `DROP INDEX entries_filter`); err != nil {
		t.Fatal(err)
	}
	if err := db.ExecForTest(ctx, `DELETE FROM schema_migrations WHERE version = 25`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for i, q := range queries {
		got, sqls := run(ro, q)
		if got != wants[fmt.Sprint(i)] {
			t.Errorf("%+v read-only without the index: %s, want %s", q, got, wants[fmt.Sprint(i)])
		}
		if strings.Contains(strings.Join(sqls, "\n"), "INDEXED BY") {
			t.Errorf("%+v: a statement named the index the database does not have", q)
		}
	}
}

// fillFilterCorpus writes two chats of tenant T (one archived) and one of tenant U, with user,
// assistant and tool entries holding zqword.
func fillFilterCorpus(t *testing.T, db *sqlite.DB) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []*annals.Chat{storetest.NewChat("one", "T"), storetest.NewChat("two", "T"), storetest.NewChat("gone", "T"), storetest.NewChat("else", "U")} {
		if _, err := annals.CreateChat(ctx, db, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, chat := range []string{"one", "two", "gone", "else"} {
		var es []*annals.Entry
		for i := range 12 {
			id := fmt.Sprintf("%s-%d", chat, i)
			switch i % 4 {
			case 0:
				es = append(es, storetest.TextEntry(id, annals.KindUser, "zqword asked "+strings.Repeat("other ", i%3)))
			case 1:
				es = append(es, storetest.TextEntry(id, annals.KindAssistant, "zqword answered"))
			case 2:
				es = append(es, storetest.ToolEntry(id, "Bash", `{"command": "zqword"}`, "zqword ran "+strings.Repeat("zqword ", i%5)))
			default:
				es = append(es, storetest.TextEntry(id, annals.KindUser, "zqword excluded"))
			}
		}
		if chat == "two" {
			es = es[:3] // no "excluded"
		}
		if _, err := annals.AppendEntries(ctx, db, chat, es); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ExecForTest(ctx, `UPDATE chats SET archived_at = 1 WHERE id = 'gone'`); err != nil {
		t.Fatal(err)
	}
}
