package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// The writer keeps its statement journals in memory (temp_store 2), on a created database and
// on a reopened one: in a temporary file they were two thirds of the bytes an append wrote at
// 1M entries (docs/BENCHMARKS.md). The readers keep SQLite's default.
func TestWriterKeepsStatementJournalsInMemory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	for _, open := range []string{"created", "reopened"} {
		db, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var writer, reader int
		if err := db.writer.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&writer); err != nil {
			t.Fatal(err)
		}
		if err := db.reader.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&reader); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if writer != 2 || reader != 0 {
			t.Errorf("%s: temp_store is %d on the writer and %d on the readers, want 2 (memory) and 0 (the default)", open, writer, reader)
		}
	}
	// A writer connection has it from its open (the pool may open a new one), not only from
	// the end of the migrations.
	pool, err := sql.Open("sqlite", dsn(path, Options{BusyTimeout: 5e9}, false))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var fresh int
	if err := pool.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&fresh); err != nil {
		t.Fatal(err)
	}
	if fresh != 2 {
		t.Errorf("a new writer connection has temp_store %d, want 2 (memory)", fresh)
	}
}

// Migrations run with temporary files (a migration rewriting a whole index in one statement
// would hold its statement journal in memory), and the writer is back in memory after.
func TestMigrationsRunWithTemporaryFiles(t *testing.T) {
	ctx := context.Background()
	pool, err := sql.Open("sqlite", dsn(filepath.Join(t.TempDir(), "annals.db"), Options{BusyTimeout: 5e9}, false))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	pool.SetMaxOpenConns(1)
	during := -1
	if _, err := withFileTemp(ctx, pool, func() (bool, error) {
		return true, pool.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&during)
	}); err != nil {
		t.Fatal(err)
	}
	var after int
	if err := pool.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if during != 1 || after != 2 {
		t.Errorf("temp_store is %d during the migrations and %d after, want 1 (file) and 2 (memory)", during, after)
	}
}
