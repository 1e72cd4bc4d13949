package sqlite_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// TestPhraseSearchStopsAfterItsCandidates: a chat search by relevance for a phrase with more
// matching chats than candidates does not count them all (that would check the phrase's
// positions in every chat again): the total is the candidates, a lower bound the search report
// says. A single word is still counted exactly, and so is a phrase newest first.
func TestPhraseSearchStopsAfterItsCandidates(t *testing.T) {
	ctx := t.Context()
	db := openTestDB(t)
	db.SetCandidatesForTest(3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 6 {
		id := fmt.Sprintf("c%d", i)
		at := base.Add(time.Duration(i) * time.Minute)
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "t", CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, db, id, []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: "run the flaky test again", Time: at}}); err != nil {
			t.Fatal(err)
		}
	}
	all := annals.Owner{AllTenants: true}
	search := func(q, sort string) (int, int, bool, bool) {
		t.Helper()
		var counted bool
		tctx := annals.NewContextWithStatementTrace(ctx, func(s annals.Statement) {
			counted = counted || strings.Contains(s.SQL, "SELECT count(*) FROM chat_fts")
		})
		report := &annals.SearchReport{}
		f := searchFilter(t, q, all)
		f.Limit, f.Sort = 2, sort
		hits, total, err := db.SearchChats(annals.NewContextWithSearchReport(tctx, report), f)
		if err != nil {
			t.Fatal(err)
		}
		return len(hits), total, report.TotalAtLeast(), counted
	}
	if n, total, atLeast, counted := search(`"flaky test"`, ""); n != 2 || total != 3 || !atLeast || counted {
		t.Errorf(`"flaky test": %d hits, total %d (lower bound %v, counted %v); want 2 hits of at least 3, not counted`, n, total, atLeast, counted)
	}
	if n, total, atLeast, counted := search("flaky", ""); n != 2 || total != 6 || atLeast || !counted {
		t.Errorf("flaky: %d hits, total %d (lower bound %v, counted %v); want 2 hits of exactly 6", n, total, atLeast, counted)
	}
	if n, total, atLeast, _ := search(`"flaky test"`, annals.SortRecent); n != 2 || total != 6 || atLeast {
		t.Errorf(`"flaky test" newest first: %d hits, total %d (lower bound %v); want 2 hits of exactly 6`, n, total, atLeast)
	}
	// Fewer matches than candidates: exact.
	db.SetCandidatesForTest(10)
	if n, total, atLeast, _ := search(`"flaky test"`, ""); n != 2 || total != 6 || atLeast {
		t.Errorf(`"flaky test", 10 candidates: %d hits, total %d (lower bound %v); want 2 hits of exactly 6`, n, total, atLeast)
	}
}
