package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/annals-dev/annals/internal/storecore"

	"github.com/annals-dev/annals"
)

// ExecForTest runs a statement on the writer, for tests that must set up states the API
// cannot produce (a schema from the future, say).
func (db *DB) ExecForTest(ctx context.Context, query string) error {
	_, err := db.writer.ExecContext(ctx, query)
	return err
}

// WriteStmtMissesForTest is how many statements the write transactions so far ran that the
// writer's statement cache did not hold (each prepared then, in its transaction).
func (db *DB) WriteStmtMissesForTest() int {
	db.wstmts.mu.Lock()
	defer db.wstmts.mu.Unlock()
	return db.wstmts.missed
}

// VocabReadsForTest is how many times the searches read the chat index's vocabulary for a
// prefix (the vocabulary cache's misses).
func (db *DB) VocabReadsForTest() int {
	db.vocab.mu.Lock()
	defer db.vocab.mu.Unlock()
	return db.vocab.reads
}

// SetEntryRankingForTest makes chat searches use the entry-level ranking (true) or the chat
// index (false), so a test can compare them.
func (db *DB) SetEntryRankingForTest(on bool) { db.entryRanking = on }

// SetBuiltinBM25ForTest makes the searches score with FTS5's bm25 (true) or rankFunc (false).
func (db *DB) SetBuiltinBM25ForTest(on bool) { db.builtinBM25 = on }

// PhraseCountsForTest is how many phrases' document counts the store keeps.
func (db *DB) PhraseCountsForTest() int {
	db.counts.mu.Lock()
	defer db.counts.mu.Unlock()
	return len(db.counts.m)
}

// SetCandidatesForTest sets how many of the newest matching chats relevance ranks.
func (db *DB) SetCandidatesForTest(n int) { db.candidates = n }

// SetPageWordsForTest turns on or off the narrowing of a page's passes to the words of a prefix's
// expansion that each chat holds (pageWordMatches).
func (db *DB) SetPageWordsForTest(on bool) { db.allPageWords = !on }

// SetWalkReadsChatsForTest makes a chat search's walk read the walked chats' rows even when its
// MATCH holds the chat filter (the walk before it read none then).
func (db *DB) SetWalkReadsChatsForTest(on bool) { db.walkReadsChats = on }

// SetPageListsForTest turns on or off the reading of a page's matches as lists (a list per chat,
// readPageMatchLists, or per chat and term, pageTermMatches); off, they are read a row each by
// the passes before them.
func (db *DB) SetPageListsForTest(on bool) { db.pageRows = !on }

// SetOwnerRangesForTest turns a small owner's entry search over its chats' ranges on or off.
func (db *DB) SetOwnerRangesForTest(on bool) { db.noOwnerRanges = !on }

// OwnerFacetMatchForTest is the FTS5 expression of an owner's token in the entry index.
func OwnerFacetMatchForTest(o annals.Owner) string { return ownerFacetMatch(o) }

// SetOwnerFacetsForTest turns the owner's tokens in the entry MATCHes on or off (on by default
// where the schema has them), for tests that compare the two.
func (db *DB) SetOwnerFacetsForTest(on bool) { db.noOwnerFacets = !on }

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
	rows, err := db.reader.QueryContext(ctx, "EXPLAIN QUERY PLAN "+chatCountSQL(w, f), w.Args...)
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

// WriteTxForTest runs query (several statements allowed) in one write transaction, as a
// capture runs its statements, with the entry indexes brought up to date before the commit.
func (db *DB) WriteTxForTest(ctx context.Context, query string) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, query)
		return err
	})
}

// LeavesWrittenForTest reads an FTS5 index's count of leaf pages written to its first level
// since it was created (nWriteCounter in the structure record, row 10 of its %_data table).
func (db *DB) LeavesWrittenForTest(ctx context.Context, table string) (uint64, error) {
	s, err := readStructure(ctx, db.writer, table)
	return s.leaves, err
}

// SegmentsForTest is the size in leaf pages of each segment of an FTS5 index.
func (db *DB) SegmentsForTest(ctx context.Context, table string) ([]int, error) {
	s, err := readStructure(ctx, db.writer, table)
	return s.pages, err
}

// SetMergeMinPagesForTest sets the size under which an index is left to FTS5's automerge (0:
// the default), so a small test database can be due for a background merge.
func (db *DB) SetMergeMinPagesForTest(n int) {
	db.merge.mu.Lock()
	defer db.merge.mu.Unlock()
	db.merge.minPages = n
}

// SetMergeQuietForTest sets how long the writer must be quiet before a merge check (0: the
// default).
func (db *DB) SetMergeQuietForTest(d time.Duration) {
	db.merge.mu.Lock()
	defer db.merge.mu.Unlock()
	db.merge.quiet = d
}

// MergeStateForTest reports whether a quiet check is pending and whether a merge runs.
func (db *DB) MergeStateForTest() (pending, running bool) {
	db.merge.mu.Lock()
	defer db.merge.mu.Unlock()
	return db.merge.pending, db.merge.running
}

