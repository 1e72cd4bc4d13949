package sqlite_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// sixChatsSaying writes six chats of tenant t, a minute apart, each with one user entry text.
func sixChatsSaying(t *testing.T, db *sqlite.DB, text string) {
	t.Helper()
	ctx := t.Context()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
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
}

// countedSearch is a chat search over every tenant, two hits a page, in sort order: what it
// found, its total, whether the total is a lower bound, whether it ran the exact count of the
// chat index's matches, and its search report.
type countedSearch struct {
	hits, total      int
	atLeast, counted bool
	report           *annals.SearchReport
}

func searchCounted(t *testing.T, db *sqlite.DB, q, sort string) countedSearch {
	t.Helper()
	var r countedSearch
	tctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
		r.counted = r.counted || strings.Contains(s.SQL, "SELECT count(*) FROM chat_fts")
	})
	r.report = &annals.SearchReport{}
	f := searchFilter(t, q, annals.Owner{AllTenants: true})
	f.Limit, f.Sort = 2, sort
	hits, total, err := db.SearchChats(annals.NewContextWithSearchReport(tctx, r.report), f)
	if err != nil {
		t.Fatal(err)
	}
	r.hits, r.total, r.atLeast = len(hits), total, r.report.TotalAtLeast()
	return r
}
