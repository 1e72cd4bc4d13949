package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// The candidate walks of FindEmbeddings (the newest 2,000 vectors of a scope, read through the
// chat index) cost related, semantic and hybrid search about 10 ms of CPU per call at 10k chats,
// most of a related call once the vector cache holds the vectors (docs/BENCHMARKS.md). Their
// result changes only when something is committed, so it is kept between calls
// (storecore.EmbeddingCache) and reused until any connection — this process's writer or another
// process's — commits to the file: the generation below.

// changeWatch tells whether anything was committed to the database since it last looked, by any
// connection of any process: PRAGMA data_version on one connection of its own changes whenever
// another connection committed (SQLite's documented cache-invalidation signal, WAL included).
// The values of two connections are not comparable, so the connection is held for good; when it
// fails and is replaced, the generation moves on as if something had changed.
type changeWatch struct {
	mu   sync.Mutex
	pool *sql.DB // one connection, read-only
	conn *sql.Conn
	last int64
	gen  uint64
}

// generation returns a number that is the same as at an earlier call only if nothing was
// committed to the database in between.
func (w *changeWatch) generation(ctx context.Context) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn == nil {
		c, err := w.pool.Conn(ctx)
		if err != nil {
			return 0, storeErr("watch changes", err)
		}
		w.conn = c
		w.gen++
		if err := c.QueryRowContext(ctx, "PRAGMA data_version").Scan(&w.last); err != nil {
			w.drop()
			return 0, storeErr("watch changes", err)
		}
		return w.gen, nil
	}
	var v int64
	if err := w.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		w.drop()
		return 0, storeErr("watch changes", err)
	}
	if v != w.last {
		w.last = v
		w.gen++
	}
	return w.gen, nil
}

func (w *changeWatch) drop() {
	if w.conn != nil {
		_ = w.conn.Close()
		w.conn = nil
	}
	w.gen++
}

func (w *changeWatch) close() error {
	w.mu.Lock()
	w.drop()
	w.mu.Unlock()
	return w.pool.Close()
}
