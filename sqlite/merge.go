package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Background merges of the full-text indexes (issue 33 item 5). Every write transaction leaves
// its share of each FTS5 index as a new segment, and FTS5's own automerge only folds them four
// at a time, so an append of a few thousand entries leaves the index in about seven segments,
// which every search cursor seeks one by one: at 100k entries a 10k append made the prefix
// searches 3x slower (docs/BENCHMARKS.md), whatever the size of the increments. A bulk load of
// 50k entries or more is merged by annals ingest (Optimize); smaller appends used to wait for
// the next one.
//
// Now a handle that stays open (Options.BackgroundMerges: annals serve, annals mcp), once its
// writer has been quiet for mergeQuiet after its open or a commit, checks whether an
// index's segments beyond its largest hold at least 1/mergeRatio of the largest's pages; if so,
// it merges the index into one segment, a bounded step (mergeStepPages pages) per write
// transaction, so writers that arrive meanwhile interleave with it. Waiting for a quiet writer
// is what bounds the work: a bulk load through a server merges once its appends pause, and a
// one-shot command (annals import commits once per file, hundreds of times) never merges at all —
// merging after every commit that passed the share made the import of 450 sessions 4x slower
// (docs/BENCHMARKS.md).
// The ratio bounds a slow trickle's cost: a full merge rewrites the whole index, so it runs after
// the increments grew by a fixed share of it, not after every quiet append. Close stops a pending
// check (a one-shot command never starts a merge on its way out) and lets a running merge finish
// for up to mergeCloseWait, then stops it after its current step; FTS5 keeps the state of a merge
// in progress, and the next quiet check resumes it.

const (
	// mergeRatio: an index is due for a merge when its other segments hold at least
	// 1/mergeRatio of the pages of its largest. At 1M entries a 10k append is 1/83 of the
	// entries' index; merges run only when the writer is quiet, so a low share costs a quiet
	// server a merge now and then, never a writer under load.
	mergeRatio = 128
	// mergeQuiet is how long the writer must have committed nothing before a merge check runs.
	mergeQuiet = 2 * time.Second
	// mergeMinPages: an index whose largest segment is smaller than this is left to FTS5's
	// automerge (a small index is cheap to search in any shape).
	mergeMinPages = 64
	// mergeStepPages is the work of one merge step, in leaf pages written (a few MB).
	mergeStepPages = 500
	// mergeCloseWait is how long Close lets a running merge finish, so a server's shutdown is
	// not held for long.
	mergeCloseWait = 10 * time.Second
)

// ftsTables are the full-text indexes the merges look after.
var ftsTables = []string{"entries_fts", "chats_fts", "chat_fts", "entries_tri"}

// merger runs at most one background merge at a time, after the writer has been quiet.
type merger struct {
	mu      sync.Mutex
	on      bool        // Options.BackgroundMerges on a writable handle
	timer   *time.Timer // the pending quiet check (nil until the first arm)
	pending bool        // the timer is armed and its check has not started
	// armed counts the arms: a check whose timer was re-armed after it fired, before it took
	// mu, finds a newer count and leaves the check to the newer timer.
	armed   uint64
	running bool
	again   bool // a commit arrived while a merge ran: check again once quiet
	closed  bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// minPages overrides mergeMinPages (0: the constant), for tests.
	minPages int
	// quiet overrides mergeQuiet (0: the constant), for tests.
	quiet time.Duration
	// err is the last merge's error, for tests (a merge is best effort: a failed one leaves
	// the index as it was, and the next quiet check tries again).
	err error
}

// quietFor is how long the writer must be quiet before a check; m.mu is held.
func (m *merger) quietFor() time.Duration {
	if m.quiet > 0 {
		return m.quiet
	}
	return mergeQuiet
}

// arm (re)starts the quiet timer; m.mu is held.
func (m *merger) arm(check func(armed uint64)) {
	m.pending = true
	m.armed++
	if m.timer != nil {
		m.timer.Stop()
	}
	armed := m.armed
	m.timer = time.AfterFunc(m.quietFor(), func() { check(armed) })
}

// kickMerge, after the open or a commit, restarts the wait for a quiet writer (a handle without
// Options.BackgroundMerges never waits), unless a merge is running
// (then it checks again once quiet after it ends) or the store is closing.
func (db *DB) kickMerge() {
	m := &db.merge
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case !m.on || m.closed:
	case m.running:
		m.again = true
	default:
		m.arm(db.runMerges)
	}
}

