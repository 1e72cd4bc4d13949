package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// An append in many small transactions leaves every full-text index in one segment per
// transaction, folded four at a time by FTS5's automerge: about seven after a few dozen, each
// sought by every search cursor. Once the writer is quiet and the increments hold a 128th of
// the largest segment, it merges the index into one segment in the background (issue 33 item
// 5), so what is left unmerged stays under that share, and the searches find the same entries.
func TestSmallAppendsAreMergedInTheBackground(t *testing.T) {
	ctx := context.Background()
	db := openMergingDB(t)
	db.SetMergeMinPagesForTest(4)
	db.SetMergeQuietForTest(20 * time.Millisecond)
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
		// Merged once the increments reached a 128th of the largest segment: what was
		// appended after the last merge is less than that.
		largest, rest := 0, 0
		for _, p := range segs {
			largest = max(largest, p)
			rest += p
		}
		if rest -= largest; rest*128 >= largest {
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

// A writer that keeps committing never merges: each commit restarts the wait for a quiet
// writer, so a bulk load (annals import commits once per file) pays nothing for merges while it
// runs, where merging after every commit past the share made an import 4x slower. The merge
// comes once the writer has been quiet.
func TestMergesWaitForAQuietWriter(t *testing.T) {
	ctx := context.Background()
	db := openMergingDB(t)
	db.SetMergeMinPagesForTest(4)
	db.SetMergeQuietForTest(time.Hour)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	n := 0
	appendN := func(count int) {
		t.Helper()
		var batch []*annals.Entry
		for range count {
			batch = append(batch, &annals.Entry{ID: fmt.Sprintf("e%d", n), Kind: annals.KindUser,
				Text: fmt.Sprintf("message %d about the deploy of w%d to stage%d", n, n*7, n%13)})
			n++
		}
		if _, err := annals.AppendEntries(ctx, db, "c", batch); err != nil {
			t.Fatal(err)
		}
	}
	appendN(3000)
	for range 30 {
		appendN(20)
	}
	pending, running := db.MergeStateForTest()
	if !pending || running {
		t.Fatalf("after the appends: check pending %v, merge running %v; want a check waiting for a quiet writer and no merge", pending, running)
	}
	segs, err := db.SegmentsForTest(ctx, "entries_fts")
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 2 {
		t.Fatalf("entries_fts is in %v leaf pages while the writer was busy; want its increments left for later", segs)
	}
	// The writer goes quiet: the next commit's check runs at once and merges.
	db.SetMergeQuietForTest(time.Millisecond)
	appendN(1)
	if err := db.WaitMergesForTest(); err != nil {
		t.Fatal(err)
	}
	if segs, err = db.SegmentsForTest(ctx, "entries_fts"); err != nil {
		t.Fatal(err)
	}
	if len(segs) != 1 {
		t.Errorf("entries_fts in segments of %v leaf pages once quiet, want one", segs)
	}
}

// A one-shot command (a handle without BackgroundMerges) never merges, however long it pauses;
// a handle that stays open (annals serve) merges what it finds once quiet, without waiting for
// a commit of its own.
func TestAnOpenedStoreMergesWhatItFinds(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.SetMergeMinPagesForTest(4)
	db.SetMergeQuietForTest(time.Millisecond)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	for b := range 31 {
		count := 20 // 30 small appends after one large one (the largest segment)
		if b == 0 {
			count = 3000
		}
		var batch []*annals.Entry
		for i := range count {
			n := b*10000 + i
			batch = append(batch, &annals.Entry{ID: fmt.Sprintf("e%d", n), Kind: annals.KindUser,
				Text: fmt.Sprintf("message %d about the deploy of w%d to stage%d", n, n*7, n%13)})
		}
		if _, err := annals.AppendEntries(ctx, db, "c", batch); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // longer than the quiet wait: a pause, as a parse
	}
	if pending, running := db.MergeStateForTest(); pending || running {
		t.Fatalf("a one-shot handle: check pending %v, merge running %v; want neither", pending, running)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = sqlite.Open(ctx, path, sqlite.Options{BackgroundMerges: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMergeMinPagesForTest(4)
	if segs, err := db.SegmentsForTest(ctx, "entries_fts"); err != nil || len(segs) < 2 {
		t.Fatalf("entries_fts after the one-shot appends: %v leaf pages (%v); want increments left unmerged", segs, err)
	}
	if pending, _ := db.MergeStateForTest(); !pending {
		t.Fatal("no merge check pending after an open with BackgroundMerges")
	}
	if err := db.WaitMergesForTest(); err != nil {
		t.Fatal(err)
	}
	segs, err := db.SegmentsForTest(ctx, "entries_fts")
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 1 {
		t.Errorf("entries_fts in segments of %v leaf pages after the open's quiet check, want one", segs)
	}
}

// openMergingDB opens a store as a long-lived process does (annals serve): with background merges.
func openMergingDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{BackgroundMerges: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
