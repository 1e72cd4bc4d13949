package sqlite_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

// TestFieldFilterSearchWalksTheNewestEntries: a chat search under an entry-level filter scores
// only the newest matching entries (here 4: the candidate cap of 1 times the walk factor), not
// every match, and stops there: the total is the chats the walk reached, a lower bound the
// search report says, while each page chat's matching entries are exact; a page the walk
// cannot fill is ranked over every match, with an exact total.
func TestFieldFilterSearchWalksTheNewestEntries(t *testing.T) {
	db := openTestDB(t)
	db.SetCandidatesForTest(1)
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
	weak := "zqtool " + filler
	strong := "zqtool zqtool zqtool zqtool"
	add("old", strong, strong, strong)
	add("new1", weak, weak, weak)
	add("new2", weak, weak, weak)
	all := annals.Owner{AllTenants: true}
	f := searchFilter(t, "role:user zqtool", all)
	f.Roles, f.Limit = []annals.EntryKind{annals.KindUser}, 1
	report := &annals.SearchReport{}
	hits, total, err := db.SearchChats(annals.NewContextWithSearchReport(t.Context(), report), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Chat.ID == "old" || total != 2 || hits[0].Matches != 3 || !report.TotalAtLeast() {
		t.Fatalf("hits %v, total %d (lower bound %v); want one of the chats the walk reached (new1, new2) with its 3 matching entries, and at least those 2 chats", chatHits(hits), total, report.TotalAtLeast())
	}
	// A chat whose newest 8 entries fill the walk leaves the second place of the page to the
	// ranking of every match.
	add("big", weak, weak, weak, weak, weak, weak, weak, weak, weak)
	f.Limit = 2
	report = &annals.SearchReport{}
	hits, total, err = db.SearchChats(annals.NewContextWithSearchReport(t.Context(), report), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || total != 4 || report.TotalAtLeast() {
		t.Fatalf("hits %v, total %d (lower bound %v); want a full page of 2 of the 4 chats, counted exactly", chatHits(hits), total, report.TotalAtLeast())
	}
	// Filters alone (no words to score, so nothing walked): every chat they keep.
	only := searchFilter(t, "role:user", all)
	only.Roles = []annals.EntryKind{annals.KindUser}
	if hits, total, err := db.SearchChats(t.Context(), only); err != nil || total != 4 || len(hits) != 4 {
		t.Fatalf("role:user alone: %d hits, total %d, err %v; want the 4 chats", len(hits), total, err)
	}
	// Past the end: no chat, and still the exact total.
	f.Offset = 10
	hits, total, err = db.SearchChats(t.Context(), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 || total != 4 {
		t.Fatalf("past the end: hits %v, total %d; want none of 4", chatHits(hits), total)
	}
}

func chatHits(hits []annals.ChatHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Chat.ID+"/"+string(rune('0'+h.Matches)))
	}
	return out
}
