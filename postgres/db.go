// Package postgres is the annals Store on PostgreSQL, for teams that run many stateless annals
// servers against one database. It implements the same contract as the SQLite store (the
// storetest and historytest suites run against both), with its own SQL and migrations.
//
// Design notes (docs/POSTGRES.md has the long form):
//   - Connections come from a pgx pool. Every capture batch is one transaction that locks the
//     chat rows it appends to (SELECT ... FOR UPDATE), so seq numbers stay contiguous however
//     many servers append to one chat at once; deadlocks and serialization failures between
//     batches are retried.
//   - Full text uses tsvector columns with GIN indexes. The vectors are built in Go: text is split
//     with query.Tokenize (the tokenizer SQLite's unicode61 uses) and folded with query.Fold, so
//     both backends find the same tokens, and no text search configuration or extension
//     (unaccent) is needed. Queries are tsquery values built from the parsed tree and bound as
//     parameters, never concatenated into SQL.
//   - Times are bigint unix nanoseconds, as in SQLite, so copies between backends are exact.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// Options configure Open. Each field left zero falls back to the connection string (pgx's
// pool_max_conns, PostgreSQL's statement_timeout and connect_timeout parameters), then to a
// default.
type Options struct {
	// PoolSize is the most connections the pool opens; 0 means the DSN's pool_max_conns, else
	// the larger of 4 and the number of CPUs.
	PoolSize int
	// StatementTimeout cancels any statement running longer (the server's statement_timeout);
	// 0 means the DSN's statement_timeout, else none.
	StatementTimeout time.Duration
	// ConnectTimeout bounds establishing one connection; 0 means the DSN's connect_timeout,
	// else 10s.
	ConnectTimeout time.Duration
	// ReadOnly refuses every write at the API and opens transactions read-only; no migration
	// runs, and the schema must exist already.
	ReadOnly bool
	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
	// AfterFeedOff, when set (tests only), is called inside a write transaction right after it
	// found the database's change feed off, before it commits without feed rows: a test pauses
	// a writer there while the feed is switched on (storetest.RunFeedSwitchWaitsForWriter).
	AfterFeedOff func()
}

// DB is an annals.Store backed by a PostgreSQL database (one schema of it: the connection's
// search_path decides which).
type DB struct {
	pool     *pgxpool.Pool
	readOnly bool
	now      func() time.Time
	// addr names the server (host:port) in messages; never the password.
	addr string
	// here is where the database is (cluster, database, schema), for the host id's check.
	here annals.Fingerprint
	// writes counts committed write transactions, for the vocabulary's folds (vocab.go).
	writes atomic.Int64
	// candidates, when set (tests), replaces docCandidates for an entry search.
	candidates int
	// wholeWalks, when set (tests), walks the whole table at once instead of by pk windows
	// (search_entry_window.go), the reference a windowed walk's results must equal.
	wholeWalks bool
	// denseBlocks, when set (tests), replaces denseBlocks for the view's substring search.
	denseBlocks int
	// outboxSignal wakes this process's push workers when a write that queued replication
	// operations commits.
	outboxSignal storecore.OutboxSignal
	// feedMarks holds the chats each open write transaction changed, for the change feed.
	feedMarks storecore.FeedMarks
	// mirrorOf is the remote this database mirrors (nil: it is no mirror); every write but
	// ApplyMirror's is refused (mirror.go).
	mirrorOf atomic.Pointer[string]
	// embeds keeps decoded vectors and FindEmbeddings' walks (vectorcache.go); snapshots
	// numbers the cluster's snapshots, its generation.
	embeds    *storecore.EmbeddingCache
	snapshots snapshotGeneration
}

var (
	_ annals.Store     = (*DB)(nil)
	_ annals.Rescanner = (*DB)(nil)
)

// maxTxAttempts bounds how often a write transaction is retried after a deadlock or a
// serialization failure with another server's transaction.
const maxTxAttempts = 5

