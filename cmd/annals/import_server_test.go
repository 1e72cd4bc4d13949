package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals/importer/loomcycletest"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver the PostgreSQL fixture is written with
)

// annals import --format loomcycle postgres://...: a loomcycle deployment on PostgreSQL is
// imported and listed by its URL without the password.
func TestImportReadsALoomcyclePostgresDeployment(t *testing.T) {
	base := os.Getenv("ANNALS_TEST_POSTGRES_DSN")
	if base == "" {
		t.Skip("ANNALS_TEST_POSTGRES_DSN is not set")
	}
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	schema := fmt.Sprintf("lc_cli_%d", time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	defer admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE")
	u, _ := url.Parse(base)
	u.User = url.UserPassword(u.User.Username(), "hunter2")
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := loomcycletest.Write(ctx, db, loomcycletest.Postgres, loomcycletest.Options{Sessions: 3, Turns: 2}); err != nil {
		t.Fatal(err)
	}

	tm := newTestMain(t)
	out := tm.mustRun("", "import", "--format", "loomcycle", u.String())
	if !strings.Contains(out, "loomcycle") || strings.Contains(out, "hunter2") {
		t.Errorf("report:\n%s", out)
	}
	if list := tm.mustRun("", "list", "--json"); !strings.Contains(list, "loomcycle:"+loomcycletest.SessionID(2)) {
		t.Errorf("list lacks the imported sessions:\n%s", list)
	}
	status := tm.mustRun("", "import", "--status")
	if !strings.Contains(status, "postgres://") || strings.Contains(status, "hunter2") {
		t.Errorf("status:\n%s", status)
	}
}

func TestImportFormatFlagNamesTheFormat(t *testing.T) {
	tm := newTestMain(t)
	path := filepath.Join(t.TempDir(), "loomcycle.db")
	db, _, err := loomcycletest.GenerateSQLite(path, loomcycletest.Options{Sessions: 2, Turns: 1})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	tm.mustRun("", "import", "--format", "loomcycle", path)
	if list := tm.mustRun("", "list", "--json"); !strings.Contains(list, "loomcycle:"+loomcycletest.SessionID(1)) {
		t.Errorf("list lacks the imported sessions:\n%s", list)
	}
	if _, _, err := tm.run("", "import", "--format", "nosuch", path); err == nil || !strings.Contains(err.Error(), "loomcycle") {
		t.Errorf("an unknown --format: %v", err)
	}
	if _, _, err := tm.run("", "import", "--watch", "--format", "loomcycle", "postgres://me:pw@db.example/lc"); err == nil || !strings.Contains(err.Error(), "cannot be watched") || strings.Contains(err.Error(), "pw@") {
		t.Errorf("watching a server: %v", err)
	}
}
