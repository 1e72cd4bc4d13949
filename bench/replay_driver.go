package bench

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// driverTimes replays the statements n+1 times through the same driver and connection settings
// as the store (sqlite.OpenReplay) and returns one sample per repetition but the first: the
// library's cost over its own SQL, with the driver's cost on both sides. It is the SQLite
// baseline where the sqlite3 tool cannot read the schema (tools older than SQLite 3.43 do not
// know the chat index's contentless_delete option), and a second baseline everywhere.
func driverTimes(ctx context.Context, dbPath string, stmts []annals.Statement, n int) ([]sample, error) {
	db, err := sqlite.OpenReplay(dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	out := make([]sample, 0, n)
	for i := range n + 1 {
		c0, t0 := processCPU(), time.Now()
		for _, s := range stmts {
			if err := drain(ctx, db, s); err != nil {
				return nil, err
			}
		}
		if i > 0 {
			out = append(out, sample{wall: time.Since(t0), cpu: processCPU() - c0})
		}
	}
	return out, nil
}

// drain runs one statement and reads every row, as the store does.
func drain(ctx context.Context, db *sql.DB, s annals.Statement) error {
	rows, err := db.QueryContext(ctx, s.SQL, s.Args...)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(any)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	return rows.Err()
}
