package storecore

import (
	"fmt"
	"sync"

	"github.com/annals-dev/annals"
)

// The vector cache of FindEmbeddings, the same in both stores (docs/POSTGRES.md, "The vector
// cache"). related, semantic and hybrid search read the newest 2,000 vectors of a scope at every
// call; kept in memory, a call reads the candidate walk's ids and stamps, not megabytes of
// vectors that the driver copies and Go decodes, and while nothing was committed since a walk
// was read, not even the walk.
//
// Two rules keep it correct across processes and servers sharing one database:
//   - a vector is served only while its row still has the stamp it was read with (chat id, model
//     and updated_at, which UpsertEmbedding moves forward on every write: max(now, previous + 1));
//   - a walk is served only under the generation it was read at, a number the store derives
//     from the database itself (SQLite: PRAGMA data_version; PostgreSQL: the cluster's
//     transaction snapshot) that is the same at two calls only if nothing was committed in
//     between, by any connection of any process.

// VectorCacheFloats bounds the decoded vectors a store keeps: 8M float32s (32 MiB), 16k chats at
// 512 dimensions.
const VectorCacheFloats = 8 << 20

// walkCacheEntries bounds the walks kept: one per scope and model searched since the last
// commit (about 260 KB each at the 2,000 cap).
const walkCacheEntries = 32

// WalkColumns are the columns of a cached store's candidate walks: no vector, its row's pk and
// stamp instead.
const WalkColumns = "c.id, v.model, c.last_activity, v.chat_pk, v.updated_at"

// VectorStamp identifies one version of a chat's stored vector.
type VectorStamp struct {
	ChatID, Model string
	Updated       int64
}

// CandidateRow is a walk row of FindEmbeddings before its vector: where to find it and which
// version it is.
type CandidateRow struct {
	PK    int64
	Stamp VectorStamp
}

// EmbeddingRead is one consistent read of a store (one snapshot): the walk and the vectors it
// chose are of the same versions.
type EmbeddingRead interface {
	// Walk runs one candidate walk (EmbeddingWalk with WalkColumns) and notes each row's pk and
	// stamp in rowOf.
	Walk(q string, args []any, rowOf map[string]CandidateRow) ([]annals.ChatVector, error)
	// Vectors reads and decodes the vectors of rows pks, each a slice of its own (a cached
	// vector must not keep others alive), handing each to got.
	Vectors(pks []int64, got func(pk int64, vec []float32)) error
}

// EmbeddingCache is a store's vector cache and candidate walk cache.
type EmbeddingCache struct {
	vectors *vectorCache
	walks   *walkCache
}

// NewEmbeddingCache returns an empty cache keeping at most floats decoded floats.
func NewEmbeddingCache(floats int) *EmbeddingCache {
	return &EmbeddingCache{vectors: newVectorCache(floats), walks: newWalkCache()}
}

// Forget drops row pk's vector (this process just rewrote it).
func (c *EmbeddingCache) Forget(pk int64) { c.vectors.forget(pk) }

// WalksKept is how many candidate walks are kept, and how many of them are of generation gen.
func (c *EmbeddingCache) WalksKept(gen uint64) (kept, current int) {
	c.walks.mu.Lock()
	defer c.walks.mu.Unlock()
	for _, w := range c.walks.walks {
		kept++
		if w.gen == gen {
			current++
		}
	}
	return kept, current
}

// Find is annals.EmbeddingStore.FindEmbeddings through the cache. generation is the store's
// generation, read before the walk's snapshot begins (a commit in between leaves the walk kept
// under the older generation, which the next call no longer serves); an error there only turns
// the walk cache off for the call. begin opens one consistent read and its end.
func (c *EmbeddingCache) Find(f annals.EmbeddingFilter, generation func() (uint64, error), begin func() (EmbeddingRead, func(), error)) ([]annals.ChatVector, error) {
	key, cacheable := walkKeyOf(f)
	var gen uint64
	if cacheable {
		g, err := generation()
		if out, ok := c.cachedCandidates(key, g, f.ExcludeChatID); err == nil && ok {
			return out, nil
		}
		gen, cacheable = g, err == nil
	}
	walk := f
	if cacheable {
		walk.ExcludeChatID, walk.Limit = "", key.limit
	}
	read, end, err := begin()
	if err != nil {
		return nil, err
	}
	defer end()
	rowOf := map[string]CandidateRow{}
	out, err := FindEmbeddings(walk, WalkColumns, func(q string, args []any) ([]annals.ChatVector, error) {
		return read.Walk(q, args, rowOf)
	})
	if err != nil {
		return nil, err
	}
	if cacheable {
		out = c.keepWalk(key, gen, out, rowOf, f.ExcludeChatID)
	}
	var missing []int64
	at := map[int64]int{}
	for i := range out {
		r := rowOf[out[i].ChatID]
		if v, ok := c.vectors.get(r.PK, r.Stamp); ok {
			out[i].Vector = v
			continue
		}
		missing = append(missing, r.PK)
		at[r.PK] = i
	}
	if len(missing) == 0 {
		return out, nil
	}
	// The walk and this read share a snapshot, so each vector read is the version its walk row
	// stamped.
	if err := read.Vectors(missing, func(pk int64, vec []float32) {
		i, ok := at[pk]
		if !ok {
			return
		}
		out[i].Vector = vec
		c.vectors.put(pk, rowOf[out[i].ChatID].Stamp, vec)
	}); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Vector == nil {
			// Within one snapshot every row the walk met is there.
			return nil, annals.Internal("read embeddings", fmt.Errorf("the vector of chat %s vanished within one read", out[i].ChatID))
		}
	}
	return out, nil
}