// runMerges is the quiet timer's check: it merges each index that is due, then, if commits
// arrived meanwhile, waits for the writer to be quiet again.
func (db *DB) runMerges(armed uint64) {
	m := &db.merge
	m.mu.Lock()
	if m.closed || m.running || !m.pending || armed != m.armed {
		m.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.pending, m.running, m.again, m.cancel = false, true, false, cancel
	m.wg.Add(1)
	m.mu.Unlock()
	defer m.wg.Done()
	defer cancel()
	err := db.mergeDue(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err, m.running = err, false
	if m.again && !m.closed {
		m.again = false
		m.arm(db.runMerges)
	}
}

// stopMerges drops a pending check, lets a running merge finish for up to mergeCloseWait, then
// cancels it and waits for its current step; no merge starts after.
func (db *DB) stopMerges() {
	m := &db.merge
	m.mu.Lock()
	m.closed, m.pending = true, false
	if m.timer != nil {
		m.timer.Stop()
	}
	cancel := m.cancel
	m.mu.Unlock()
	done := make(chan struct{})
	go func() {
		m.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(mergeCloseWait):
		if cancel != nil {
			cancel()
		}
		<-done
	}
}

// mergeDue merges each index that is due into one segment.
func (db *DB) mergeDue(ctx context.Context) error {
	minPages := mergeMinPages
	db.merge.mu.Lock()
	if db.merge.minPages > 0 {
		minPages = db.merge.minPages
	}
	db.merge.mu.Unlock()
	for _, table := range ftsTables {
		s, err := readStructure(ctx, db.writer, table)
		if err != nil {
			return err
		}
		if !s.due(minPages) {
			continue
		}
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			worked, err := db.mergeStep(ctx, table)
			if err != nil {
				return err
			}
			if !worked {
				break
			}
		}
	}
	return nil
}

// mergeStep runs one bounded step of an index's merge into one segment in a write transaction
// of its own, and reports whether it did any work. A negative 'merge' merges every segment
// whatever its level, continuing a merge in progress; FTS5 documents that a step which changed
// fewer than two rows (total_changes) found nothing to merge.
func (db *DB) mergeStep(ctx context.Context, table string) (bool, error) {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("merge %s: begin: %w", table, err)
	}
	defer func() { _ = tx.Rollback() }()
	var before, after int64
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return false, fmt.Errorf("merge %s: %w", table, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (`+table+`, rank) VALUES ('merge', ?)`, -mergeStepPages); err != nil {
		return false, fmt.Errorf("merge %s: %w", table, err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
		return false, fmt.Errorf("merge %s: %w", table, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("merge %s: commit: %w", table, err)
	}
	db.wrote.Store(true)
	return after-before >= 2, nil
}

// ftsStructure is what the merges read of an FTS5 index's structure record: its segments'
// sizes in leaf pages.
type ftsStructure struct {
	pages []int
	// leaves is the write counter: leaf pages written to the first level since the index was
	// created.
	leaves uint64
}

// due reports whether the index's segments beyond its largest hold at least 1/mergeRatio of
// the largest's pages, the largest holding at least minPages.
func (s ftsStructure) due(minPages int) bool {
	if len(s.pages) < 2 {
		return false
	}
	largest, total := 0, 0
	for _, p := range s.pages {
		largest = max(largest, p)
		total += p
	}
	return largest >= minPages && (total-largest)*mergeRatio >= largest
}

// queryRower is a connection pool or transaction to read one row through.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readStructure reads an FTS5 index's structure record (row 10 of its %_data table).
func readStructure(ctx context.Context, q queryRower, table string) (ftsStructure, error) {
	var b []byte
	err := q.QueryRowContext(ctx, `SELECT block FROM `+table+`_data WHERE id = 10`).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return ftsStructure{}, nil
	}
	if err != nil {
		return ftsStructure{}, fmt.Errorf("read the structure of %s: %w", table, err)
	}
	s, err := decodeStructure(b)
	if err != nil {
		return ftsStructure{}, fmt.Errorf("read the structure of %s: %w", table, err)
	}
	return s, nil
}

// decodeStructure decodes an FTS5 structure record (fts5_index.c, fts5StructureDecode): a 4-byte
// cookie, in the second version a 4-byte marker, then varints: levels, segments, the write
// counter, and per level the segments of a merge in progress, the segments, and per segment its
// id, first and last leaf page (and, in the second version, its origins, tombstone pages and
// entries).
func decodeStructure(b []byte) (ftsStructure, error) {
	if len(b) < 4 {
		return ftsStructure{}, errors.New("structure record too short")
	}
	i, v2 := 4, false
	if len(b) >= 8 && binary.BigEndian.Uint32(b[4:8]) == 0xFF000001 {
		i, v2 = 8, true
	}
	bad := false
	next := func() int {
		if i >= len(b) {
			bad = true
			return 0
		}
		v, n := ftsVarint(b[i:])
		i += n
		return int(v)
	}
	levels, segments := next(), next()
	s := ftsStructure{leaves: uint64(next()), pages: make([]int, 0, min(segments, 2000))}
	for l := 0; l < levels && !bad; l++ {
		next() // segments of the merge in progress
		n := next()
		for k := 0; k < n && !bad; k++ {
			next() // segment id
			first, last := next(), next()
			if v2 {
				next() // origin 1
				next() // origin 2
				next() // tombstone pages
				next() // tombstone entries
				next() // entries
			}
			s.pages = append(s.pages, last-first+1)
		}
	}
	if bad || len(s.pages) != segments {
		return ftsStructure{}, fmt.Errorf("structure record malformed (%d segments decoded, %d announced)", len(s.pages), segments)
	}
	return s, nil
}

// ftsVarint decodes an SQLite varint: seven bits a byte, most significant first, the ninth byte
// whole.
func ftsVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return v, len(b)
}
