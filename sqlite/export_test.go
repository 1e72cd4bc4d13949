package sqlite

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
)

// ExecForTest runs a statement on the writer, for tests that must set up states the API
// cannot produce (a schema from the future, say).
func (db *DB) ExecForTest(ctx context.Context, query string) error {
	_, err := db.writer.ExecContext(ctx, query)
	return err
}

// SetEntryRankingForTest makes chat searches use the entry-level ranking (true) or the chat
// index (false), so a test can compare them.
func (db *DB) SetEntryRankingForTest(on bool) { db.entryRanking = on }

// SetCandidatesForTest sets how many of the newest matching chats relevance ranks.
func (db *DB) SetCandidatesForTest(n int) { db.candidates = n }

// SetBlockLimitsForTest sets how many entries and bytes a block of a chat's search document
// holds (0, 0: the defaults).
func (db *DB) SetBlockLimitsForTest(entries, bytes int64) { db.blocks = blockLimits{entries, bytes} }

// SetStatementCacheForTest sets how many statement texts the reader's cache keeps.
func (db *DB) SetStatementCacheForTest(n int) {
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	db.stmts.max = n
}

// StatementsCachedForTest is how many statement texts the reader's cache holds.
func (db *DB) StatementsCachedForTest() int {
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	return db.stmts.lru.Len()
}

// ChatCountPlanForTest is SQLite's plan of FindChats's count for f, its lines joined.
func (db *DB) ChatCountPlanForTest(ctx context.Context, f annals.ChatFilter) (string, error) {
	w, err := chatWhere(f)
	if err != nil {
		return "", err
	}
	rows, err := db.reader.QueryContext(ctx, "EXPLAIN QUERY PLAN "+chatCountSQL(w), w.Args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return "", err
		}
		lines = append(lines, detail)
	}
	return strings.Join(lines, "; "), rows.Err()
}
