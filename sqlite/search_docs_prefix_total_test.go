package sqlite_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// TestCappedPrefixSearchStopsAfterItsCandidates: a chat search for a prefix that stands for more
// words than a search expands (storecore.MaxPrefixWords) is partial already; with more matching
// chats than candidates it does not count the chats holding the words it searched (a second
// pass over every posting of those words): the total is the candidates ranked, a lower bound. A
// prefix within the cap, and any prefix newest first, is still counted exactly.
func TestCappedPrefixSearchStopsAfterItsCandidates(t *testing.T) {
	ctx := t.Context()
	db := openTestDB(t)
	db.SetCandidatesForTest(3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	words := make([]string, 70) // more than storecore.MaxPrefixWords (64)
	for i := range words {
		words[i] = fmt.Sprintf("zqword%02d", i)
	}
	text := "the flaky build " + strings.Join(words, " ")
	for i := range 6 {
		id := fmt.Sprintf("c%d", i)
		at := base.Add(time.Duration(i) * time.Minute)
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "t", CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, db, id, []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: text, Time: at}}); err != nil {
			t.Fatal(err)
		}
	}
	all := annals.Owner{AllTenants: true}
	type result struct {
		hits, total     int
		atLeast, capped bool
		counted         bool
	}
	search := func(q, sort string) result {
		t.Helper()
		var r result
		tctx := annals.NewContextWithStatementTrace(ctx, func(s annals.Statement) {
			r.counted = r.counted || strings.Contains(s.SQL, "SELECT count(*) FROM chat_fts")
		})
		report := &annals.SearchReport{}
		f := searchFilter(t, q, all)
		f.Limit, f.Sort = 2, sort
		hits, total, err := db.SearchChats(annals.NewContextWithSearchReport(tctx, report), f)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range report.Explain().Expansions {
			r.capped = r.capped || x.Capped
		}
		r.hits, r.total, r.atLeast = len(hits), total, report.TotalAtLeast()
		return r
	}
	if r := search("zqword*", ""); r.hits != 2 || r.total != 3 || !r.atLeast || !r.capped || r.counted {
		t.Errorf("zqword* (capped): %+v; want 2 hits of at least 3, capped, not counted", r)
	}
	// Newest first stops after the page, so a lower bound would be the page's end: counted.
	if r := search("zqword*", annals.SortRecent); r.hits != 2 || r.total != 6 || r.atLeast || !r.counted {
		t.Errorf("zqword* newest first: %+v; want 2 hits of exactly 6, counted", r)
	}
	// Within the cap: the prefix finds exactly what it stands for, and the total is exact.
	if r := search("flak*", ""); r.hits != 2 || r.total != 6 || r.atLeast || r.capped || !r.counted {
		t.Errorf("flak*: %+v; want 2 hits of exactly 6, counted", r)
	}
	// Fewer matches than candidates: exact even when capped.
	db.SetCandidatesForTest(10)
	if r := search("zqword*", ""); r.hits != 2 || r.total != 6 || r.atLeast {
		t.Errorf("zqword*, 10 candidates: %+v; want 2 hits of exactly 6", r)
	}
}
