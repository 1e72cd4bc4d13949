package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/annals-dev/annals"
)

// TestWriteStatementsArePreparedOncePerProcess: a write transaction prepares the statements it
// runs (the capture's, the entry index's, the chat documents') only the first time; the next
// transactions of the same shapes run them prepared, instead of parsing them again per
// transaction (issue 33 item 7: an import writes a file per transaction). What they write is
// unchanged: every chat is found by its words.
func TestWriteStatementsArePreparedOncePerProcess(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	capture := func(i int) {
		t.Helper()
		id := fmt.Sprintf("c%d", i)
		ops := []annals.CaptureOp{{Chat: &annals.Chat{ID: id, TenantID: "local", Title: "session " + id}}, {Append: &annals.AppendOp{ChatID: id, Entries: []*annals.Entry{
			{ID: "e1", Kind: annals.KindUser, Text: fmt.Sprintf("otter%d sleeps", i)},
			{ID: "e2", Kind: annals.KindAssistant, Text: "because otters do"},
		}}}}
		if _, err := db.Capture(ctx, ops); err != nil {
			t.Fatal(err)
		}
	}
	capture(0)
	first := db.WriteStmtMissesForTest()
	if first == 0 {
		t.Fatal("the first write transaction found its statements prepared already")
	}
	for i := 1; i <= 3; i++ {
		capture(i)
	}
	if n := db.WriteStmtMissesForTest(); n != first {
		t.Errorf("%d statements prepared again by three more transactions of the same shape; want 0", n-first)
	}
	for i := 0; i <= 3; i++ {
		hits, _, err := db.SearchChats(ctx, searchFilter(t, fmt.Sprintf("otter%d", i), annals.Owner{AllTenants: true}))
		if err != nil || len(hits) != 1 || hits[0].Chat.ID != fmt.Sprintf("c%d", i) {
			t.Errorf("search otter%d: %v %+v", i, err, hits)
		}
	}
}
