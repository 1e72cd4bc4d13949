package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals/postgres"
)

// A server configured with a short statement timeout still starts while another server holds
// the migration lock for longer than the timeout (several servers starting at once against one
// database), and serves under its timeout afterwards.
func TestOpenWaitsForTheMigrationLockPastTheStatementTimeout(t *testing.T) {
	dsn := MustCreateSchema(t)
	ctx := context.Background()
	other, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	const key = `hashtextextended('annals.migrate.' || coalesce(current_schema(), ''), 0)`
	if _, err := other.Exec(ctx, `SELECT pg_advisory_lock(`+key+`)`); err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	go func() {
		time.Sleep(400 * time.Millisecond)
		_, err := other.Exec(ctx, `SELECT pg_advisory_unlock(`+key+`)`)
		released <- err
	}()
	db, err := postgres.Open(ctx, dsn, postgres.Options{StatementTimeout: 50 * time.Millisecond})
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("open behind another server's migration lock: %v", err)
	}
	defer db.Close()
	if err := db.ExecForTest(ctx, `SELECT pg_sleep(1)`); err == nil {
		t.Error("after open, pg_sleep(1) under a 50ms statement timeout succeeded: the timeout was not restored")
	}
}