// Open connects to the database named by dsn (postgres://user:pass@host:port/db?params, or the
// key=value form), checks that it answers, and applies pending migrations under an advisory
// lock, so several servers starting at once migrate once.
//
// Errors: invalid (a malformed dsn), unavailable (the server cannot be reached, refuses the
// login, or holds a schema newer than this binary), internal.
func Open(ctx context.Context, dsn string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgconn's message may quote the connection string; say only what was wrong.
		msg := "invalid PostgreSQL connection string"
		if inner := errors.Unwrap(err); inner != nil {
			msg += ": " + inner.Error()
		}
		return nil, &annals.Error{Code: annals.EINVALID, Message: msg, Err: err}
	}
	if opts.PoolSize > 0 {
		cfg.MaxConns = int32(opts.PoolSize)
	}
	if opts.ConnectTimeout > 0 {
		cfg.ConnConfig.ConnectTimeout = opts.ConnectTimeout
	} else if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	if opts.StatementTimeout > 0 {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10)
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]; !ok {
		// pgx prepares and caches every statement, and after five runs PostgreSQL may switch a
		// cached statement to its generic plan, planned without the bound values. A search's
		// plan depends on them (how common a term is, how large an owner's share): generic
		// plans took 10x the time of the same SQL planned with its values (issue 16: a
		// common-term search at 100k entries, 309 ms against 26 ms).
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["jit"]; !ok {
		// The store's statements are short, and the planner's cost of many is high only because
		// its estimates are wrong (chat documents have no statistics; a page's entries right
		// after a bulk load): past jit_above_cost PostgreSQL compiles the statement first, 20-30
		// ms of LLVM per run for a statement that runs in a few (a page's snippets at 1M
		// entries: 34 ms, 27 of them JIT). Nothing the store runs is long enough to win it back.
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "annals"
	}
	if opts.ReadOnly {
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	db := &DB{readOnly: opts.ReadOnly, now: opts.Now, embeds: storecore.NewEmbeddingCache(storecore.VectorCacheFloats), addr: net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port)))}
	db.feedMarks.AfterOff = opts.AfterFeedOff
	if strings.HasPrefix(cfg.ConnConfig.Host, "/") {
		db.addr = cfg.ConnConfig.Host // a Unix socket directory
	}
	if db.now == nil {
		db.now = time.Now
	}
	db.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, db.storeErr("connect", err)
	}
	if err := db.pool.Ping(ctx); err != nil {
		db.pool.Close()
		return nil, db.storeErr("connect", err)
	}
	if opts.ReadOnly {
		err = db.checkSchema(ctx, db.pool)
	} else if err = db.migrate(ctx); err == nil {
		err = db.reindexPlaceholders(ctx)
	}
	if err == nil {
		db.here, err = db.fingerprint(ctx)
	}
	if err == nil {
		err = db.loadMirror(ctx)
	}
	if err != nil {
		db.pool.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// ReadOnly reports whether the store was opened read-only.
func (db *DB) ReadOnly() bool { return db.readOnly }

// Addr is the server the store talks to, host:port, for messages and logs.
func (db *DB) Addr() string { return db.addr }

// errReadOnly is returned by every write on a read-only store.
func errReadOnly() error {
	return annals.Errorf(annals.EFORBIDDEN, "the database is open read-only; writes are refused (open it without read-only mode to change it)")
}

// writeTx runs fn in one read-write transaction, committing only if fn succeeds. A deadlock or
// serialization failure (another server's transaction touched the same rows in another order)
// rolls back and runs fn again from the start, so fn must not keep state across calls.
func (db *DB) writeTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if db.readOnly {
		return errReadOnly()
	}
	if remote := db.mirrorOf.Load(); remote != nil {
		return annals.ErrMirror(*remote)
	}
	return db.runWriteTx(ctx, fn)
}

