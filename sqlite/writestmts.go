package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// The writer's statements are prepared once per process, not once per transaction. database/sql
// prepares a statement for every text a transaction is handed (tx.ExecContext, tx.Prepare), and
// an import writes a file per transaction or two: parsing the same dozen statements again (the
// capture's inserts, the entry index's and the chat documents' flushes) was a tenth of its CPU
// (issue 33 item 7). The writer pool has one connection, so a statement prepared on the pool is
// prepared on that connection, and a transaction uses it through tx.StmtContext.

// txRunner runs a write transaction's statements: a *sql.Tx, or a cachedTx over one.
type txRunner interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// cachedTx is a write transaction whose statements come from the writer's statement cache. A
// text the cache does not hold yet runs as the transaction prepares it, and is prepared on the
// pool once the transaction has given the connection back (writeStmts.end): preparing on the
// pool inside the transaction would wait for the one connection the transaction holds.
type cachedTx struct {
	tx     *sql.Tx
	cache  *stmtCache
	stmts  map[string]*sql.Stmt // the transaction's handles of cached statements
	missed []string
}

// stmt returns the transaction's handle of the cached statement for q, or nil (noting the miss).
// A nil cachedTx (a writer made without one) caches nothing.
func (t *cachedTx) stmt(ctx context.Context, q string) *sql.Stmt {
	if t == nil {
		return nil
	}
	if s, ok := t.stmts[q]; ok {
		return s
	}
	st := t.cache.lookup(q)
	if st == nil {
		t.missed = append(t.missed, q)
		return nil
	}
	s := t.tx.StmtContext(ctx, st) // closed with the transaction
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[q] = s
	return s
}

// ExecContext runs q in the transaction.
func (t *cachedTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if s := t.stmt(ctx, q); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, q, args...)
}

// QueryContext runs q in the transaction.
func (t *cachedTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if s := t.stmt(ctx, q); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, q, args...)
}

// QueryRowContext runs q, a statement of one row, in the transaction.
func (t *cachedTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if s := t.stmt(ctx, q); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, q, args...)
}

// writeStmts is the writer's statement cache and the cachedTx of each open write transaction.
type writeStmts struct {
	cache *stmtCache
	mu    sync.Mutex
	open  map[*sql.Tx]*cachedTx
	// missed counts the statements write transactions ran that the cache did not hold.
	missed int
}

func newWriteStmts(pool *sql.DB) *writeStmts {
	return &writeStmts{cache: newStmtCache(pool), open: map[*sql.Tx]*cachedTx{}}
}

// begin registers tx, so that of (from inside it) finds its cachedTx.
func (w *writeStmts) begin(tx *sql.Tx) *cachedTx {
	ct := &cachedTx{tx: tx, cache: w.cache}
	w.mu.Lock()
	w.open[tx] = ct
	w.mu.Unlock()
	return ct
}

// of returns the cachedTx of tx, or a cachedTx of its own for a transaction begin did not see.
func (w *writeStmts) of(tx *sql.Tx) *cachedTx {
	w.mu.Lock()
	ct := w.open[tx]
	w.mu.Unlock()
	if ct == nil {
		ct = &cachedTx{tx: tx, cache: w.cache}
	}
	return ct
}

// end forgets tx, which has committed or rolled back, and prepares on the pool the texts it
// ran that the cache did not hold. A text that does not prepare is not kept.
func (w *writeStmts) end(ctx context.Context, ct *cachedTx) {
	w.mu.Lock()
	delete(w.open, ct.tx)
	w.missed += len(ct.missed)
	w.mu.Unlock()
	for _, q := range ct.missed {
		if ctx.Err() != nil {
			return
		}
		w.cache.prepare(ctx, q)
	}
}

// close closes every statement kept.
func (w *writeStmts) close() { w.cache.close() }

// rowContext is the context of a one-row statement of the writer (an entry, a source id, a run,
// a chat's lookup), or ctx's error once it has ended. The driver watches a cancellable context
// with a goroutine and a progress handler per statement, and a capture runs a statement or more
// per entry: that watch was ~8% of an import's CPU, to interrupt statements of microseconds.
// Cancellation still ends the capture: each statement checks ctx first, and database/sql rolls
// the transaction back when ctx ends; the transaction's larger statements (the entry indexes,
// the chat documents) keep ctx.
func (w *writer) rowContext() (context.Context, error) {
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	if w.rowCtx == nil {
		w.rowCtx = context.WithoutCancel(w.ctx)
	}
	return w.rowCtx, nil
}
