package sqlite_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

// TestEntrySearchRanksTheNewestCandidates: an entry search by relevance ranks only the newest
// matching entries (the candidate cap), so its cost stops with them and with no count of the
// rest: the total is the candidates, a lower bound the search report says; sort recent is
// unchanged and exact.
func TestEntrySearchRanksTheNewestCandidates(t *testing.T) {
	db := openTestDB(t)
	db.SetCandidatesForTest(3)
	if _, err := annals.CreateChat(t.Context(), db, storetest.NewChat("c", "A")); err != nil {
		t.Fatal(err)
	}
	filler := strings.Repeat("other words around it ", 20)
	entries := []*annals.Entry{storetest.TextEntry("best", annals.KindUser, "zqfind zqfind zqfind")}
	for _, id := range []string{"w1", "w2", "w3", "w4", "w5"} {
		entries = append(entries, storetest.TextEntry(id, annals.KindUser, "zqfind "+filler+id))
	}
	if _, err := annals.AppendEntries(t.Context(), db, "c", entries); err != nil {
		t.Fatal(err)
	}
	all := annals.Owner{AllTenants: true}
	var counted bool
	ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
		counted = counted || strings.HasPrefix(s.SQL, "SELECT count(*)")
	})
	f := searchFilter(t, "zqfind", all)
	f.Limit = 2
	report := &annals.SearchReport{}
	hits, total, err := db.SearchEntries(annals.NewContextWithSearchReport(ctx, report), f)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.Entry.ID)
	}
	if total != 3 || !report.TotalAtLeast() || len(ids) != 2 || slices.Contains(ids, "best") || slices.Contains(ids, "w1") || slices.Contains(ids, "w2") {
		t.Errorf("hits %v, total %d (lower bound %v); want two of the 3 newest matches (w3, w4, w5), and at least those 3", ids, total, report.TotalAtLeast())
	}
	if counted {
		t.Error("the matches were counted although the search stops after its candidates")
	}
	f.Sort, f.Limit = annals.SortRecent, 6
	report = &annals.SearchReport{}
	hits, total, err = db.SearchEntries(annals.NewContextWithSearchReport(t.Context(), report), f)
	if err != nil {
		t.Fatal(err)
	}
	if total != 6 || report.TotalAtLeast() || len(hits) != 6 || hits[5].Entry.ID != "best" {
		t.Errorf("sort recent: %d hits, total %d (lower bound %v); want every match, the oldest last, counted exactly", len(hits), total, report.TotalAtLeast())
	}
	// Fewer matches than candidates: the total is exact.
	db.SetCandidatesForTest(10)
	report = &annals.SearchReport{}
	if _, total, err = db.SearchEntries(annals.NewContextWithSearchReport(t.Context(), report), searchFilter(t, "zqfind", all)); err != nil || total != 6 || report.TotalAtLeast() {
		t.Errorf("10 candidates: total %d (lower bound %v), err %v; want all 6, exact", total, report.TotalAtLeast(), err)
	}
	// Within the cap the ranking is bm25's: the strongest match first.
	db.SetCandidatesForTest(0)
	hits, _, err = db.SearchEntries(t.Context(), searchFilter(t, "zqfind", all))
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 6 || hits[0].Entry.ID != "best" {
		t.Errorf("with every match a candidate the first hit is %v, want best", hits)
	}
}
