package sqlite_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/annals-dev/annals"
)

// FTS5 writes what is pending at every statement savepoint, so indexing from a per-entry
// trigger wrote a segment (at least one leaf) per entry; queued and indexed before the commit,
// a transaction's entries share their leaves (migration 0012).
func TestAppendWritesTheEntryIndexesOnceATransaction(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	const n = 300
	entries := make([]*annals.Entry, n)
	for i := range entries {
		entries[i] = &annals.Entry{ID: fmt.Sprintf("e%d", i), Kind: annals.KindUser, Text: fmt.Sprintf("message %d about the deploy", i)}
	}
	if _, err := annals.AppendEntries(ctx, db, "c", entries); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"entries_fts", "entries_tri"} {
		leaves, err := db.LeavesWrittenForTest(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		// 300 short entries fit in a handful of 4 KB leaves; one segment each would be >= 300.
		if leaves == 0 || leaves > n/10 {
			t.Errorf("%s: %d leaves written for one append of %d entries, want a few (one transaction's segment)", table, leaves, n)
		}
	}
	got, err := db.MatchEntries(ctx, annals.TextMatch{Terms: []string{"deploy"}, Owner: annals.Owner{AllTenants: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Errorf("the full-text index finds %d of the %d appended entries", len(got), n)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatal(err)
	}
}

// An entry inserted, changed and deleted in the same transaction as others are is indexed as
// it stands at the commit; an entry indexed earlier and changed or deleted now leaves no trace
// of its old words.
func TestEntryIndexQueueFollowsEveryChangeInOneTransaction(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	var old []*annals.Entry
	for i, w := range []string{"amber", "basalt", "cobalt"} {
		old = append(old, &annals.Entry{ID: fmt.Sprintf("old%d", i), Kind: annals.KindUser, Text: "indexed " + w})
	}
	if _, err := annals.AppendEntries(ctx, db, "c", old); err != nil {
		t.Fatal(err)
	}
	// One transaction: copy the chat's rows as new entries (queued), change one new and one old
	// entry, delete one new and one old entry, and change a new entry twice.
	err := db.WriteTxForTest(ctx, `
		INSERT INTO entries (chat_pk, seq, id, kind, text, time)
			SELECT chat_pk, seq + 10, 'new' || seq, kind, 'queued ' || text, time FROM entries;
		UPDATE entries SET text = 'renamed dolomite' WHERE id = 'new1';
		UPDATE entries SET text = 'renamed dolomite twice' WHERE id = 'new1';
		UPDATE entries SET text = 'rewritten emerald' WHERE id = 'old0';
		DELETE FROM entries WHERE id IN ('new2', 'old1');`)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("the indexes disagree with the rows: %v", err)
	}
	// Left: old0 (seq 1) "rewritten emerald", old2 (3) "indexed cobalt", new1 (11) "renamed
	// dolomite twice", new3 (13) "queued indexed cobalt".
	for word, want := range map[string][]int64{
		"amber":    {},
		"basalt":   {},
		"cobalt":   {3, 13},
		"indexed":  {3, 13},
		"dolomite": {11},
		"emerald":  {1},
		"queued":   {13},
	} {
		got, err := db.MatchEntries(ctx, annals.TextMatch{Terms: []string{word}, Owner: annals.Owner{AllTenants: true}})
		if err != nil {
			t.Fatal(err)
		}
		seqs := []int64{}
		for _, r := range got {
			seqs = append(seqs, r.Seq)
		}
		if !slices.Equal(seqs, want) {
			t.Errorf("%q matches entries at seq %v, want %v", word, seqs, want)
		}
	}
}
