package loomcycle_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/importer/loomcycletest"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver the PostgreSQL fixture is written with
)

// lcPostgres writes a generated loomcycle database into a schema of its own on the test server
// and returns a connection URL whose search_path is that schema, carrying a password the
// server does not ask for (so that the tests can check it is never written down).
func lcPostgres(t testing.TB, o loomcycletest.Options) (string, *loomcycletest.Stats) {
	t.Helper()
	base := os.Getenv("ANNALS_TEST_POSTGRES_DSN")
	if base == "" {
		t.Skip("ANNALS_TEST_POSTGRES_DSN is not set")
	}
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	schema := fmt.Sprintf("lc_import_%d_%d", time.Now().UnixNano(), rand.Int63())
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "hunter2")
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := loomcycletest.Write(ctx, db, loomcycletest.Postgres, o)
	if err != nil {
		t.Fatal(err)
	}
	return u.String(), st
}

// A PostgreSQL deployment imports as its SQLite twin does, entry for entry; only the times
// differ, by what TIMESTAMPTZ keeps (microseconds).
func TestLoomcyclePostgresReadsAsSQLiteDoes(t *testing.T) {
	dsn, _ := lcPostgres(t, lcSmall)
	pg, err := importer.ParseServer(context.Background(), importertest.SrcFormat(t, "loomcycle"), dsn)
	if err != nil {
		t.Fatal(err)
	}
	_, _, lite := lcReal(t, lcSmall)
	if len(pg.Chats) != len(lite.Chats) || len(pg.Entries) != len(lite.Entries) || len(importertest.SrcRuns(pg)) != len(importertest.SrcRuns(lite)) {
		t.Fatalf("postgres: %d chats, %d transcripts, %d runs; sqlite: %d, %d, %d",
			len(pg.Chats), len(pg.Entries), len(importertest.SrcRuns(pg)), len(lite.Chats), len(lite.Entries), len(importertest.SrcRuns(lite)))
	}
	for id, want := range lite.Entries {
		got := pg.Entries[id]
		if len(got) != len(want) {
			t.Fatalf("%s: %d entries from postgres, %d from sqlite", id, len(got), len(want))
		}
		for i := range want {
			w, g := *want[i], *got[i]
			w.Time = w.Time.Truncate(time.Microsecond)
			w.Metadata, g.Metadata = lcMicroMeta(t, w.Metadata), lcMicroMeta(t, g.Metadata)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%s entry %d:\npostgres %+v %s\n  sqlite %+v %s", id, i, g, g.Metadata, w, w.Metadata)
			}
		}
	}
	c := importertest.SrcChat(t, pg, "loomcycle:"+loomcycletest.SessionID(5))
	w := importertest.SrcChat(t, lite, "loomcycle:"+loomcycletest.SessionID(5))
	if c.Title != w.Title || c.ArchivedAt == nil || !c.ArchivedAt.Equal(*w.ArchivedAt) || !c.CreatedAt.Equal(w.CreatedAt.Truncate(time.Microsecond)) {
		t.Errorf("chat: postgres %+v, sqlite %+v", c, w)
	}
}