// WaitMergesForTest waits until no quiet check is pending and no background merge runs, and
// returns the last one's error.
func (db *DB) WaitMergesForTest() error {
	for {
		db.merge.mu.Lock()
		busy, err := db.merge.pending || db.merge.running, db.merge.err
		db.merge.mu.Unlock()
		if !busy {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// DropVectorCacheForTest empties the decoded-vector cache, so the next FindEmbeddings reads every
// vector from the file (a cold call).
func (db *DB) DropVectorCacheForTest() {
	db.embeds = storecore.NewEmbeddingCache(storecore.VectorCacheFloats)
}

// SetMachineForTest makes the store see itself on another machine (its file unchanged), as a
// database carried to a second machine does.
func (db *DB) SetMachineForTest(machine, hostname string) {
	db.here.Machine, db.here.Hostname = machine, hostname
}

// MatchChatIDsPlanForTest is SQLite's plan of the first statement MatchChatIDs runs, its lines
// joined.
func (db *DB) MatchChatIDsPlanForTest(ctx context.Context, owner annals.Owner, prefix string) (string, error) {
	query, args := storecore.MatchChatIDsQuery(owner, prefix)
	return db.planForTest(ctx, query, args)
}

// ChatIDsWithAttributePlanForTest is SQLite's plan of ChatIDsWithAttribute's statement.
func (db *DB) ChatIDsWithAttributePlanForTest(ctx context.Context, owner annals.Owner, key, value string) (string, error) {
	query, args := chatIDsWithAttributeQuery(owner, key, value, 11)
	return db.planForTest(ctx, query, args)
}

// UsageBucketsPlanForTest is SQLite's plan of UsageBuckets' statement.
func (db *DB) UsageBucketsPlanForTest(ctx context.Context, f annals.UsageFilter) (string, error) {
	query, args := storecore.UsageBucketsSQL(f)
	return db.planForTest(ctx, query, args)
}

// ChatEntryRangePlanForTest is SQLite's plan of a chat's entry pk range, as the searches read it.
func (db *DB) ChatEntryRangePlanForTest(ctx context.Context) (string, error) {
	return db.planForTest(ctx, `SELECT c.pk, `+chatEntryRange+` FROM chats c WHERE c.pk = 1`, nil)
}

// PlanForTest is SQLite's plan of any statement, as the reader prepares it.
func (db *DB) PlanForTest(ctx context.Context, query string, args []any) (string, error) {
	return db.planForTest(ctx, query, args)
}

func (db *DB) planForTest(ctx context.Context, query string, args []any) (string, error) {
	rows, err := db.reader.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
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

// WalksCachedForTest is how many candidate walks are kept, and how many of them are of the
// watch's current generation.
func (db *DB) WalksCachedForTest(ctx context.Context) (kept, current int, err error) {
	gen, err := db.watch.generation(ctx)
	if err != nil {
		return 0, 0, err
	}
	kept, current = db.embeds.WalksKept(gen)
	return kept, current, nil
}

// SetEntryFilterIndexForTest makes searches read entries through the entry filter index
// (migration 0025) or through their rows, so a test can compare the two.
func (db *DB) SetEntryFilterIndexForTest(on bool) {
	db.entryFilter = "entries e"
	if on {
		db.entryFilter = "entries e INDEXED BY " + entryFilterIndex
	}
}

// SetFacetsForTest turns the role: and tool: tokens of the entry MATCH (search_facets.go) on or
// off, to compare the searches with and without them.
func (db *DB) SetFacetsForTest(on bool) { db.facets = on }

// SetFacetProbeForTest sets how many of the newest matches probeFacets checks (0: the
// constant; below 0: no probe, the scored walks always use the tokens).
func (db *DB) SetFacetProbeForTest(n int) { db.facetProbe = n }

// WriterWaitsForTest is how many times a transaction has waited for the one writer connection.
func (db *DB) WriterWaitsForTest() int64 { return db.writer.Stats().WaitCount }

// FTS5SnippetsForTest is FTS5's own snippet() (the pre-Go snippets' arguments) of every entry
// matching match, with the entry's five searchable fields, by entry pk: what query.Snippet must
// agree with.
func (db *DB) FTS5SnippetsForTest(ctx context.Context, match string) (map[int64]string, map[int64][]string, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT f.rowid, snippet(entries_fts, -1, '[', ']', '…', 16), e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result
		FROM entries_fts f JOIN entries e ON e.pk = f.rowid WHERE entries_fts MATCH ?`, match)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	snips, fields := map[int64]string{}, map[int64][]string{}
	for rows.Next() {
		var pk int64
		var s string
		f := make([]string, 5)
		if err := rows.Scan(&pk, &s, &f[0], &f[1], &f[2], &f[3], &f[4]); err != nil {
			return nil, nil, err
		}
		snips[pk], fields[pk] = s, f
	}
	return snips, fields, rows.Err()
}
