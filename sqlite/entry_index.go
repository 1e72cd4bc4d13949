package sqlite

import (
	"context"
)

// The entry columns both entry indexes hold, in their order. The full-text index holds one more,
// facets, the entry's kind and tool as tokens, computed by the view it reads its rows from
// (entries_fts_content, migration 0035).
const indexedEntryColumns = `text, reasoning, tool_name, tool_args, tool_result`

// flushEntryIndex adds the entries queued in entries_unindexed to the full-text and substring
// indexes and empties the queue (migration 0012). Every write transaction runs it before its
// commit (writeTxThen), so the queue is empty between transactions and no reader sees an entry
// the indexes lack. One INSERT per index hands FTS5 the whole batch at once: it writes one
// segment for the transaction instead of one per entry.
func flushEntryIndex(ctx context.Context, tx txRunner) error {
	var queued bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM entries_unindexed)`).Scan(&queued); err != nil {
		return storeErr("entry index: queue", err)
	}
	if !queued {
		return nil
	}
	steps := []struct{ what, q string }{
		{"full text", `INSERT INTO entries_fts (rowid, ` + indexedEntryColumns + `, facets)
			SELECT e.pk, ` + indexed("e.text") + `, ` + indexed("e.reasoning") + `, ` + indexed("e.tool_name") + `,
				` + indexed("e.tool_args") + `, ` + indexed("e.tool_result") + `, e.facets
			FROM entries_unindexed u JOIN entries_fts_content e ON e.pk = u.pk ORDER BY u.pk`},
		// A pk in the range the substring backfill has still to do is left to it (0009).
		{"substring", `INSERT INTO entries_tri (rowid, ` + indexedEntryColumns + `)
			SELECT e.pk, e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result
			FROM entries_unindexed u JOIN entries e ON e.pk = u.pk
			WHERE NOT EXISTS (SELECT 1 FROM entries_tri_todo t WHERE u.pk > t.done AND u.pk <= t.last) ORDER BY u.pk`},
		{"clear", `DELETE FROM entries_unindexed`},
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.q); err != nil {
			return storeErr("entry index: "+s.what, err)
		}
	}
	return nil
}
