package postgres

import (
	"context"
	"testing"

	"github.com/annals-dev/annals"
)

// CountRowsForTest runs a count query.
func (db *DB) CountRowsForTest(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// DocMatchesForTest counts the chat documents the GIN scan of a word returns for an owner,
// before any chat row is read: the owner narrowing inside the index.
func (db *DB) DocMatchesForTest(t *testing.T, o annals.Owner, word string) int {
	t.Helper()
	return db.CountRowsForTest(t, `SELECT count(*) FROM chat_docs WHERE tsv @@ $1::tsquery`, "'"+word+"'"+ownerLexemes(o))
}
