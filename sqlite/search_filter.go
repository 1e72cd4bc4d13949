package sqlite

import (
	"context"
	"database/sql"
)

// The entry filter index (migration 0025): an entry's pk, chat, kind, lower-cased tool, time and
// size (entryBytes).
// A search that checks each matching entry against its chat or an entry-level filter reads them
// from it instead of the entries row (a page of transcript per lookup): the walks and counts of
// the entry-level chat ranking, its matching set, an entry search's walk and count, the match
// counts of a page and the sizes by which a chat search picks its snippets. SQLite looks `pk = ?` up by rowid whatever indexes exist, so the statements
// name the index (INDEXED BY); they read nothing of e but those columns.

// entryFilterIndex is the index's name.
const entryFilterIndex = "entries_filter"

// entryFilterRef is how the searches name entries (alias e) when they read only the filter
// index's columns (the size as entryBytes spells it): "entries e INDEXED BY entries_filter" when the schema has the index, else
// "entries e" (a database opened read-only before its upgrade).
func entryFilterRef(ctx context.Context, q *sql.DB) (string, error) {
	has, err := schemaHas(ctx, q, "index", entryFilterIndex)
	if err != nil || !has {
		return "entries e", err
	}
	return "entries e INDEXED BY " + entryFilterIndex, nil
}

// schemaHas reports whether the schema holds the object of that type and name: the searches
// ask it of what a migration added, so that a database opened read-only before its upgrade is
// searched as before.
func schemaHas(ctx context.Context, q *sql.DB, typ, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = ? AND name = ?`, typ, name).Scan(&n)
	if err != nil {
		return false, storeErr("read schema", err)
	}
	return n > 0, nil
}
