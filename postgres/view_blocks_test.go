package postgres_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/historytest"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/view"
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

// TestViewBlocksRebuildsOfOneChatSerialize: two transactions rewriting two entries of one bucket
// at once both rebuild the bucket's blocks (migration 0030 takes a lock per chat first). The
// second waits for the first and then sees its block and its entry, so the chat ends with one
// block over the bucket holding both rewrites; without the lock the second one's statement
// kept the entries and blocks of before the first committed, and wrote a second block over the
// same entries with the first rewrite missing. The rewrites add a comma, which changes a
// block's body but not the entry's tsvector, so CheckIndex judges the blocks alone.
func TestViewBlocksRebuildsOfOneChatSerialize(t *testing.T) {
	ctx := t.Context()
	dsn := MustCreateSchema(t)
	db := MustOpen(t, dsn, postgres.Options{PoolSize: 4})
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, db, "c1", "alpha beta one", "gamma delta two", "epsilon zeta three")
	rewrite := `UPDATE entries SET text = convert_to($1, 'UTF8') WHERE chat_pk = (SELECT pk FROM chats WHERE id = 'c1') AND seq = $2`
	first, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close(ctx)
	second, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close(ctx)
	tx1, err := first.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx1.Exec(ctx, rewrite, "alpha, beta one", 1); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		tx2, err := second.Begin(ctx)
		if err == nil {
			_, err = tx2.Exec(ctx, rewrite, "gamma, delta two", 2)
			if err == nil {
				err = tx2.Commit(ctx)
			}
		}
		done <- err
	}()
	// The second rewrite is under way once its backend waits for a lock the first one holds.
	pid := second.PgConn().PID()
	for {
		var waiting bool
		if err := db.QueryRowForTest(ctx, fmt.Sprintf(`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = %d AND NOT granted)`, pid), &waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the second rewrite ended before the first committed: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := tx1.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var blocks int
	if err := db.QueryRowForTest(ctx, `SELECT count(*) FROM entry_view_blocks`, &blocks); err != nil {
		t.Fatal(err)
	}
	if blocks != 1 {
		t.Errorf("%d blocks over one bucket, want 1", blocks)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatal(errors.Unwrap(err))
	}
}

// TestViewBlocksSplitPastTheirBound: a block ends where its body passes annals_view_block_bytes()
// (migration 0030; 64 MiB, here 126 bytes), so no body nears PostgreSQL's 1 GiB limit on a field
// however large a bucket's entries are, and no entry is cut: each lies whole in one block, and
// the view's substring search finds a needle in each. Both the insert's blocks and a truncate's
// rebuild are split.
func TestViewBlocksSplitPastTheirBound(t *testing.T) {
	ctx := t.Context()
	db := MustOpenDB(t)
	if err := db.ExecForTest(ctx, `CREATE OR REPLACE FUNCTION annals_view_block_bytes() RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT 126::bigint'`); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 12)
	for i := range texts {
		texts[i] = fmt.Sprintf("entry %02d needle%02d %s", i, i, strings.Repeat("x", 40))
	}
	bounded := func(what string, wantBlocks int) {
		t.Helper()
		var blocks, longest, entry int
		if err := db.QueryRowForTest(ctx, `SELECT count(*), max(octet_length(body)) FROM entry_view_blocks`, &blocks, &longest); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowForTest(ctx, `SELECT max(octet_length(annals_view_block_text(text, reasoning, tool_name, tool_args, tool_result))) FROM entries`, &entry); err != nil {
			t.Fatal(err)
		}
		if blocks != wantBlocks || longest > 126+1+entry {
			t.Errorf("%s: %d blocks, the longest body %d bytes; want %d blocks of at most 126 bytes and one entry (%d)", what, blocks, longest, wantBlocks, entry)
		}
		if err := db.CheckIndex(ctx); err != nil {
			t.Fatalf("%s: %v", what, errors.Unwrap(err))
		}
	}
	mustAppend(t, db, "c1", texts...)
	// Each text is 58 bytes, 62 in the block text (four field separators) and 63 with the
	// separator between entries: a block ends after its second entry.
	bounded("an append of 12", 6)
	if _, err := annals.TruncateChat(ctx, db, "c1", annals.TruncatePoint{Seq: 10}); err != nil {
		t.Fatal(err)
	}
	bounded("a truncate to 9 entries", 5)
	for i := range 9 {
		page, err := db.ViewSearch(ctx, view.Filter{Owner: annals.Owner{TenantID: "t"}, Substring: fmt.Sprintf("NEEDLE%02d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Messages) != 1 {
			t.Errorf("needle%02d: %d messages, want 1", i, len(page.Messages))
		}
	}
}
