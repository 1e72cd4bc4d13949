package postgres

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/internal/vector"
)

// FindEmbeddings goes through the store's vector cache (storecore.EmbeddingCache), as SQLite's
// does: related, semantic and hybrid search read the newest 2,000 vectors of a scope at every
// call, 3 MB at 10k chats sent by the server and decoded in Go (30-70 ms a call,
// docs/BENCHMARKS.md) before the cache.
//
// Its generation must tell, cheaply and at once, whether anything was committed since an
// earlier call, by any server sharing the database. It is the cluster's transaction snapshot
// (pg_current_snapshot(): xmin, xmax and the transactions in progress): two snapshots are equal
// only if no transaction that wrote committed between them (one that had an id by the first is
// in its list, or no longer, and one that got an id since moved xmax), so an equal snapshot
// means the walk read under the first still holds. It costs one round trip of a read of no
// table, and writers pay nothing. Every commit of the cluster, of any table or database, moves
// it, so a busy cluster re-reads walks often; the vectors stay cached by their rows' stamps all
// the same. LISTEN/NOTIFY was considered and not taken (docs/POSTGRES.md, "The vector cache").

// snapshotGeneration numbers the distinct snapshots seen, in the order they were seen.
type snapshotGeneration struct {
	mu   sync.Mutex
	last string
	gen  uint64
}

// generation returns a number that is the same as at an earlier call only if nothing was
// committed to the cluster in between.
func (db *DB) generation(ctx context.Context) (uint64, error) {
	var snap string
	// Traced: a warm call's only statement is this one, and the benchmark replays what a call
	// ran beside it (psql and pgx), so it must see it.
	if err := db.tracedQueryRow(ctx, `SELECT pg_current_snapshot()::text`).Scan(&snap); err != nil {
		return 0, db.storeErr("read the snapshot", err)
	}
	g := &db.snapshots
	g.mu.Lock()
	defer g.mu.Unlock()
	if snap != g.last || g.gen == 0 {
		g.last = snap
		g.gen++
	}
	return g.gen, nil
}

// FindEmbeddings returns candidate vectors in owner scope; see annals.EmbeddingStore and
// storecore.FindEmbeddings. The vectors returned may be shared with later calls: callers read
// them, never write.
func (db *DB) FindEmbeddings(ctx context.Context, f annals.EmbeddingFilter) ([]annals.ChatVector, error) {
	return db.embeds.Find(f, func() (uint64, error) { return db.generation(ctx) }, func() (storecore.EmbeddingRead, func(), error) {
		// One snapshot for the walks and the vectors they chose.
		tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return nil, nil, db.storeErr("begin find embeddings", err)
		}
		return embeddingRead{db: db, ctx: ctx, tx: tx}, func() { _ = tx.Rollback(ctx) }, nil
	})
}

// embeddingRead is storecore.EmbeddingRead over one repeatable-read transaction.
type embeddingRead struct {
	db  *DB
	ctx context.Context
	tx  pgx.Tx
}

// Walk reads one walk's rows and notes each row's pk and stamp in rowOf.
func (r embeddingRead) Walk(q string, args []any, rowOf map[string]storecore.CandidateRow) ([]annals.ChatVector, error) {
	q = rebind(q)
	annals.TraceStatement(r.ctx, q, args)
	rows, err := r.tx.Query(r.ctx, q, args...)
	if err != nil {
		return nil, r.db.storeErr("find embeddings", err)
	}
	defer rows.Close()
	out := []annals.ChatVector{}
	for rows.Next() {
		var cv annals.ChatVector
		var c storecore.CandidateRow
		var active int64
		if err := rows.Scan(&cv.ChatID, &cv.Model, &active, &c.PK, &c.Stamp.Updated); err != nil {
			return nil, r.db.storeErr("scan embedding", err)
		}
		c.Stamp.ChatID, c.Stamp.Model = cv.ChatID, cv.Model
		cv.LastActivity = fromNano(active)
		rowOf[cv.ChatID] = c
		out = append(out, cv)
	}
	return out, r.db.storeErrOrNil("find embeddings", rows.Err())
}

// Vectors reads and decodes the vectors of rows pks, handing each to got.
func (r embeddingRead) Vectors(pks []int64, got func(pk int64, vec []float32)) error {
	rows, err := r.tx.Query(r.ctx, `SELECT chat_pk, vector FROM chat_embeddings WHERE chat_pk = ANY($1::bigint[])`, pks)
	if err != nil {
		return r.db.storeErr("read embeddings", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		if err := rows.Scan(&pk, nil); err != nil {
			return r.db.storeErr("scan embedding", err)
		}
		// Decoded from the row's own bytes into a slice of its own: a cached vector must not
		// keep others alive.
		blob := rows.RawValues()[1]
		vec, ok := vector.Decode(blob)
		if !ok {
			return annals.Internal("decode embedding", fmt.Errorf("vector of %d bytes is not a whole number of float32s", len(blob)))
		}
		got(pk, vec)
	}
	return r.db.storeErrOrNil("read embeddings", rows.Err())
}

// ViewGeneration is the cluster's snapshot generation (view.Generations): the query view's
// answers are reused only until anything is committed to the cluster.
func (db *DB) ViewGeneration(ctx context.Context) (uint64, error) {
	return db.generation(ctx)
}
