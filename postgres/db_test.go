package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/postgres"
)

// testDSN returns the server the PostgreSQL tests use, or skips the test when none is set.
func testDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv("ANNALS_TEST_POSTGRES_DSN")
	if dsn == "" {
		tb.Skip("ANNALS_TEST_POSTGRES_DSN is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	return dsn
}

// withSearchPath returns dsn with its search_path set to schema.
func withSearchPath(tb testing.TB, dsn, schema string) string {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn + " search_path=" + schema // the key=value form
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// MustCreateSchema makes a fresh schema annals_test_<random> on the test server, drops it when
// the test ends, and returns a DSN whose search_path is that schema: every test gets its own
// tables, so runs (and parallel packages) never collide.
func MustCreateSchema(tb testing.TB) string {
	tb.Helper()
	dsn := testDSN(tb)
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	schema := "annals_test_" + hex.EncodeToString(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("connect to %s: %v", redactDSN(dsn), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		tb.Fatalf("create schema: %v", err)
	}
	tb.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			tb.Errorf("connect to drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return withSearchPath(tb, dsn, schema)
}

func redactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		u.User = url.User(u.User.Username())
		return u.String()
	}
	return "the test server"
}

// MustOpen opens a store on dsn and closes it when the test ends.
func MustOpen(tb testing.TB, dsn string, opts postgres.Options) *postgres.DB {
	tb.Helper()
	db, err := postgres.Open(context.Background(), dsn, opts)
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// MustOpenDB opens a store on a fresh schema.
func MustOpenDB(tb testing.TB) *postgres.DB {
	tb.Helper()
	return MustOpen(tb, MustCreateSchema(tb), postgres.Options{PoolSize: 4})
}

func TestOpenRecordsEveryMigrationOnceAndReopens(t *testing.T) {
	ctx := context.Background()
	dsn := MustCreateSchema(t)
	for i := 0; i < 2; i++ {
		db, err := postgres.Open(ctx, dsn, postgres.Options{})
		if err != nil {
			t.Fatalf("open #%d: %v", i, err)
		}
		v, err := db.SchemaVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v != postgres.LatestVersion() || v < 1 {
			t.Errorf("schema version = %d, want %d", v, postgres.LatestVersion())
		}
		db.Close()
	}
}

// Several servers starting at once against a fresh schema: the advisory lock lets one migrate
// while the others wait, then they find every migration applied. No open fails, and each
// migration is recorded once.
func TestConcurrentOpensMigrateOnce(t *testing.T) {
	ctx := context.Background()
	dsn := MustCreateSchema(t)
	const servers = 6
	var wg sync.WaitGroup
	errs := make([]error, servers)
	dbs := make([]*postgres.DB, servers)
	for i := range servers {
		wg.Go(func() {
			dbs[i], errs[i] = postgres.Open(ctx, dsn, postgres.Options{PoolSize: 2})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open #%d: %v", i, err)
			continue
		}
		defer dbs[i].Close()
	}
	if t.Failed() {
		return
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n, distinct int
	if err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != postgres.LatestVersion() || distinct != n {
		t.Errorf("schema_migrations has %d rows (%d distinct), want %d", n, distinct, postgres.LatestVersion())
	}
	// Every store works.
	for i, db := range dbs {
		id := "c" + string(rune('a'+i))
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "t"}); err != nil {
			t.Errorf("store #%d: create: %v", i, err)
		}
	}
}

func TestOpenUnreachableServerIsUnavailableAndNamesHostWithoutPassword(t *testing.T) {
	testDSN(t) // only meaningful where PostgreSQL tests run at all
	ctx := context.Background()
	_, err := postgres.Open(ctx, "postgres://annals:sekret-password@127.0.0.1:1/test?sslmode=disable&connect_timeout=2", postgres.Options{})
	if got := annals.ErrorCode(err); got != annals.EUNAVAILABLE {
		t.Fatalf("code = %q (%v), want unavailable", got, err)
	}
	msg := annals.ErrorMessage(err)
	if !strings.Contains(msg, "127.0.0.1:1") {
		t.Errorf("message %q does not name the server 127.0.0.1:1", msg)
	}
	if strings.Contains(msg, "sekret") || strings.Contains(err.Error(), "sekret") {
		t.Errorf("message %q reveals the password", msg)
	}
}

func TestOpenMalformedDSNIsInvalid(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://u:sekret@[::1:5432/x", postgres.Options{})
	if got := annals.ErrorCode(err); got != annals.EINVALID {
		t.Fatalf("code = %q (%v), want invalid", got, err)
	}
	if strings.Contains(annals.ErrorMessage(err), "sekret") {
		t.Errorf("message %q reveals the password", annals.ErrorMessage(err))
	}
}

func TestOpenRefusesSchemaNewerThanBinary(t *testing.T) {
	ctx := context.Background()
	dsn := MustCreateSchema(t)
	db := MustOpen(t, dsn, postgres.Options{})
	if err := db.ExecForTest(ctx, `INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_future.sql')`); err != nil {
		t.Fatal(err)
	}
	_, err := postgres.Open(ctx, dsn, postgres.Options{})
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !strings.Contains(annals.ErrorMessage(err), "newer") {
		t.Fatalf("err = %v, want unavailable naming a newer schema", err)
	}
	_, err = postgres.Open(ctx, dsn, postgres.Options{ReadOnly: true})
	if annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Fatalf("read-only open: err = %v, want unavailable", err)
	}
}

func TestOpenMissingSchemaIsUnavailable(t *testing.T) {
	dsn := withSearchPath(t, testDSN(t), "annals_test_no_such_schema")
	_, err := postgres.Open(context.Background(), dsn, postgres.Options{})
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !strings.Contains(annals.ErrorMessage(err), "search_path") {
		t.Fatalf("err = %v, want unavailable naming the search_path", err)
	}
}

func TestReadOnlyOpenRefusesEveryWrite(t *testing.T) {
	ctx := context.Background()
	dsn := MustCreateSchema(t)
	rw := MustOpen(t, dsn, postgres.Options{})
	if _, err := annals.CreateChat(ctx, rw, &annals.Chat{ID: "c1", TenantID: "t", Title: "kept"}); err != nil {
		t.Fatal(err)
	}
	ro := MustOpen(t, dsn, postgres.Options{ReadOnly: true})
	title := "changed"
	writes := map[string]error{}
	_, writes["create"] = annals.CreateChat(ctx, ro, &annals.Chat{ID: "c2", TenantID: "t"})
	_, writes["append"] = annals.AppendEntries(ctx, ro, "c1", []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "x"}})
	_, writes["truncate"] = annals.TruncateChat(ctx, ro, "c1", annals.TruncatePoint{Seq: 1})
	_, writes["run"] = annals.RecordRun(ctx, ro, &annals.Run{ID: "r", ChatID: "c1", Status: annals.StatusRunning})
	_, writes["update"] = ro.UpdateChat(ctx, annals.ChatRef{ID: "c1"}, annals.ChatUpdate{Title: &title})
	writes["delete"] = ro.DeleteChat(ctx, annals.ChatRef{ID: "c1"})
	writes["embedding"] = ro.UpsertEmbedding(ctx, annals.ChatRef{ID: "c1"}, "m", []float32{1}, 0)
	_, writes["restore"] = ro.RestoreChat(ctx, &annals.Chat{ID: "c1", Title: "changed"})
	for name, err := range writes {
		if got := annals.ErrorCode(err); got != annals.EFORBIDDEN {
			t.Errorf("%s on read-only store: code = %q (%v), want %q", name, got, err, annals.EFORBIDDEN)
		}
	}
	c, err := ro.FindChatByID(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "kept" {
		t.Errorf("title = %q, want %q", c.Title, "kept")
	}
}

// PostgreSQL's text type cannot hold U+0000; the store keeps such values in bytea, so they read
// back exactly and are still searchable and filterable.
func TestTextWithNULRoundTripsAndIsSearchable(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	c := &annals.Chat{ID: "c1", TenantID: "t", Title: "nul\x00title kestrel", Description: "d\x00", Attributes: annals.Attributes{"k": "v\x00w"}}
	if _, err := annals.CreateChat(ctx, db, c); err != nil {
		t.Fatal(err)
	}
	e := &annals.Entry{ID: "e1", Kind: annals.KindTool, Time: time.Unix(0, 1).UTC(), Text: "a\x00b osprey",
		Reasoning: "r\x00", Tool: &annals.ToolCall{Name: "t", Result: "res\x00ult"}}
	if _, err := annals.AppendEntries(ctx, db, "c1", []*annals.Entry{e}); err != nil {
		t.Fatal(err)
	}
	got, err := db.FindChatByID(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != c.Title || got.Description != c.Description || got.Attributes["k"] != "v\x00w" {
		t.Errorf("chat = %q %q %q", got.Title, got.Description, got.Attributes)
	}
	es, err := db.FindEntries(ctx, annals.EntryFilter{ChatID: "c1"})
	if err != nil || len(es) != 1 {
		t.Fatalf("entries %v, %v", es, err)
	}
	if es[0].Text != e.Text || es[0].Reasoning != e.Reasoning || es[0].Tool.Result != e.Tool.Result {
		t.Errorf("entry = %q %q %q", es[0].Text, es[0].Reasoning, es[0].Tool.Result)
	}
	refs, err := db.MatchEntries(ctx, annals.TextMatch{Owner: annals.Owner{TenantID: "t"}, Terms: []string{"osprey"}})
	if err != nil || len(refs) != 1 {
		t.Errorf("MatchEntries(osprey) = %v, %v", refs, err)
	}
	chats, _, err := db.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{TenantID: "t"}, TitleContains: ptr("L\x00TITLE"),
		Attributes: map[string]annals.AttrMatch{"k": {Value: "v\x00w"}}})
	if err != nil || len(chats) != 1 {
		t.Errorf("FindChats(title contains, attribute with NUL) = %d chats, %v", len(chats), err)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Errorf("CheckIndex: %v", err)
	}
}

