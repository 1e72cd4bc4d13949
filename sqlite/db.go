// Package sqlite is the annals Store on SQLite: the embedded default. It keeps one writer
// connection (SQLite allows one writer at a time, so queueing in Go is cheaper than busy
// retries) and a pool of reader connections that run concurrently under WAL.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Options configure Open.
type Options struct {
	// ReadOnly opens the file with mode=ro: no migration runs and every write is refused.
	ReadOnly bool
	// Readers is the size of the reader pool; 0 means 4.
	Readers int
	// BusyTimeout is how long a connection waits for a lock; 0 means 5s.
	BusyTimeout time.Duration
	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
	// AfterFeedOff, when set (tests only), is called inside a write transaction right after it
	// found the database's change feed off, before it commits without feed rows: a test pauses
	// a writer there while the feed is switched on (storetest.RunFeedSwitchWaitsForWriter).
	AfterFeedOff func()
	// Progress, when set, hears how far the build of the chat search index has got when an
	// upgrade (migration 0007) has to build it on open: done and total chats.
	Progress func(done, total int)
	// QueryOnly is for a process that only reads (a CLI search): the file is opened as with
	// ReadOnly when its schema is current, else upgraded first and then opened so
	// (queryonly.go).
	QueryOnly bool
	// NoMemoryMap reads pages with read(2) instead of through a memory map. A process that
	// runs one query reads few pages, and a fault in a memory map reads the disk's whole
	// read-ahead window around it (8 MiB on the machine of docs/BENCHMARKS.md's cold first call:
	// 140 MB read for a search of a 164 MB file); a read(2) of a page reads little more.
	NoMemoryMap bool
	// SubstringProgress, when set, hears how far the build of the view's substring index has
	// got when an upgrade (migration 0009) has to build it on open: done and total entries.
	SubstringProgress func(done, total int)
	// Upgrading, when set, hears the name of each migration an upgrade of an existing database
	// applies, before it runs (never when the database is created): a command tells its user
	// why the open waits (0035 tokenizes every entry again: about 3 minutes at a million).
	Upgrading func(migration string)
	// BackgroundMerges is for a process that stays open (annals serve, annals mcp): once its
	// writer has been quiet for a while, it merges the full-text indexes' increments in the
	// background, including what one-shot commands left (merge.go). Off, the handle never
	// merges: a one-shot command's pauses (parsing a large file) and its exit must not pay for
	// rewriting the whole index.
	BackgroundMerges bool
}

// DB is an annals.Store backed by one SQLite file.
type DB struct {
	path     string
	readOnly bool
	writer   *sql.DB // nil when read-only
	reader   *sql.DB
	stmts    *stmtCache                // the reader's prepared search statements
	wstmts   *writeStmts               // the writer's prepared statements (nil when read-only)
	embeds   *storecore.EmbeddingCache // decoded embeddings and FindEmbeddings' walks
	watch    *changeWatch              // tells the walks when anything was committed
	now      func() time.Time
	counts   *phraseCounts // the phrases' document counts rankFunc scores with
	// entryRanking makes chat searches rank entries even when the chat index could answer:
	// the tests compare the two rankings' match sets through it.
	entryRanking bool
	// builtinBM25 makes the searches score with FTS5's bm25 instead of rankFunc, for tests
	// that compare the two.
	builtinBM25 bool
	// candidates overrides rankCandidates (0: the constant), for tests of the cap.
	candidates int
	// allPageWords makes a page's passes seek every word of a prefix's expansion in each chat
	// (pageWordMatches off), for tests that compare the two.
	allPageWords bool
	// walkReadsChats makes a chat search's walk read each walked chat's row even when its MATCH
	// holds the chat filter, for tests that compare the two.
	walkReadsChats bool
	// pageRows makes a page read its matches a row each, not as lists, for tests that compare
	// the two.
	pageRows bool
	// noOwnerRanges turns the small owner's entry ranges off (search_entries_owner.go), for
	// tests that compare them with the walk.
	noOwnerRanges bool
	// entryFilter is how the searches name entries when they read only what the index of
	// migration 0025 holds (search_filter.go): through it when the schema has it.
	entryFilter string
	// facets: the entry index holds each entry's kind and tool as tokens (migration 0035,
	// search_facets.go); false on a database opened read-only before its upgrade.
	facets bool
	// facetProbe overrides facetProbe (0: the constant; below 0: no probe, the tokens always),
	// for tests.
	facetProbe int
	// ownerFacets: the entry index holds each entry's tenant and user as tokens (migration
	// 0036, search_owner.go); false on a database opened read-only before its upgrade.
	// noOwnerFacets turns them off for tests that compare the two.
	ownerFacets, noOwnerFacets bool
	// blocks overrides the chat document block limits (zero: the defaults), for tests of blocks.
	blocks blockLimits
	// here is where the file is now (this machine, the file's inode), for the host id's check.
	here annals.Fingerprint
	// wrote is set once this handle commits a write (a migration, a write transaction): only
	// then does Close fold the WAL back. A command that only read leaves the WAL to its writers
	// (a server using the file would otherwise pay for a read-only command's checkpoint).
	wrote atomic.Bool
	// outboxSignal wakes this process's push workers when a write that queued replication
	// operations commits.
	outboxSignal storecore.OutboxSignal
	// feedMarks holds the chats each open write transaction changed, for the change feed.
	feedMarks storecore.FeedMarks
	// mirrorOf is the remote this database mirrors ("": it is no mirror); every write but
	// ApplyMirror's is refused (mirror.go).
	mirrorOf atomic.Pointer[string]
	// merge folds the full-text indexes' increments into one segment in the background, once
	// they have grown by a share of the index (merge.go).
	merge merger
	// vocab keeps the chat index's vocabulary reads of prefixes until the index changes (prefix.go).
	vocab vocabCache
	// owners remembers which owners search by their token in the entry index (search_owner.go).
	owners ownerShares
}

