package postgres

import (
	"context"
	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"strings"
)

// ExplainForTest returns the plan of query on one connection with sequential scans disabled, so
// that a test on a handful of rows sees which index the planner can use.
func (db *DB) ExplainForTest(ctx context.Context, query string) (string, error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		return "", err
	}
	defer conn.Exec(ctx, `RESET enable_seqscan`)
	rows, err := conn.Query(ctx, `EXPLAIN `+query)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return "", err
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// SettingForTest returns a run-time setting of the store's connections.
func (db *DB) SettingForTest(ctx context.Context, name string) (string, error) {
	var v string
	err := db.pool.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&v)
	return v, err
}

// SetLocationForTest makes the store see itself in another place (as a dump restored into
// another database, cluster or schema does).
func (db *DB) SetLocationForTest(location string) { db.here.Location = location }

// MatchChatIDsPlanForTest is PostgreSQL's plan of the first statement MatchChatIDs runs, with
// sequential scans disabled (a plan that cannot use an index still shows its Seq Scan).
func (db *DB) MatchChatIDsPlanForTest(ctx context.Context, owner annals.Owner, prefix string) (string, error) {
	query, args := storecore.MatchChatIDsQuery(owner, prefix)
	return db.planForTest(ctx, query, args)
}

// ChatIDsWithAttributePlanForTest is ChatIDsWithAttribute's plan, sequential scans disabled.
func (db *DB) ChatIDsWithAttributePlanForTest(ctx context.Context, owner annals.Owner, key, value string) (string, error) {
	query, args := chatIDsWithAttributeQuery(owner, key, value, 11)
	return db.planForTest(ctx, query, args)
}

func (db *DB) planForTest(ctx context.Context, query string, args []any) (string, error) {
	return db.explainForTest(ctx, query, args, true)
}

func (db *DB) explainForTest(ctx context.Context, query string, args []any, noSeqScan bool) (string, error) {
	explain := "EXPLAIN (VERBOSE) "
	if noSeqScan {
		explain = "EXPLAIN "
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Release()
	if noSeqScan {
		if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
			return "", err
		}
		defer conn.Exec(ctx, `RESET enable_seqscan`)
	}
	rows, err := conn.Query(ctx, explain+rebind(query), args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return "", err
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// FoldVocabForTest folds the vocabulary's deltas now.
func (db *DB) FoldVocabForTest(ctx context.Context) (int64, error) { return db.foldVocab(ctx) }

// VocabPlanForTest is the plan of the vocabulary read of a prefix expansion, sequential scans
// disabled.
func (db *DB) VocabPlanForTest(ctx context.Context, owner annals.Owner, prefix string) (string, error) {
	query, args := vocabQuery(owner, prefix, 2001)
	return db.planForTest(ctx, query, args)
}

// SetDenseBlocksForTest sets how many candidate blocks make the view's substring search walk
// the entries by time (0: the default).
func (db *DB) SetDenseBlocksForTest(n int) { db.denseBlocks = n }

// SetCandidatesForTest sets how many of the newest matches an entry search ranks (0: the default).
func (db *DB) SetCandidatesForTest(k int) { db.candidates = k }

// SetWholeWalksForTest makes a chat search's walk read the whole table at once, not by pk windows.
func (db *DB) SetWholeWalksForTest(on bool) { db.wholeWalks = on }

// QueryRowForTest reads one row of q into dest.
func (db *DB) QueryRowForTest(ctx context.Context, q string, dest ...any) error {
	return db.pool.QueryRow(ctx, q).Scan(dest...)
}

// FeedSwitchWaitsForTest reports whether a transaction of this schema waits for the feed's
// advisory lock (EnableFeed behind a writer that found the feed off).
func (db *DB) FeedSwitchWaitsForTest(ctx context.Context) (bool, error) {
	var waits bool
	err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
		AND objid::bigint = (hashtext('annals.feed.' || current_schema())::bigint & 4294967295))`).Scan(&waits)
	return waits, err
}

// PlanForTest is PostgreSQL's plan of a traced statement (annals.Statement), sequential scans
// disabled.
func (db *DB) PlanForTest(ctx context.Context, s annals.Statement) (string, error) {
	return db.planForTest(ctx, s.SQL, s.Args)
}

// PlanAsIsForTest is PostgreSQL's plan of a traced statement with the connection's settings
// (the plan the statement runs with), with each node's output columns (EXPLAIN VERBOSE).
func (db *DB) PlanAsIsForTest(ctx context.Context, s annals.Statement) (string, error) {
	return db.explainForTest(ctx, s.SQL, s.Args, false)
}

// Widen is widen, for its unit test.
func Widen(size int64, found, n int, span int64) (int64, bool) { return widen(size, found, n, span) }
