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
// Now the writer checks, after each commit, whether an index's segments beyond its largest hold
// at least 1/mergeRatio of the largest's pages; if so, a goroutine merges the index into one
// segment, a bounded step (mergeStepPages pages) per write transaction, so writers interleave
// with it. The ratio bounds the work: a full merge rewrites the whole index, so it runs after
// the increments grew by a fixed share of it (a write amplification of at most mergeRatio),
// not after every append. Close lets a running merge finish for up to mergeCloseWait, then
// stops it after its current step; FTS5 keeps the state of a merge in progress, and the next
// commit that finds the index due resumes it.

const (
	// mergeRatio: an index is due for a merge when its other segments hold at least
	// 1/mergeRatio of the pages of its largest.
	mergeRatio = 16
	// mergeMinPages: an index whose largest segment is smaller than this is left to FTS5's
	// automerge (a small index is cheap to search in any shape).
	mergeMinPages = 64
	// mergeStepPages is the work of one merge step, in leaf pages written (a few MB).
	mergeStepPages = 500
	// mergeCloseWait is how long Close lets a running merge finish: a command that appended
	// (annals ingest) leaves the index merged, and a server's shutdown is not held for long.
	mergeCloseWait = 10 * time.Second
)

// ftsTables are the full-text indexes the merges look after.
var ftsTables = []string{"entries_fts", "chats_fts", "chat_fts", "entries_tri"}

// merger runs at most one background merge at a time.
type merger struct {
	mu      sync.Mutex
	running bool
	again   bool // a commit arrived while a merge ran: check again before stopping
	closed  bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// minPages overrides mergeMinPages (0: the constant), for tests.
	minPages int
	// err is the last merge's error, for tests (a merge is best effort: a failed one leaves
	// the index as it was, and the next commit tries again).
	err error
}

// kickMerge starts a background merge check after a commit, unless one is running (then that
// one checks again before it stops) or the store is closing.
func (db *DB) kickMerge() {
	m := &db.merge
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	if m.running {
		m.again = true
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.running, m.cancel = true, cancel
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer cancel()
		for {
			err := db.mergeDue(ctx)
			m.mu.Lock()
			m.err = err
			if !m.again || m.closed {
				m.running = false
				m.mu.Unlock()
				return
			}
			m.again = false
			m.mu.Unlock()
		}
	}()
}

// stopMerges lets a running merge finish for up to mergeCloseWait, then cancels it and waits
// for its current step; no merge starts after.
func (db *DB) stopMerges() {
	m := &db.merge
	m.mu.Lock()
	m.closed = true
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