var _ annals.Store = (*DB)(nil)

// Open opens (creating if needed) the database at path and applies pending migrations.
// The parent directory is created 0700 and the file 0600, because transcripts are private data.
// With opts.ReadOnly the file must already exist and carry a schema this binary understands.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, annals.Errorf(annals.EINVALID, "database path is empty")
	}
	if opts.QueryOnly && !opts.ReadOnly {
		return openQueryOnly(ctx, path, opts)
	}
	db := &DB{path: path, readOnly: opts.ReadOnly, now: opts.Now}
	db.feedMarks.AfterOff = opts.AfterFeedOff
	db.merge.on = opts.BackgroundMerges && !opts.ReadOnly
	if db.now == nil {
		db.now = time.Now
	}
	if opts.Readers <= 0 {
		opts.Readers = 4
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}

	if opts.ReadOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, &annals.Error{Code: annals.ENOTFOUND, Message: fmt.Sprintf("database %s does not exist (a read-only open never creates one)", path), Err: err}
		}
	} else if err := createPrivateFile(path); err != nil {
		return nil, err
	}

	if err := registerIndexText(); err != nil {
		return nil, annals.Internal("register the index text function", err)
	}
	registerRankHook()
	db.here = fingerprint(path)
	db.counts = newPhraseCounts()
	var err error
	if db.reader, err = sql.Open("sqlite", dsn(path, opts, true)); err != nil {
		return nil, annals.Internal("open reader", err)
	}
	db.reader.SetMaxOpenConns(opts.Readers)
	db.reader.SetMaxIdleConns(opts.Readers)
	db.stmts = newStmtCache(db.reader)
	db.embeds = storecore.NewEmbeddingCache(storecore.VectorCacheFloats)
	watch, err := sql.Open("sqlite", dsn(path, opts, true))
	if err != nil {
		db.reader.Close()
		return nil, annals.Internal("open change watch", err)
	}
	watch.SetMaxOpenConns(1)
	db.watch = &changeWatch{pool: watch}

	if !opts.ReadOnly {
		if db.writer, err = sql.Open("sqlite", dsn(path, opts, false)); err != nil {
			db.reader.Close()
			db.watch.close()
			return nil, annals.Internal("open writer", err)
		}
		db.writer.SetMaxOpenConns(1)
		db.writer.SetMaxIdleConns(1)
		db.writer.SetConnMaxLifetime(0)
		db.wstmts = newWriteStmts(db.writer)
		migrated, err := migrate(ctx, db.writer, opts.Upgrading)
		if migrated {
			db.wrote.Store(true)
		}
		if err != nil {
			db.Close()
			return nil, err
		}
		if err := db.backfillChatDocs(ctx, opts.Progress); err != nil {
			db.Close()
			return nil, err
		}
		if err := db.backfillSubstringIndex(ctx, opts.SubstringProgress, substringBatch); err != nil {
			db.Close()
			return nil, err
		}
	} else if err := checkSchema(ctx, db.reader); err != nil {
		db.Close()
		return nil, err
	}
	if db.facets, err = facetsIndexed(ctx, db.reader); err != nil {
		db.Close()
		return nil, err
	}
	if db.ownerFacets, err = ownerIndexed(ctx, db.reader); err != nil {
		db.Close()
		return nil, err
	}
	if db.entryFilter, err = entryFilterRef(ctx, db.reader); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.loadMirror(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// Increments one-shot commands left (they never merge) are merged by a handle that stays
	// open, once quiet, without waiting for a commit of its own (merge.go).
	db.kickMerge()
	return db, nil
}

