package postgres_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
	"github.com/annals-dev/annals/storetest"
)

// TestEntrySearchRanksTheNewestCandidates: an entry search by relevance ranks only the newest
// matching entries (the candidate cap), so its cost stops with them and with no count of the
// rest: the total is the candidates, a lower bound the search report says; sort recent is
// unchanged and exact (as on SQLite).
func TestEntrySearchRanksTheNewestCandidates(t *testing.T) {
	db := MustOpenDB(t)
	db.SetCandidatesForTest(3)
	if _, err := annals.CreateChat(t.Context(), db, storetest.NewChat("c", "A")); err != nil {
		t.Fatal(err)
	}
	filler := strings.Repeat("other words around it ", 20)
	entries := []*annals.Entry{storetest.TextEntry("best", annals.KindUser, "zqfind zqfind zqfind")}
	for _, id := range []string{"w1", "w2", "w3", "w4", "w5"} {
		entries = append(entries, storetest.TextEntry(id, annals.KindUser, "zqfind "+filler+id))
	}
	for i, e := range entries {
		e.Time = storetest.BaseTime.Add(time.Duration(i) * time.Second)
	}
	if _, err := annals.AppendEntries(t.Context(), db, "c", entries); err != nil {
		t.Fatal(err)
	}
	pq, err := query.Parse("zqfind")
	if err != nil {
		t.Fatal(err)
	}
	f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{AllTenants: true}}, Text: query.ToTextExpr(pq.Text), Limit: 2}
	report := &annals.SearchReport{}
	hits, total, err := db.SearchEntries(annals.NewContextWithSearchReport(t.Context(), report), f)
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
	f.Sort, f.Limit = "", 2
	if _, total, err = db.SearchEntries(annals.NewContextWithSearchReport(t.Context(), report), f); err != nil || total != 6 || report.TotalAtLeast() {
		t.Errorf("10 candidates: total %d (lower bound %v), err %v; want all 6, exact", total, report.TotalAtLeast(), err)
	}
	// Within the cap the ranking is ts_rank's: the strongest match first.
	db.SetCandidatesForTest(0)
	f.Sort, f.Limit = "", 6
	hits, _, err = db.SearchEntries(t.Context(), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 6 || hits[0].Entry.ID != "best" {
		t.Errorf("with every match a candidate the first hit is %v, want best", hits)
	}
}