// runWriteTx is writeTx without the checks (a mirror's own writes, ApplyMirror).
func (db *DB) runWriteTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	var err error
	for attempt := 1; attempt <= maxTxAttempts; attempt++ {
		err = db.tryTx(ctx, fn)
		if err == nil {
			db.noteWrite(ctx)
			break
		}
		if !retryable(err) || ctx.Err() != nil {
			break
		}
		// Back off a little, more each time, so two servers do not collide again in step.
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt*attempt) * 5 * time.Millisecond):
		}
	}
	return err
}

func (db *DB) tryTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	// READ COMMITTED by name, not by the server's default: the change feed's switch-on
	// (EnableFeed, annals_feed_serving()) reads its flag again after waiting for a lock and needs
	// a fresh snapshot for that read, which a REPEATABLE READ default would not give.
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return db.storeErr("begin", err)
	}
	committed := false
	defer func() {
		db.outboxSignal.Ended(tx, committed)
		db.feedMarks.Forget(tx)
	}()
	if err := fn(tx); err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := db.writeFeed(ctx, tx); err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return db.storeErr("commit", err)
	}
	committed = true
	return nil
}

// retryable reports a failure that a fresh attempt of the same transaction may not meet.
func retryable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40001" || pe.Code == "40P01"
	}
	return false
}

// storeErr classifies a driver error. An *annals.Error passes through unchanged; a cancelled
// context, a statement timeout, a lost or refused connection and an overloaded server are
// unavailable; a write on a read-only transaction is forbidden; anything else is internal. The
// cause stays wrapped for logs; messages name the server by host:port, never the password.
func (db *DB) storeErr(op string, err error) error {
	var ae *annals.Error
	if errors.As(err, &ae) {
		return err
	}
	wrapped := fmt.Errorf("%s: %w", op, err)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &annals.Error{Code: annals.EUNAVAILABLE, Message: "the request was cancelled or timed out", Err: wrapped}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "57014":
			return &annals.Error{Code: annals.EUNAVAILABLE, Message: "the database statement timed out or was cancelled (see statement_timeout in docs/POSTGRES.md)", Err: wrapped}
		case pe.Code == "40001" || pe.Code == "40P01":
			return &annals.Error{Code: annals.EUNAVAILABLE, Message: "the write collided with concurrent writes too often; try again", Err: wrapped}
		case pe.Code == "22021":
			// A text parameter holding U+0000: no id, tag, channel or key can hold one (they are
			// refused at write), so the value names nothing PostgreSQL text could store.
			return &annals.Error{Code: annals.EINVALID, Message: "a filter value contains a NUL character, which no id, tag, channel or key can hold", Err: wrapped}
		case pe.Code == "25006":
			return &annals.Error{Code: annals.EFORBIDDEN, Message: "the database connection is read-only; writes are refused", Err: wrapped}
		case pe.Code == "28P01" || pe.Code == "28000":
			return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("PostgreSQL at %s refused the login: %s", db.addr, pe.Message), Err: wrapped}
		case pe.Code == "3D000":
			return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("PostgreSQL at %s: %s", db.addr, pe.Message), Err: wrapped}
		case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "53"), strings.HasPrefix(pe.Code, "57P"):
			return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("PostgreSQL at %s is unavailable: %s", db.addr, pe.Message), Err: wrapped}
		}
		return annals.Internal(op, err)
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "closed pool") {
		return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("cannot reach PostgreSQL at %s: %s", db.addr, connectReason(err)), Err: wrapped}
	}
	return annals.Internal(op, err)
}

// connectReason is the innermost cause of a connection failure ("connection refused", "i/o
// timeout"), which names no credentials.
func connectReason(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		err = inner
	}
	msg := err.Error()
	if strings.Contains(msg, "password") || strings.Contains(msg, "://") {
		return "connection failed"
	}
	return msg
}

// querier is what pool, connection and transaction share.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}
