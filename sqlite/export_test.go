package sqlite

import "context"

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
