package sqlite

import (
	"container/list"
	"context"
	"database/sql"
	"sync"
)

// The search statements are long (a dozen CTEs) and the same text each time for the same query
// shape, yet database/sql prepares a statement for every query it is handed as text: parsing
// and planning was a tenth of a common-term search's CPU at 1M entries (issue 16). stmtCache
// keeps the reader pool's prepared statements of those texts; database/sql keeps each one
// prepared on every reader connection that has run it.

// stmtCacheSize is how many statement texts the cache keeps (least recently used out): the
// searches' shapes, each with and without filters, sorts and snippets, and the query view's
// (POST /query: a transcript page is four short statements, and parsing them was a fifth of its
// CPU, issue 32).
const stmtCacheSize = 128

// queryer runs statements: a transaction, or a search's read transaction through the cache.
type queryer interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// stmtCache is an LRU of prepared statements on the reader pool, by their text.
type stmtCache struct {
	pool *sql.DB
	max  int // stmtCacheSize; tests set less
	mu   sync.Mutex
	byQ  map[string]*list.Element // of *cachedStmt
	lru  *list.List               // most recently used first
}

type cachedStmt struct {
	q  string
	st *sql.Stmt
}

func newStmtCache(pool *sql.DB) *stmtCache {
	return &stmtCache{pool: pool, max: stmtCacheSize, byQ: map[string]*list.Element{}, lru: list.New()}
}

// lookup returns the statement prepared for q, or nil.
func (c *stmtCache) lookup(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byQ[q]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cachedStmt).st
}

// prepare prepares q on the pool and keeps it. It takes a pool connection of its own, so it must
// not run while its caller holds one in a transaction: with every reader connection in a
// transaction that waits for another, none would come back. A statement that does not prepare
// is not kept; its query reports the error when it runs.
func (c *stmtCache) prepare(ctx context.Context, q string) *sql.Stmt {
	if st := c.lookup(q); st != nil {
		return st
	}
	st, err := c.pool.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byQ[q]; ok { // prepared meanwhile by another search
		_ = st.Close()
		return el.Value.(*cachedStmt).st
	}
	c.byQ[q] = c.lru.PushFront(&cachedStmt{q: q, st: st})
	for c.lru.Len() > c.max {
		old := c.lru.Remove(c.lru.Back()).(*cachedStmt)
		delete(c.byQ, old.q)
		// database/sql closes it once the transactions using it end.
		_ = old.st.Close()
	}
	return st
}

// close closes every statement kept.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, el := range c.byQ {
		_ = el.Value.(*cachedStmt).st.Close()
	}
	c.byQ, c.lru = map[string]*list.Element{}, list.New()
}

// query runs q on the pool (not in a transaction) through the cache.
func (c *stmtCache) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := c.prepare(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.pool.QueryContext(ctx, q, args...)
}

// queryRow runs q, a statement of one row, on the pool (not in a transaction) through the cache.
func (c *stmtCache) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if st := c.prepare(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.pool.QueryRowContext(ctx, q, args...)
}

// readTx is a read transaction on the reader pool whose statements come from the cache. A text
// the cache does not hold yet runs unprepared and is prepared by end, once the transaction has
// given its connection back (see prepare).
type readTx struct {
	tx     *sql.Tx
	cache  *stmtCache
	missed []string
}

func (r *readTx) stmt(ctx context.Context, q string) *sql.Stmt {
	if st := r.cache.lookup(q); st != nil {
		return r.tx.StmtContext(ctx, st)
	}
	r.missed = append(r.missed, q)
	return nil
}

// QueryContext runs q in the transaction.
func (r *readTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := r.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return r.tx.QueryContext(ctx, q, args...)
}

// QueryRowContext runs q, a statement of one row, in the transaction.
func (r *readTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := r.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return r.tx.QueryRowContext(ctx, q, args...)
}

// end rolls the transaction back (it only read) and prepares the texts it missed.
func (r *readTx) end(ctx context.Context) {
	_ = r.tx.Rollback()
	if ctx.Err() != nil {
		return
	}
	for _, q := range r.missed {
		r.cache.prepare(ctx, q)
	}
}
