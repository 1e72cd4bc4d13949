package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
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

// seedHistory writes a history that exercises everything a copy must keep: several tenants,
// attributes, tags, pinned, archived, summary, a rewind (so last activity is later than the last
// entry), every entry field, text holding a NUL, and runs recorded twice.
func seedHistory(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.UTC)
	for i := range 5 {
		id := fmt.Sprintf("chat-%d", i)
		c := &annals.Chat{ID: id, TenantID: []string{"A", "B"}[i%2], UserID: "u", AgentID: "g", CreatedAt: t0.Add(time.Duration(i) * time.Hour),
			Attributes: annals.Attributes{"source": "test", "repository": fmt.Sprintf("github.com/o/r%d", i)},
			Title:      fmt.Sprintf("Chat %d about emag.ro", i), Description: "desc\x00ription", Tags: []string{"z-last", "a-first", "q3-plan"}}
		if _, err := db.CreateChat(ctx, c); err != nil {
			t.Fatal(err)
		}
		var entries []*annals.Entry
		for j := range 12 {
			e := &annals.Entry{ID: fmt.Sprintf("%s-e%d", id, j), Kind: annals.KindUser, Time: c.CreatedAt.Add(time.Duration(j) * time.Second),
				Text: fmt.Sprintf("message %d of %s with café", j, id), SourceIDs: []string{fmt.Sprintf("src-%d", j)},
				Channel: "in/agent/g", CorrelationID: "corr", InputTokens: int64(j), Metadata: json.RawMessage(`{"k": [1, 2]}`)}
			if j%3 == 1 {
				e.Kind, e.Text, e.Reasoning = annals.KindAssistant, "answer\x00with nul", "because"
			}
			if j%3 == 2 {
				e.Kind, e.Text = annals.KindTool, ""
				e.Tool = &annals.ToolCall{Name: "Bash", CallID: "call", Arguments: json.RawMessage(`{"cmd":"ls -l"}`), Result: "ok", Outcome: annals.OutcomeFailed}
			}
			entries = append(entries, e)
		}
		if _, err := db.AppendEntries(ctx, id, entries); err != nil {
			t.Fatal(err)
		}
		if _, err := db.TruncateChat(ctx, id, annals.TruncatePoint{Seq: 10}); err != nil {
			t.Fatal(err)
		}
		run := &annals.Run{ID: id + "-r1", ChatID: id, Status: annals.StatusRunning, Model: "m", StartedAt: c.CreatedAt}
		if _, err := db.RecordRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		end := c.CreatedAt.Add(time.Minute)
		run.Status, run.EndedAt, run.OutputTokens, run.CostUSD = annals.StatusCompleted, &end, 42, 0.125
		if _, err := db.RecordRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		if _, err := db.RecordRun(ctx, &annals.Run{ID: id + "-r2", ChatID: id, Status: annals.StatusFailed, StartedAt: c.CreatedAt.Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
		upd := annals.ChatUpdate{Summary: ptrTo("a summary"), Pinned: ptrTo(i%2 == 0)}
		if i == 3 {
			upd.Archived = ptrTo(true)
		}
		stored, err := db.FindChatByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateChat(ctx, stored.Ref(), upd); err != nil {
			t.Fatal(err)
		}
	}
	// A chat with nothing but its creation.
	if _, err := db.CreateChat(ctx, &annals.Chat{ID: "bare", TenantID: "C", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// snapshot reads everything a copy must keep from a store, keyed by chat id.
type chatSnapshot struct {
	Chat    *annals.Chat
	Entries []*annals.Entry
	Runs    []*annals.Run
}

func snapshot(t *testing.T, location string) map[string]chatSnapshot {
	t.Helper()
	ctx := context.Background()
	s, err := openStore(ctx, location, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := map[string]chatSnapshot{}
	ids, err := s.(annals.ChatCopier).ChatIDsAfter(ctx, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		c, err := s.FindChatByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		es, err := s.FindEntries(ctx, annals.EntryFilter{ChatID: id})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := s.FindRuns(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		out[id] = chatSnapshot{c, es, rs}
	}
	return out
}

func wantSameHistory(t *testing.T, what string, got, want map[string]chatSnapshot) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d chats, want %d", what, len(got), len(want))
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			t.Errorf("%s: chat %s missing", what, id)
			continue
		}
		// An incarnation is the store's own identity of a row: a copy is a new row.
		gc, wc := *g.Chat, *w.Chat
		gc.Incarnation, wc.Incarnation = 0, 0
		if !reflect.DeepEqual(gc, wc) {
			gj, _ := json.Marshal(g.Chat)
			wj, _ := json.Marshal(w.Chat)
			t.Errorf("%s: chat %s differs:\n got  %s\n want %s", what, id, gj, wj)
		}
		if !reflect.DeepEqual(g.Entries, w.Entries) {
			gj, _ := json.Marshal(g.Entries)
			wj, _ := json.Marshal(w.Entries)
			t.Errorf("%s: chat %s entries differ:\n got  %.600s\n want %.600s", what, id, gj, wj)
		}
		if !reflect.DeepEqual(g.Runs, w.Runs) {
			gj, _ := json.Marshal(g.Runs)
			wj, _ := json.Marshal(w.Runs)
			t.Errorf("%s: chat %s runs differ:\n got  %s\n want %s", what, id, gj, wj)
		}
	}
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
	if _, err := src.AppendEntries(ctx, "chat-1", []*annals.Entry{{ID: "late", Kind: annals.KindUser, Text: "late", Time: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}}); err != nil {
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

func TestMigratePrintsTheSchemaVersion(t *testing.T) {
	tm := newTestMain(t)
	out := tm.mustRun("", "migrate", "--json")
	var rep migrateReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Version < 1 || rep.Backend != "sqlite" {
		t.Errorf("migrate --json = %q (%v)", out, err)
	}
	pg := mustPostgresSchema(t)
	out = tm.mustRun("", "migrate", "--db", pg)
	if !strings.Contains(out, "postgres database") || !strings.Contains(out, "schema version") {
		t.Errorf("migrate on PostgreSQL printed %q", out)
	}
	// Every command takes a postgres:// database.
	tm.mustRun(twoChats, "ingest", "--db", pg, "-")
	if out := tm.mustRun("", "list", "--db", pg); !strings.Contains(out, "Deploy the emag.ro shop") {
		t.Errorf("list on PostgreSQL = %q", out)
	}
	if out := tm.mustRun("", "search", "--db", pg, "emag.ro"); !strings.Contains(out, "c1") {
		t.Errorf("search on PostgreSQL = %q", out)
	}
}

func TestDisplayLocationHidesThePassword(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:sekret@h:5432/db?sslmode=disable":    "postgres://u:xxxxx@h:5432/db?sslmode=disable",
		"postgresql://h/db?password=sekret":                "postgresql://h/db?password=xxxxx",
		"sqlite:/tmp/a.db":                                 "/tmp/a.db",
		"/tmp/b.db":                                        "/tmp/b.db",
		"postgres://u@h/db?search_path=s&pool_max_conns=8": "postgres://u@h/db?search_path=s&pool_max_conns=8",
	} {
		if got := displayLocation(in); got != want {
			t.Errorf("displayLocation(%q) = %q, want %q", in, got, want)
		}
	}
}