// keepWalk keeps a walk one deeper than the cap under gen and returns it as f asked for it:
// without the excluded chat, at most the cap.
func (c *EmbeddingCache) keepWalk(key walkKey, gen uint64, rows []annals.ChatVector, rowOf map[string]CandidateRow, exclude string) []annals.ChatVector {
	w := cachedWalk{gen: gen, rows: make([]annals.ChatVector, len(rows)), pos: make([]CandidateRow, len(rows))}
	copy(w.rows, rows)
	for i, r := range rows {
		w.pos[i] = rowOf[r.ChatID]
	}
	c.walks.put(key, w)
	out := rows[:0]
	for _, r := range rows {
		if r.ChatID != exclude && len(out) < key.limit-1 {
			out = append(out, r)
		}
	}
	return out
}

// cachedCandidates answers a walk from one kept at gen, when every candidate's vector is in the
// vector cache too; ok is false otherwise (the caller walks). The walk is kept one deeper than
// the cap and the excluded chat dropped here, which is the same as excluding it in SQL: the
// newest cap chats other than it.
func (c *EmbeddingCache) cachedCandidates(k walkKey, gen uint64, exclude string) ([]annals.ChatVector, bool) {
	w, ok := c.walks.get(k, gen)
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
		v, ok := c.vectors.get(w.pos[i].PK, w.pos[i].Stamp)
		if !ok {
			return nil, false
		}
		r.Vector = v
		out = append(out, r)
	}
	return out, true
}

// vectorCache holds decoded embeddings by chat row. The slices are shared between callers, who
// only read them.
type vectorCache struct {
	mu     sync.Mutex
	budget int // floats
	floats int
	byPK   map[int64]cachedVector
}

type cachedVector struct {
	stamp VectorStamp
	vec   []float32
}

func newVectorCache(budget int) *vectorCache {
	return &vectorCache{budget: budget, byPK: map[int64]cachedVector{}}
}

// get returns the vector of row pk if the cache holds the version st.
func (c *vectorCache) get(pk int64, st VectorStamp) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byPK[pk]
	if !ok || e.stamp != st {
		return nil, false
	}
	return e.vec, true
}

// put keeps vec as row pk's version st; when over budget it first drops arbitrary entries
// (map order) down to three quarters of it, so a scan wider than the cache costs a few
// evictions per call, not one per vector.
func (c *vectorCache) put(pk int64, st VectorStamp, vec []float32) {
	if len(vec) > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byPK[pk]; ok {
		c.floats -= len(old.vec)
	}
	if c.floats+len(vec) > c.budget {
		for k, e := range c.byPK {
			if c.floats+len(vec) <= c.budget*3/4 {
				break
			}
			delete(c.byPK, k)
			c.floats -= len(e.vec)
		}
	}
	c.byPK[pk] = cachedVector{stamp: st, vec: vec}
	c.floats += len(vec)
}

// forget drops row pk.
func (c *vectorCache) forget(pk int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byPK[pk]; ok {
		delete(c.byPK, pk)
		c.floats -= len(e.vec)
	}
}

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
	pos  []CandidateRow      // rows[i]'s row and stamp
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

// put keeps w under k, dropping every walk of another generation (never to be served again)
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

// walkKeyOf is f's cache key, with the walk's cap one deeper (see cachedCandidates); ok is false
// for a single-chat read.
func walkKeyOf(f annals.EmbeddingFilter) (walkKey, bool) {
	if f.ChatID != "" {
		return walkKey{}, false
	}
	return walkKey{owner: f.Owner, model: f.Model, archived: f.IncludeArchived, limit: EmbeddingLimit(f) + 1}, true
}
