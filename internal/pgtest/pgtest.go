// Package pgtest gives tests and benchmarks outside package postgres a fresh schema on the
// PostgreSQL test server (ANNALS_TEST_POSTGRES_DSN), or skips them when none is set.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// DSNEnv names the variable holding the test server's connection URL.
const DSNEnv = "ANNALS_TEST_POSTGRES_DSN"

// FreshSchema creates a schema annals_test_<random> on the test server, drops it when the test
// ends, and returns a DSN whose search_path is that schema. It skips the test without a server.
func FreshSchema(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		tb.Skip(DSNEnv + " is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	schema := "annals_test_" + hex.EncodeToString(b)
	exec := func(sql string) error {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(context.Background(), sql)
		return err
	}
	if err := exec(`CREATE SCHEMA ` + schema); err != nil {
		tb.Fatalf("create schema on the test server: %v", err)
	}
	tb.Cleanup(func() {
		if err := exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn + " search_path=" + schema
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
