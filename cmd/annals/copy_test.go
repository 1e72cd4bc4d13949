package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storecopy"
)

// mustPostgresSchema returns a DSN on a fresh schema of the test server (dropped at the end), or
// skips the test when ANNALS_TEST_POSTGRES_DSN is not set.
func mustPostgresSchema(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv("ANNALS_TEST_POSTGRES_DSN")
	if dsn == "" {
		tb.Skip("ANNALS_TEST_POSTGRES_DSN is not set")
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "annals_test_" + hex.EncodeToString(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			tb.Errorf("drop schema: %v", err)
			return
		}
		defer conn.Close(context.Background())
		conn.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
	})
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestCopyRoundTripSQLiteToPostgresToSQLiteIsIdentical(t *testing.T) {
	pg := mustPostgresSchema(t)
	tm := newTestMain(t)
	first := filepath.Join(t.TempDir(), "first.db")
	second := filepath.Join(t.TempDir(), "second.db")
	seedHistory(t, first)
	want := snapshot(t, "sqlite:"+first)

	var rep storecopy.Report
	out := tm.mustRun("", "copy", "--from", "sqlite:"+first, "--to", pg, "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("copy --json printed %q: %v", out, err)
	}
	if !rep.Verified || rep.Chats != 6 || rep.ChatsCreated != 6 || rep.EntriesCopied != 5*9 || rep.RunsCopied != 10 {
		t.Errorf("first copy report = %+v", rep)
	}
	wantSameHistory(t, "PostgreSQL copy", snapshot(t, pg), want)

	tm.mustRun("", "copy", "--from", pg, "--to", second, "--json")
	wantSameHistory(t, "SQLite copy of the PostgreSQL copy", snapshot(t, "sqlite:"+second), want)

	// Again: nothing new to copy, in either direction.
	for _, dir := range [][2]string{{"sqlite:" + first, pg}, {pg, "sqlite:" + second}} {
		out := tm.mustRun("", "copy", "--from", dir[0], "--to", dir[1], "--json")
		rep = storecopy.Report{}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.ChatsCreated != 0 || rep.EntriesCopied != 0 || rep.RunsCopied != 0 || rep.ChatsRestored != 0 || !rep.Verified {
			t.Errorf("second copy %s -> %s = %+v, want nothing copied", displayLocation(dir[0]), displayLocation(dir[1]), rep)
		}
		if rep.EntriesPresent != 5*9 || rep.RunsPresent != 10 {
			t.Errorf("second copy present counts = %d entries, %d runs; want 45 and 10", rep.EntriesPresent, rep.RunsPresent)
		}
	}
	wantSameHistory(t, "PostgreSQL copy after a second copy", snapshot(t, pg), want)

	// New data in the source: only that is copied.
	ctx := context.Background()
	src, err := sqlite.Open(ctx, first, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, src, "chat-1", []*annals.Entry{{ID: "late", Kind: annals.KindUser, Text: "late", Time: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}}); err != nil {
		t.Fatal(err)
	}
	chat2, err := src.FindChatByID(ctx, "chat-2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.UpdateChat(ctx, chat2.Ref(), annals.ChatUpdate{Title: ptrTo("renamed")}); err != nil {
		t.Fatal(err)
	}
	src.Close()
	out = tm.mustRun("", "copy", "--from", "sqlite:"+first, "--to", pg, "--json")
	rep = storecopy.Report{}
	json.Unmarshal([]byte(out), &rep)
	// The late entry moves chat-1's activity the same way in both stores; only chat-2's title
	// needs setting.
	if rep.EntriesCopied != 1 || rep.ChatsRestored != 1 {
		t.Errorf("incremental copy = %+v, want 1 entry copied and 1 chat's metadata set", rep)
	}
	wantSameHistory(t, "PostgreSQL copy after an incremental copy", snapshot(t, pg), snapshot(t, "sqlite:"+first))
}

func TestCopyRefusesMissingFlagsAndSameDatabase(t *testing.T) {
	tm := newTestMain(t)
	for _, args := range [][]string{{"copy"}, {"copy", "--from", "a.db"}, {"copy", "--from", "a.db", "--to", "a.db"}} {
		if _, _, err := tm.run("", args...); exitCode(err) != 2 {
			t.Errorf("annals %s: err %v, want a usage error", strings.Join(args, " "), err)
		}
	}
}
