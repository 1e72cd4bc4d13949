package history_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// TestCopyIDsNameEveryEntryOfALongChat: the ids a remote's heads name of a chat (verify's
// comparison by identity) are every entry's, read a page at a time, in order, with the runs;
// and a chat deleted and created again by another tenant after its check lends none of its ids.
func TestCopyIDsNameEveryEntryOfALongChat(t *testing.T) {
	ctx := context.Background()
	store := openSQLite(t)
	svc := history.New(history.Config{Store: store})
	chat, err := annals.CreateChat(ctx, store, &annals.Chat{ID: "long", TenantID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	var es []*annals.Entry
	for i := range 2345 {
		es = append(es, &annals.Entry{ID: fmt.Sprintf("e%04d", i), Kind: annals.KindUser, Text: "x"})
	}
	if _, err := annals.AppendEntries(ctx, store, "long", es); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.RecordRun(ctx, store, &annals.Run{ID: "r1", ChatID: "long", Status: annals.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	ids, err := history.CopyIDs(svc, ctx, chat)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids.Entries) != len(es) || ids.Entries[0] != "e0000" || ids.Entries[len(es)-1] != "e2344" || len(ids.Runs) != 1 {
		t.Fatalf("%d entry ids (%v … %v), runs %v; want all %d in order and r1", len(ids.Entries), ids.Entries[:1], ids.Entries[len(ids.Entries)-1:], ids.Runs, len(es))
	}
	// Deleted and created again by another tenant: the checked chat is gone.
	if err := store.DeleteChat(ctx, chat.Ref()); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.CreateChat(ctx, store, &annals.Chat{ID: "long", TenantID: "t2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, store, "long", []*annals.Entry{{ID: "theirs", Kind: annals.KindUser, Text: "y"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.RecordRun(ctx, store, &annals.Run{ID: "their-run", ChatID: "long", Status: annals.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	if ids, err = history.CopyIDs(svc, ctx, chat); err != nil || len(ids.Entries) != 0 || len(ids.Runs) != 0 {
		t.Fatalf("ids of the chat as checked, after another tenant took its id: %+v, %v; want none", ids, err)
	}
}