// createPrivateFile makes the parent directory (0700) and an empty file (0600) so SQLite never
// creates the database with the process umask's wider default.
func createPrivateFile(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("cannot create database directory %s: %v", dir, errors.Unwrap(err)), Err: err}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("cannot open database file %s: %v", path, errors.Unwrap(err)), Err: err}
	}
	return f.Close()
}

// dsn builds a modernc.org/sqlite connection string. Pragmas are set per connection through
// _pragma so every pooled connection gets them, not just the first.
func dsn(path string, opts Options, reader bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", opts.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	if opts.ReadOnly {
		q.Set("mode", "ro")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	if reader {
		// Reader connections can never write, even by a bug in this package.
		q.Add("_pragma", "query_only(1)")
		// Reads through a memory map skip a copy into the page cache per page: a search reads
		// many index pages (1.37x on a common-term search at 1M entries, issue 16). Address
		// space only; writes still go through the writer's normal I/O.
		if !opts.NoMemoryMap {
			q.Add("_pragma", "mmap_size(2147418112)")
		}
	} else {
		// Writers take the write lock at BEGIN, so a transaction never fails half-way on an
		// upgrade from a read lock.
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Path returns the database file path.
func (db *DB) Path() string { return db.path }

// ReadOnly reports whether the database was opened read-only.
func (db *DB) ReadOnly() bool { return db.readOnly }

// Close closes both pools.
func (db *DB) Close() error {
	var errs []error
	if db.writer != nil {
		db.stopMerges()
		db.wstmts.close()
		// Fold the WAL back into the main file so a database this process wrote is one file
		// again once closed; a handle that never wrote checkpoints nothing.
		if db.wrote.Load() {
			_, _ = db.writer.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		}
		errs = append(errs, db.writer.Close())
	}
	if db.reader != nil {
		db.stmts.close()
		errs = append(errs, db.reader.Close())
	}
	if db.watch != nil {
		errs = append(errs, db.watch.close())
	}
	return errors.Join(errs...)
}

// errReadOnly is returned by every write on a read-only store.
func errReadOnly() error {
	return annals.Errorf(annals.EFORBIDDEN, "the database is open read-only; writes are refused (open it without read-only mode to change it)")
}

// writeTx runs fn in one write transaction, committing only if fn succeeds. Before the commit
// it indexes the entries fn added or changed and rebuilds the search documents of the chats fn
// changed, so no reader ever sees a stale index.
func (db *DB) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.writeTxThen(ctx, fn, func(tx *sql.Tx) error {
		return flushChatDocsIn(ctx, db.wstmts.of(tx), math.MaxInt64, db.blockLimits())
	})
}

// writeTxThen is writeTx with the chat-document step before the commit given (the backfill
// bounds its own). The entry indexes are always brought up to date (flushEntryIndex).
func (db *DB) writeTxThen(ctx context.Context, fn, before func(tx *sql.Tx) error) error {
	if db.readOnly {
		return errReadOnly()
	}
	if remote := db.mirrorOf.Load(); remote != nil {
		return annals.ErrMirror(*remote)
	}
	return db.runWriteTx(ctx, fn, before)
}

// runWriteTx is writeTxThen without the checks (a mirror's own writes, ApplyMirror).
func (db *DB) runWriteTx(ctx context.Context, fn, before func(tx *sql.Tx) error) error {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return storeErr("begin", err)
	}
	committed := false
	ct := db.wstmts.begin(tx)
	defer func() {
		db.outboxSignal.Ended(tx, committed)
		db.feedMarks.Forget(tx)
		db.wstmts.end(ctx, ct)
	}()
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := flushEntryIndex(ctx, ct); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := before(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := db.writeFeed(ctx, tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return storeErr("commit", err)
	}
	committed = true
	db.kickMerge()
	db.wrote.Store(true)
	return nil
}

// storeErr classifies a driver error: context ends and busy databases are unavailable,
// anything else internal. An *annals.Error passes through unchanged.
func storeErr(op string, err error) error {
	var ae *annals.Error
	if errors.As(err, &ae) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &annals.Error{Code: annals.EUNAVAILABLE, Message: "the request was cancelled or timed out", Err: fmt.Errorf("%s: %w", op, err)}
	}
	if msg := err.Error(); strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked") {
		return &annals.Error{Code: annals.EUNAVAILABLE, Message: "the database is busy (another process holds its write lock); try again", Err: fmt.Errorf("%s: %w", op, err)}
	}
	return annals.Internal(op, err)
}