// The store's connection settings, each kept when the DSN sets it: statements are planned with
// their values (a cached statement's generic plan cannot know how common a search's terms are),
// and not compiled by JIT (a search's few milliseconds would pay 20-30 ms of LLVM whenever an
// estimate is high).
func TestConnectionSettingsUnlessTheDSNSetsThem(t *testing.T) {
	dsn := MustCreateSchema(t)
	ctx := context.Background()
	for _, tc := range []struct{ setting, dflt, other string }{
		{"plan_cache_mode", "force_custom_plan", "auto"},
		{"jit", "off", "on"},
	} {
		for conn, want := range map[string]string{dsn: tc.dflt, withParam(dsn, tc.setting, tc.other): tc.other} {
			db := MustOpen(t, conn, postgres.Options{})
			got, err := db.SettingForTest(ctx, tc.setting)
			if err != nil || got != want {
				t.Errorf("%s = %q (%v), want %q", tc.setting, got, err, want)
			}
		}
	}
}

// withParam adds a query parameter to a postgres:// URL.
func withParam(dsn, k, v string) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + k + "=" + v
}

// A statement that runs past the configured timeout is cancelled and reported as unavailable.
func TestStatementTimeoutIsUnavailable(t *testing.T) {
	dsn := MustCreateSchema(t)
	db := MustOpen(t, dsn, postgres.Options{StatementTimeout: 50 * time.Millisecond})
	err := db.ExecForTest(context.Background(), `SELECT pg_sleep(1)`)
	if err == nil {
		t.Fatal("pg_sleep(1) under a 50ms statement timeout succeeded")
	}
	// Through the API: the same classification.
	if _, _, err := db.FindChats(context.Background(), annals.ChatFilter{Owner: annals.Owner{TenantID: "t"}}); err != nil {
		t.Errorf("a fast query under the timeout: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestAnalyzeVacuumsAndCountsFromTheIndex: Analyze (run after bulk loads) vacuums every table,
// which PostgreSQL allows only outside a transaction, and afterwards the count of live chats, a
// list's total, is answered from chats_live_by_owner without reading the chats heap.
func TestAnalyzeVacuumsAndCountsFromTheIndex(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	for i := range 3 {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: fmt.Sprint("c", i), TenantID: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	// VACUUM marks a page all-visible only when no open snapshot in the database predates the
	// rows; other packages' tests share the database in CI, so a transaction of theirs open at
	// that moment can hold the mark back. Analyze again until no such snapshot remains (bounded).
	var plan string
	for attempt := 0; attempt < 40; attempt++ {
		if err := db.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		var err error
		plan, err = db.ExplainForTest(ctx, `SELECT count(*) FROM chats c WHERE c.tenant_id = 't' AND c.archived_at IS NULL`)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plan, "Index Only Scan using chats_live_by_owner") {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if !strings.Contains(plan, "Index Only Scan using chats_live_by_owner") {
		t.Errorf("the count's plan is\n%s\nwant an index-only scan of chats_live_by_owner", plan)
	}
	if _, total, err := db.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{TenantID: "t"}}); err != nil || total != 3 {
		t.Fatalf("total %d, err %v; want 3", total, err)
	}
}
