package postgres_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/historytest"
)

// TestViewBlocksFollowAppendsTruncatesAndDeletes: the query view's trigram index covers blocks of
// a chat's entries (migration 0028), one row per statement and 64-aligned bucket of seqs, not one
// per entry; a truncate rebuilds the bucket it cuts and a delete takes the chat's blocks with it.
// CheckIndex proves every block against the entries it covers after each step.
func TestViewBlocksFollowAppendsTruncatesAndDeletes(t *testing.T) {
	ctx := t.Context()
	db := MustOpenDB(t)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	entries := func(from, n int) []*annals.Entry {
		es := make([]*annals.Entry, n)
		for i := range es {
			es[i] = &annals.Entry{ID: fmt.Sprint("e", from+i), Kind: annals.KindUser, Time: time.Unix(int64(1000+from+i), 0), Text: fmt.Sprintf("line %d of the log", from+i)}
		}
		return es
	}
	step := func(what string, blocks int) {
		t.Helper()
		var got int
		if err := db.QueryRowForTest(ctx, `SELECT count(*) FROM entry_view_blocks`, &got); err != nil {
			t.Fatal(err)
		}
		if got != blocks {
			t.Errorf("%s: %d blocks, want %d", what, got, blocks)
		}
		if err := db.CheckIndex(ctx); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	// seqs 1..100 in one append: the buckets 0..63 and 64..127.
	if _, err := annals.AppendEntries(ctx, db, "c1", entries(1, 100)); err != nil {
		t.Fatal(err)
	}
	step("one append of 100", 2)
	if _, err := annals.AppendEntries(ctx, db, "c1", entries(101, 3)); err != nil {
		t.Fatal(err)
	}
	step("a second append in the same bucket", 3)
	if _, err := annals.TruncateChat(ctx, db, "c1", annals.TruncatePoint{Seq: 70}); err != nil {
		t.Fatal(err)
	}
	step("a truncate inside the second bucket", 2)
	if _, err := annals.AppendEntries(ctx, db, "c1", entries(200, 5)); err != nil {
		t.Fatal(err)
	}
	step("an append after the truncate", 3)
	c, err := db.FindChatByID(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteChat(ctx, c.Ref()); err != nil {
		t.Fatal(err)
	}
	step("a delete", 0)
}

// TestViewSubstringWalksByTimeWhenBlocksAreDense runs the query view's substring cases with every
// needle held by a block taken as dense, so the search walks the entries by time and proves
// each, as it does at scale for a needle in a thousand blocks or more: the same answers as the
// block lookup TestHistory runs.
func TestViewSubstringWalksByTimeWhenBlocksAreDense(t *testing.T) {
	testDSN(t)
	historytest.ViewSubstring(t, func(tb testing.TB) annals.Store {
		db := MustOpenDB(tb)
		db.SetDenseBlocksForTest(1)
		return db
	})
}
