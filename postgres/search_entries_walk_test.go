package postgres_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/query"
	"github.com/annals-dev/annals/storetest"
)

// TestEntryRankingWalksTheNewestEntries: a chat search on the entry index under an entry-level
// filter, or holding a phrase, scores only the newest matching entries (here 4: the candidate
// cap of 1 times the walk factor), not every match, and stops there: the total is the chats the
// walk reached, a lower bound the search report says, while each page chat's matching entries
// are exact; a page the walk cannot fill is ranked over every match, with an exact total (as
// on SQLite).
func TestEntryRankingWalksTheNewestEntries(t *testing.T) {
	for _, c := range []struct {
		name, query, weak, strong string
	}{
		{"role filter", "role:user zqtool", "zqtool", "zqtool zqtool zqtool zqtool"},
		{"phrase", `"zqa zqb"`, "zqa zqb", "zqa zqb zqa zqb zqa zqb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := MustOpenDB(t)
			db.SetCandidatesForTest(1)
			testEntryWalk(t, db, c.query, c.weak, c.strong)
		})
	}
}

func testEntryWalk(t *testing.T, db *postgres.DB, q, weakWords, strongWords string) {
	filler := strings.Repeat("other words around it ", 30)
	add := func(id string, texts ...string) {
		t.Helper()
		if _, err := annals.CreateChat(t.Context(), db, storetest.NewChat(id, "A")); err != nil {
			t.Fatal(err)
		}
		var es []*annals.Entry
		for i, x := range texts {
			es = append(es, storetest.TextEntry(id+"-"+string(rune('a'+i)), annals.KindUser, x))
		}
		if _, err := annals.AppendEntries(t.Context(), db, id, es); err != nil {
			t.Fatal(err)
		}
	}
	weak := weakWords + " " + filler
	add("old", strongWords, strongWords, strongWords)
	add("new1", weak, weak, weak)
	add("new2", weak, weak, weak)
	pq, err := query.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{AllTenants: true}}, Text: query.ToTextExpr(pq.Text),
		Roles: pq.Filters.Roles, Limit: 1, Snippets: 3}
	report := &annals.SearchReport{}
	hits, total, err := db.SearchChats(annals.NewContextWithSearchReport(t.Context(), report), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Chat.ID == "old" || total != 2 || hits[0].Matches != 3 || !report.TotalAtLeast() {
		t.Fatalf("hits %v, total %d (lower bound %v); want one of the chats the walk reached (new1, new2) with its 3 matching entries, and at least those 2 chats", walkHits(hits), total, report.TotalAtLeast())
	}
	// A chat whose newest entries fill the walk leaves the second place of the page to the
	// ranking of every match.
	add("big", weak, weak, weak, weak, weak, weak, weak, weak, weak)
	f.Limit = 2
	report = &annals.SearchReport{}
	hits, total, err = db.SearchChats(annals.NewContextWithSearchReport(t.Context(), report), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || total != 4 || report.TotalAtLeast() {
		t.Fatalf("hits %v, total %d (lower bound %v); want a full page of 2 of the 4 chats, counted exactly", walkHits(hits), total, report.TotalAtLeast())
	}
	// Past the end: no chat, and still the exact total.
	f.Offset = 10
	hits, total, err = db.SearchChats(t.Context(), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 || total != 4 {
		t.Fatalf("past the end: hits %v, total %d; want none of 4", walkHits(hits), total)
	}
}

func walkHits(hits []annals.ChatHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Chat.ID+"/"+string(rune('0'+h.Matches)))
	}
	return out
}
