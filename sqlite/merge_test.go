package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/annals-dev/annals"
)

// An append in many small transactions leaves every full-text index in one segment per
// transaction, folded four at a time by FTS5's automerge: about seven after a few dozen, each
// sought by every search cursor. Once the increments hold a sixteenth of the largest segment,
// the writer merges the index into one segment in the background (issue 33 item 5), so what is
// left unmerged stays under that share, and the searches find the same entries.
func TestSmallAppendsAreMergedInTheBackground(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.SetMergeMinPagesForTest(4)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	entry := func(i int) *annals.Entry {
		return &annals.Entry{ID: fmt.Sprintf("e%d", i), Kind: annals.KindUser,
			Text: fmt.Sprintf("message %d about the deploy of w%d and w%d to stage%d", i, i, i*7, i%13)}
	}
	// One large transaction: the index's largest segment.
	var bulk []*annals.Entry
	for i := range 3000 {
		bulk = append(bulk, entry(i))
	}
	if _, err := annals.AppendEntries(ctx, db, "c", bulk); err != nil {
		t.Fatal(err)
	}
	if err := db.WaitMergesForTest(); err != nil {
		t.Fatal(err)
	}
	// Then 30 small ones, 20 entries each.
	n := len(bulk)
	for range 30 {
		var batch []*annals.Entry
		for range 20 {
			batch = append(batch, entry(n))
			n++
		}
		if _, err := annals.AppendEntries(ctx, db, "c", batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.WaitMergesForTest(); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"entries_fts", "chat_fts", "entries_tri"} {
		segs, err := db.SegmentsForTest(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		// Merged once the increments reached a sixteenth of the largest segment: what was
		// appended after the last merge is less than that (the merges run beside the appends).
		largest, rest := 0, 0
		for _, p := range segs {
			largest = max(largest, p)
			rest += p
		}
		if rest -= largest; rest*16 >= largest {
			t.Errorf("%s: segments of %v leaf pages after the appends, want the increments merged into the largest", table, segs)
		}
	}
	got, err := db.MatchEntries(ctx, annals.TextMatch{Terms: []string{"deploy"}, Owner: annals.Owner{AllTenants: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Errorf("the merged index finds %d of the %d entries", len(got), n)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatal(err)
	}
}
