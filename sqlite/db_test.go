package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// MustOpenDB opens a fresh database in a temporary directory and closes it when the test ends.
func MustOpenDB(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return db
}

func TestOpenCreatesPrivateDirectoryAndFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "annals")
	path := filepath.Join(dir, "annals.db")
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s mode = %o, want %o", p, got, want)
		}
	}
}

func TestOpenRecordsEveryMigrationOnceAndReopens(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	for i := 0; i < 2; i++ {
		db, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			t.Fatalf("open #%d: %v", i, err)
		}
		v, err := db.SchemaVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v < 1 {
			t.Errorf("schema version = %d, want >= 1", v)
		}
		db.Close()
	}
}

func TestReadOnlyOpenRefusesEveryWrite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	rw, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := annals.CreateChat(ctx, rw, &annals.Chat{ID: "c1", TenantID: "t", Title: "kept"}); err != nil {
		t.Fatal(err)
	}
	rw.Close()

	ro, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	title := "changed"
	writes := map[string]error{}
	_, writes["create"] = annals.CreateChat(ctx, ro, &annals.Chat{ID: "c2", TenantID: "t"})
	_, writes["append"] = annals.AppendEntries(ctx, ro, "c1", []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "x"}})
	_, writes["truncate"] = annals.TruncateChat(ctx, ro, "c1", annals.TruncatePoint{Seq: 1})
	_, writes["run"] = annals.RecordRun(ctx, ro, &annals.Run{ID: "r", ChatID: "c1", Status: annals.StatusRunning})
	_, writes["update"] = ro.UpdateChat(ctx, annals.ChatRef{ID: "c1"}, annals.ChatUpdate{Title: &title})
	writes["delete"] = ro.DeleteChat(ctx, annals.ChatRef{ID: "c1"})
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

func TestReadOnlyOpenOfMissingFileFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.db")
	_, err := sqlite.Open(context.Background(), path, sqlite.Options{ReadOnly: true})
	if annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("err = %v, want not_found", err)
	}
	if _, statErr := os.Stat(path); !os.IsNotExist(statErr) {
		t.Errorf("read-only open created %s", path)
	}
}

func TestOpenRefusesSchemaNewerThanBinary(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ExecForTest(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = sqlite.Open(ctx, path, sqlite.Options{})
	if annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Fatalf("err = %v, want unavailable", err)
	}
}

func TestCheckIndexDetectsAnIndexOutOfStep(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, db, "c", []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: "hello world"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("fresh index: %v", err)
	}
	// Change a row behind the trigger's back: the index still holds the old words.
	if err := db.ExecForTest(ctx, `DROP TRIGGER entries_index_update; UPDATE entries SET text = 'other words'`); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIndex(ctx); err == nil {
		t.Error("CheckIndex passed on an index that no longer matches its rows")
	}
}

// A list's total of live chats is counted from the small partial index (migration 0011), not
// by reading every chat row, for every owner form (for one tenant the planner chose the tenant's
// activity index unless told).
func TestLiveChatCountReadsTheOwnerIndex(t *testing.T) {
	db := MustOpenDB(t)
	tag := "deploy"
	for _, f := range []annals.ChatFilter{
		{Owner: annals.Owner{AllTenants: true}},
		{Owner: annals.Owner{TenantID: "t"}},
		{Owner: annals.Owner{TenantID: "t", UserID: "u"}},
		{Owner: annals.Owner{TenantID: "t", UserID: "u", AgentID: "a"}},
		{Owner: annals.Owner{TenantID: "t"}, Tag: &tag, PinnedOnly: true},
	} {
		plan, err := db.ChatCountPlanForTest(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "USING INDEX chats_live_by_owner") {
			t.Errorf("the count of the live chats of %v (tag %v) runs as %q, want it over chats_live_by_owner", f.Owner, f.Tag, plan)
		}
	}
}

// TestAnUpgradeNamesEachMigrationItApplies: opening a database whose schema is older names each
// migration the upgrade applies before it runs (one may take minutes), and creating a database
// names none.
func TestAnUpgradeNamesEachMigrationItApplies(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	var heard []string
	opts := sqlite.Options{Upgrading: func(m string) { heard = append(heard, m) }}
	db, err := sqlite.Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(heard) != 0 {
		t.Errorf("creating the database named %v, want no upgrade", heard)
	}
	// The database as it was before migration 0025.
	if err := db.ExecForTest(ctx, `DROP INDEX entries_filter`); err != nil {
		t.Fatal(err)
	}
	if err := db.ExecForTest(ctx, `DELETE FROM schema_migrations WHERE version = 25`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, o := range []sqlite.Options{opts, {QueryOnly: true, Upgrading: opts.Upgrading}} {
		heard = nil
		db, err := sqlite.Open(ctx, path, o)
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		if want := []string{"0025_entries_filter.sql"}; !slices.Equal(heard, want) {
			t.Errorf("the upgrade named %v, want %v", heard, want)
		}
		if err := reopenBefore25(ctx, path); err != nil {
			t.Fatal(err)
		}
	}
}

// reopenBefore25 takes the database at path back to before migration 0025.
func reopenBefore25(ctx context.Context, path string) error {
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.ExecForTest(ctx, `DROP INDEX entries_filter`); err != nil {
		return err
	}
	return db.ExecForTest(ctx, `DELETE FROM schema_migrations WHERE version = 25`)
}