// annals import loomcycle postgres://...: the server is imported, known by its URL without the
// password, read again (idempotently) on the next import, and never marked gone.
func TestLoomcyclePostgresImportsIntoAStore(t *testing.T) {
	dsn, st := lcPostgres(t, loomcycletest.Options{Sessions: 4, Turns: 2})
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: []importer.Format{importertest.SrcFormat(t, "loomcycle")}})
	ctx := context.Background()
	rep, unknown, err := im.ImportLocations(ctx, "", []string{dsn}, importertest.SrcFormat(t, "loomcycle"))
	if err != nil || len(unknown) > 0 || len(rep.Errors) > 0 {
		t.Fatalf("import: %v, unknown %v, errors %+v", err, unknown, rep.Errors)
	}
	if rep.Chats != st.Sessions || rep.Entries == 0 {
		t.Fatalf("imported %d chats and %d entries, want %d chats", rep.Chats, rep.Entries, st.Sessions)
	}
	again, _, err := im.ImportLocations(ctx, "", []string{dsn}, nil)
	if err != nil || len(again.Errors) > 0 || again.Chats != 0 || again.Entries != 0 {
		t.Fatalf("second import: %v %+v, want nothing new", err, again)
	}
	srcs, err := im.Status(ctx)
	if err != nil || len(srcs) != 1 {
		t.Fatalf("import state: %v %+v", err, srcs)
	}
	if s := srcs[0]; strings.Contains(s.Path, "hunter2") || !strings.HasPrefix(s.Path, "postgres://") || s.GoneAt != nil || s.LastError != "" {
		t.Errorf("import state of the server: %+v", s)
	}
	es, err := db.FindEntries(ctx, annals.EntryFilter{ChatID: "loomcycle:" + loomcycletest.SessionID(0)})
	if err != nil || len(es) < 2 || es[0].Kind != annals.KindSystem || es[1].Kind != annals.KindUser {
		t.Fatalf("stored transcript: %v %d entries", err, len(es))
	}
}

// A connection URL is a source of the formats that read servers, named without its secrets.
func TestServerURLsResolveWithoutTheirPassword(t *testing.T) {
	im := importer.New(nil, importer.Options{})
	cands, _, err := im.Resolve([]string{"postgres://me:s3cret@db.example:5432/lc?sslmode=disable&password=x"}, nil)
	if err != nil || len(cands) != 1 {
		t.Fatalf("resolve: %v %+v", err, cands)
	}
	if c := cands[0]; c.Format.Name() != "loomcycle" || c.Path != "postgres://me@db.example:5432/lc?sslmode=disable" {
		t.Errorf("got %s %q", c.Format.Name(), c.Path)
	}
	_, _, err = im.Resolve([]string{"mysql://me:s3cret@db.example/lc"}, nil)
	if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(err.Error(), "loomcycle") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("an unreadable server: got %v", err)
	}
	_, _, err = im.Resolve([]string{"postgres://me:s3cret@db.example/lc"}, importertest.SrcFormat(t, "claude-code"))
	if annals.ErrorCode(err) != annals.EINVALID || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a server for a file format: got %v", err)
	}
}

// Through a store, too, an entry keeps its nanoseconds.
func TestLoomcycleStoredTimesKeepTheirNanoseconds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loomcycle.db")
	src, _, p := lcRealAt(t, path, loomcycletest.Options{Sessions: 2, Turns: 2})
	db := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(db, importer.Options{Formats: []importer.Format{importertest.SrcFormat(t, "loomcycle")}}), path)
	chatID := "loomcycle:" + loomcycletest.SessionID(1)
	stored, err := db.FindEntries(context.Background(), annals.EntryFilter{ChatID: chatID})
	if err != nil || len(stored) != len(p.Entries[chatID]) {
		t.Fatalf("stored %d entries (%v), parsed %d", len(stored), err, len(p.Entries[chatID]))
	}
	for _, e := range stored {
		var ts int64
		seq := strings.TrimPrefix(strings.SplitN(e.ID, "#", 2)[0], "ev")
		if err := src.QueryRow(`SELECT ts FROM events WHERE seq = ?`, seq).Scan(&ts); err != nil {
			t.Fatal(err)
		}
		if e.Time.UnixNano() != ts {
			t.Fatalf("%s: stored time %d, source %d", e.ID, e.Time.UnixNano(), ts)
		}
	}
}

// lcMicroMeta is an entry's metadata with the time of its tool result cut to the microsecond,
// what TIMESTAMPTZ keeps.
func lcMicroMeta(t *testing.T, meta json.RawMessage) json.RawMessage {
	t.Helper()
	if len(meta) == 0 {
		return meta
	}
	var m map[string]any
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	if s, ok := m["result_time"].(string); ok {
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		m["result_time"] = at.Truncate(time.Microsecond).Format(time.RFC3339Nano)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
