package bench

import (
	"context"
	"database/sql"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/pgtest"
	"github.com/annals-dev/annals/postgres"
)

func TestSQLite3ReplaysEachSampleOnDemandInOneProcess(t *testing.T) {
	tool, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("the sqlite3 tool is not installed")
	}
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE t(x INTEGER, s TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'it''s'), (3, 'c')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ctx := context.Background()
	stmts := []annals.Statement{
		{SQL: "SELECT x FROM t WHERE x > ? AND s <> ?", Args: []any{int64(1), "it's"}},
		{SQL: "SELECT count(*) FROM t"},
	}
	s, err := toolSide(ctx, tool, sqlite3Dialect(path), stmts)
	if err != nil {
		t.Fatal(err)
	}
	// Each call is one more repetition of both statements in the same process: the samples
	// come one at a time, so they can interleave with the library's.
	for i := range 3 {
		if _, err := s.next(ctx); err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}

	_, err = toolSide(ctx, tool, sqlite3Dialect(path), []annals.Statement{{SQL: "SELECT * FROM missing"}})
	if err == nil || !strings.Contains(err.Error(), "no such table") {
		t.Errorf("replaying a bad statement: err = %v, want sqlite3's own message", err)
	}
}

func TestLibpqDSNMovesWhatOnlyPgxKnows(t *testing.T) {
	dsn, env := libpqDSN("postgres://u@h:5432/db?sslmode=disable&search_path=s1&pool_max_conns=4")
	if strings.Contains(dsn, "search_path") || strings.Contains(dsn, "pool_") || !strings.Contains(dsn, "sslmode=disable") {
		t.Errorf("dsn = %q, want only the libpq parameters", dsn)
	}
	if len(env) != 1 || env[0] != "PGOPTIONS=-c search_path=s1" {
		t.Errorf("env = %v, want the search_path in PGOPTIONS", env)
	}
	if dsn, env := libpqDSN("host=h dbname=db"); dsn != "host=h dbname=db" || env != nil {
		t.Errorf("key=value form changed: %q %v", dsn, env)
	}
}

func TestPostgresSearchListAndRelatedReplayInPsqlAndThroughPgx(t *testing.T) {
	dsn := pgtest.FreshSchema(t)
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql is not installed")
	}
	if testing.Short() {
		t.Skip("ingests a small corpus into SQLite and PostgreSQL")
	}
	opts := smokeOptions(t, t.TempDir())
	opts.Size, opts.Iterations, opts.SQLite3, opts.Psql = 200, 3, "", psql
	opts.Scenarios = []string{"search", "list", "related"}
	opts.Postgres = dsn
	opts.Open = func(ctx context.Context, location string) (annals.Store, error) {
		if location == dsn {
			return postgres.Open(ctx, location, postgres.Options{})
		}
		return openSQLite(ctx, location)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rep.Rows {
		if r.Backend != "postgres" || r.Unit != "" {
			continue
		}
		seen[r.Scenario] = true
		// Every statement the store traced ran in psql and through pgx, three times each.
		if r.Baseline == nil || r.Baseline.Name != "psql" || r.Baseline.N != 3 || r.Baseline.P50 <= 0 {
			t.Errorf("%s %s: baseline %+v (note %q), want psql replayed 3 times", r.Scenario, r.Case, r.Baseline, r.Note)
		}
		if r.Driver == nil || r.Driver.N != 3 || r.OwnRatio <= 0 || r.DriverGap <= 0 {
			t.Errorf("%s %s: driver %+v, own %v, gap %v, want the same-driver replay beside it", r.Scenario, r.Case, r.Driver, r.OwnRatio, r.DriverGap)
		}
	}
	for _, s := range opts.Scenarios {
		if !seen[s] {
			t.Errorf("no postgres %s rows", s)
		}
	}
	if got := strings.Join(rep.Reading, " "); !strings.Contains(got, "postgres: annals takes") || !strings.Contains(got, "psql client") {
		t.Errorf("reading %q does not split the PostgreSQL gap", got)
	}
}
