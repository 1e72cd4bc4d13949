package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// A command that only reads (search, list, show) opens the database as a writer would (it may
// have to migrate it) but must not checkpoint the WAL on close: a server writing the same file
// would pay for it. A handle that wrote folds the WAL back, so a closed database is one file.
func TestOnlyAHandleThatWroteCheckpointsOnClose(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	server, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if _, err := annals.CreateChat(ctx, server, storetest.NewChat("c1", "A")); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, server, "c1", storetest.Entries("e", 20)); err != nil {
		t.Fatal(err)
	}
	walSize := func() int64 {
		t.Helper()
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := walSize()
	if before == 0 {
		t.Fatal("the server's writes left no WAL frames to check against")
	}

	reader, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reader.SearchChats(ctx, annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{TenantID: "A"}}, Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if err := reader.Close(); err != nil {
		t.Fatal(err)
	}
	if after := walSize(); after != before {
		t.Errorf("a handle that only read changed the WAL on close: %d bytes, was %d", after, before)
	}

	writer, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, writer, "c1", storetest.Entries("f", 2)); err != nil {
		t.Fatal(err)
	}
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}
	if after := walSize(); after != 0 {
		t.Errorf("a handle that wrote left %d bytes of WAL on close, want it folded back (0)", after)
	}
}
