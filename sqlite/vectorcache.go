package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/internal/vector"
)

// vectorCacheFloats bounds the decoded vectors a DB keeps: 8M float32s (32 MiB), 16k chats at
// 512 dimensions. related reads the newest 2,000 vectors of a scope at every call; with them
// in memory its walk reads the chat index and each vector's stamp, not 4 MB of blobs that the
// driver copies and Go decodes (three quarters of a related call's CPU at 1M entries, issue 16).
const vectorCacheFloats = 8 << 20

// vectorCache holds decoded embeddings by chat row. An entry is used only while the row still
// has the stamp it was read with: the chat id (a pk a deleted chat left may be taken by
// another), the model and updated_at, which UpsertEmbedding moves forward on every write
// (max(now, previous + 1)), so a vector written since, by this process or another, is never
// served from memory. The slices are shared between callers, who only read them.
type vectorCache struct {
	mu     sync.Mutex
	budget int // floats
	floats int
	byPK   map[int64]cachedVector
}

type cachedVector struct {
	stamp vectorStamp
	vec   []float32
}

// vectorStamp identifies one version of a chat's stored vector.
type vectorStamp struct {
	chatID, model string
	updated       int64
}

func newVectorCache(budget int) *vectorCache {
	return &vectorCache{budget: budget, byPK: map[int64]cachedVector{}}
}

// get returns the vector of row pk if the cache holds the version st.
func (c *vectorCache) get(pk int64, st vectorStamp) ([]float32, bool) {
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
func (c *vectorCache) put(pk int64, st vectorStamp, vec []float32) {
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

// forget drops row pk (its vector was just rewritten here).
func (c *vectorCache) forget(pk int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byPK[pk]; ok {
		delete(c.byPK, pk)
		c.floats -= len(e.vec)
	}
}

// walkColumns are the columns of findEmbeddings' walks: no vector.
const walkColumns = "c.id, v.model, c.last_activity, v.chat_pk, v.updated_at"

// candidateRow is a walk row of FindEmbeddings before its vector: where to find it and which
// version it is.
type candidateRow struct {
	pk    int64
	stamp vectorStamp
}

// findEmbeddings is FindEmbeddings in one read transaction: the two walks of
// storecore.FindEmbeddings read ids, stamps and activity only, and the chosen candidates'
// vectors come from the cache or, for those it lacks, one read by primary key.
//
// A walk is kept between calls (walkcache.go) until anything is committed to the file; while it
// is current and the vector cache holds its vectors, a call reads nothing from SQLite.
func (db *DB) findEmbeddings(ctx context.Context, f annals.EmbeddingFilter) ([]annals.ChatVector, error) {
	key, cacheable := walkKeyOf(f)
	var gen uint64
	if cacheable {
		// The generation is read before the walk's snapshot begins: a commit in between leaves
		// the walk kept under the older generation, which the next call no longer serves.
		g, err := db.watch.generation(ctx)
		if out, ok := db.cachedCandidates(key, g, f.ExcludeChatID); err == nil && ok {
			return out, nil
		}
		gen, cacheable = g, err == nil
	}
	walk := f
	if cacheable {
		walk.ExcludeChatID, walk.Limit = "", key.limit
	}
	sqlTx, err := db.reader.BeginTx(ctx, nil)
	if err != nil {
		return nil, storeErr("begin find embeddings", err)
	}
	tx := &readTx{tx: sqlTx, cache: db.stmts}
	defer tx.end(ctx)
	rowOf := map[string]candidateRow{}
	out, err := storecore.FindEmbeddings(walk, walkColumns, func(q string, args []any) ([]annals.ChatVector, error) {
		return walkEmbeddings(ctx, tx, q, args, rowOf)
	})
	if err != nil {
		return nil, err
	}
	if cacheable {
		out = db.keepWalk(key, gen, out, rowOf, f.ExcludeChatID)
	}
	var missing []int64
	at := map[int64]int{}
	for i := range out {
		r := rowOf[out[i].ChatID]
		if v, ok := db.vectors.get(r.pk, r.stamp); ok {
			out[i].Vector = v
			continue
		}
		missing = append(missing, r.pk)
		at[r.pk] = i
	}
	if len(missing) == 0 {
		return out, nil
	}
	// The walk and this read share a snapshot, so each vector read is the version its walk row
	// stamped.
	if err := readVectors(ctx, tx, missing, func(pk int64, vec []float32) {
		i := at[pk]
		out[i].Vector = vec
		db.vectors.put(pk, rowOf[out[i].ChatID].stamp, vec)
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
func (db *DB) keepWalk(key walkKey, gen uint64, rows []annals.ChatVector, rowOf map[string]candidateRow, exclude string) []annals.ChatVector {
	w := cachedWalk{gen: gen, rows: make([]annals.ChatVector, len(rows)), pos: make([]candidateRow, len(rows))}
	copy(w.rows, rows)
	for i, r := range rows {
		w.pos[i] = rowOf[r.ChatID]
	}
	db.walks.put(key, w)
	out := rows[:0]
	for _, r := range rows {
		if r.ChatID != exclude && len(out) < key.limit-1 {
			out = append(out, r)
		}
	}
	return out
}

// walkEmbeddings reads one walk's rows (storecore.EmbeddingWalk with the stamp columns) and
// notes each row's pk and stamp in rowOf.
func walkEmbeddings(ctx context.Context, tx queryer, q string, args []any, rowOf map[string]candidateRow) ([]annals.ChatVector, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, storeErr("find embeddings", err)
	}
	defer rows.Close()
	out := []annals.ChatVector{}
	for rows.Next() {
		var cv annals.ChatVector
		var r candidateRow
		var active int64
		if err := rows.Scan(&cv.ChatID, &cv.Model, &active, &r.pk, &r.stamp.updated); err != nil {
			return nil, storeErr("scan embedding", err)
		}
		r.stamp.chatID, r.stamp.model = cv.ChatID, cv.Model
		cv.LastActivity = fromNano(active)
		rowOf[cv.ChatID] = r
		out = append(out, cv)
	}
	return out, storeErrOrNil("find embeddings", rows.Err())
}

// readVectors reads and decodes the vectors of rows pks, handing each to got.
func readVectors(ctx context.Context, tx queryer, pks []int64, got func(pk int64, vec []float32)) error {
	list, err := json.Marshal(pks)
	if err != nil {
		return annals.Internal("encode vector keys", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT v.chat_pk, v.vector FROM json_each(?) j CROSS JOIN chat_embeddings v
		WHERE v.chat_pk = j.value`, string(list))
	if err != nil {
		return storeErr("read embeddings", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var blob sql.RawBytes
		if err := rows.Scan(&pk, &blob); err != nil {
			return storeErr("scan embedding", err)
		}
		// A slice of its own per vector (not an arena's block): a cached vector must not keep
		// the evicted ones it was read with alive.
		vec, ok := vector.Decode(blob)
		if !ok {
			return annals.Internal("decode embedding", fmt.Errorf("vector blob of %d bytes is not a whole number of float32s", len(blob)))
		}
		got(pk, vec)
	}
	return storeErrOrNil("read embeddings", rows.Err())
}
