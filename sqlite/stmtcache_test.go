package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/sqlite"
)

// Searches run their statements prepared once and kept: the answers must be the same as the
// first, unprepared run's, also with many searches at once on a small reader pool while the
// cache evicts statements other searches are running.
func TestPreparedSearchStatementsAnswerAsUnprepared(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{Readers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 3, Entries: 1000, Chats: 30}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, db, &buf, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	term := func(w string) *annals.TextExpr { return &annals.TextExpr{Op: annals.TextTerm, Tokens: []string{w}} }
	pre := term("mediumt")
	pre.Prefix = true
	all := annals.ChatFilter{Owner: annals.Owner{AllTenants: true}}
	filters := []annals.SearchFilter{
		{Chat: all, Text: term(corpus.CommonTerm), Limit: 5, Snippets: 2},
		{Chat: all, Text: term(corpus.MediumTerm), Limit: 3, Snippets: 1, Sort: annals.SortRecent},
		{Chat: all, Text: &annals.TextExpr{Op: annals.TextAnd, Items: []*annals.TextExpr{term(corpus.CommonTerm), term(corpus.MediumTerm)}}, Limit: 4},
		{Chat: all, Text: pre, Limit: 10, Snippets: 3},
		{Chat: all, Text: term(corpus.CommonTerm), Limit: 5, Offset: 5, Snippets: 1},
		{Text: term(corpus.CommonTerm), Limit: 5},                         // the first hit's tenant, below
		{Chat: all, Text: term(corpus.ScarceTerm), Limit: 5, Snippets: 1}, // entries, below
	}
	entries := len(filters) - 1
	// An answer without scores: the recency bonus moves them as the clock runs.
	type hit struct {
		ID       string
		Seq      int64
		Matches  int
		Snippets []annals.Snippet
	}
	type answer struct {
		Hits  []hit
		Total int
	}
	run := func(i int) (answer, error) {
		a := answer{Hits: []hit{}}
		var err error
		if i == entries {
			var hits []annals.EntryHit
			hits, a.Total, err = db.SearchEntries(ctx, filters[i])
			for _, h := range hits {
				a.Hits = append(a.Hits, hit{ID: h.Entry.ChatID, Seq: h.Entry.Seq, Snippets: []annals.Snippet{{Text: h.Snippet}}})
			}
			return a, err
		}
		var hits []annals.ChatHit
		hits, a.Total, err = db.SearchChats(ctx, filters[i])
		for _, h := range hits {
			a.Hits = append(a.Hits, hit{ID: h.Chat.ID, Matches: h.Matches, Snippets: h.Snippets})
		}
		return a, err
	}
	want := make([]answer, len(filters))
	for i := range filters {
		if i == 5 {
			first, _, err := db.SearchChats(ctx, filters[0])
			if err != nil || len(first) == 0 {
				t.Fatalf("search 0 again: %d hits, %v", len(first), err)
			}
			filters[i].Chat.Owner = annals.Owner{TenantID: first[0].Chat.TenantID}
		}
		if want[i], err = run(i); err != nil {
			t.Fatalf("search %d: %v", i, err)
		}
		if want[i].Total == 0 {
			t.Fatalf("search %d found nothing: the test needs matches", i)
		}
	}
	if n := db.StatementsCachedForTest(); n == 0 {
		t.Fatalf("no statement was kept after %d searches", len(filters))
	}
	searchInTurns(t, "prepared", len(filters), func(i int) (any, error) { return run(i) }, func(i int) any { return want[i] })
	db.SetStatementCacheForTest(2) // evicts while the others run
	searchInTurns(t, "evicting", len(filters), func(i int) (any, error) { return run(i) }, func(i int) any { return want[i] })
}

// searchInTurns runs searches 0..n-1 from four goroutines at once, twice each, each goroutine in
// its own order, and reports every answer that is not the one wanted.
func searchInTurns(t *testing.T, round string, n int, run func(int) (any, error), want func(int) any) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 2 {
				for i := range n {
					j := (i + g + r) % n
					got, err := run(j)
					if err == nil && !reflect.DeepEqual(got, want(j)) {
						err = fmt.Errorf("search %d answered %+v, want %+v", j, got, want(j))
					}
					if err != nil {
						errs <- fmt.Errorf("%s: %w", round, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
