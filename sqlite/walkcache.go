package sqlite

import (
	"context"
	"database/sql"
	"sync"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// The candidate walks of FindEmbeddings (the newest 2,000 vectors of a scope, read through the
// chat index) cost related, semantic and hybrid search about 10 ms of CPU per call at 10k chats,
// most of a related call once the vector cache holds the vectors (docs/BENCHMARKS.md). Their
// result changes only when something is committed, so it is kept between calls and reused
// until any connection — this process's writer or another process's — commits to the file.

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

// walkCacheEntries bounds the walks kept: one per scope and model searched since the last
// commit (about 260 KB each at the 2,000 cap).
const walkCacheEntries = 32

// walkKey is a walk as cached: ExcludeChatID is applied after the walk (a walk one deeper
// serves every source chat of a scope) and single-chat reads (ChatID) are never cached.
type walkKey struct {
	owner    annals.Owner
	model    string
	archived bool
	limit    int
}

type cachedWalk struct {
	gen  uint64
	rows []annals.ChatVector // without vectors
	pos  []candidateRow      // rows[i]'s row and stamp
}

type walkCache struct {
	mu    sync.Mutex
	walks map[walkKey]cachedWalk
}

func newWalkCache() *walkCache { return &walkCache{walks: map[walkKey]cachedWalk{}} }

func (c *walkCache) get(k walkKey, gen uint64) (cachedWalk, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.walks[k]
	return w, ok && w.gen == gen
}

// put keeps w under k, dropping every walk of an older generation (never to be served again)
// and, when still full, an arbitrary one.
func (c *walkCache) put(k walkKey, w cachedWalk) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for old, e := range c.walks {
		if e.gen != w.gen {
			delete(c.walks, old)
		}
	}
	for old := range c.walks {
		if len(c.walks) < walkCacheEntries {
			break
		}
		delete(c.walks, old)
	}
	c.walks[k] = w
}

// cachedCandidates answers f from a walk kept since the last commit, when every candidate's
// vector is in the vector cache too; ok is false otherwise (the caller walks). The walk is kept
// one deeper than the cap and the excluded chat dropped here, which is the same as excluding it
// in SQL: the newest cap chats other than it.
func (db *DB) cachedCandidates(k walkKey, gen uint64, exclude string) ([]annals.ChatVector, bool) {
	w, ok := db.walks.get(k, gen)
	if !ok {
		return nil, false
	}
	out := make([]annals.ChatVector, 0, len(w.rows))
	for i, r := range w.rows {
		if r.ChatID == exclude {
			continue
		}
		if len(out) == k.limit-1 {
			break
		}
		v, ok := db.vectors.get(w.pos[i].pk, w.pos[i].stamp)
		if !ok {
			return nil, false
		}
		r.Vector = v
		out = append(out, r)
	}
	return out, true
}

// walkKeyOf is f's cache key, with the walk's cap one deeper (see cachedCandidates); ok is false
// for a single-chat read.
func walkKeyOf(f annals.EmbeddingFilter) (walkKey, bool) {
	if f.ChatID != "" {
		return walkKey{}, false
	}
	return walkKey{owner: f.Owner, model: f.Model, archived: f.IncludeArchived, limit: storecore.EmbeddingLimit(f) + 1}, true
}
