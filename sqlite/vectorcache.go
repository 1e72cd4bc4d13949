package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/internal/vector"
)

// findEmbeddings is FindEmbeddings through the store's cache (storecore.EmbeddingCache): its
// generation is the change watch's (walkcache.go), its read one read transaction.
func (db *DB) findEmbeddings(ctx context.Context, f annals.EmbeddingFilter) ([]annals.ChatVector, error) {
	return db.embeds.Find(f, func() (uint64, error) { return db.watch.generation(ctx) }, func() (storecore.EmbeddingRead, func(), error) {
		sqlTx, err := db.reader.BeginTx(ctx, nil)
		if err != nil {
			return nil, nil, storeErr("begin find embeddings", err)
		}
		tx := &readTx{tx: sqlTx, cache: db.stmts}
		return embeddingRead{ctx: ctx, tx: tx}, func() { tx.end(ctx) }, nil
	})
}

// embeddingRead is storecore.EmbeddingRead over one read transaction.
type embeddingRead struct {
	ctx context.Context
	tx  queryer
}

// Walk reads one walk's rows and notes each row's pk and stamp in rowOf.
func (r embeddingRead) Walk(q string, args []any, rowOf map[string]storecore.CandidateRow) ([]annals.ChatVector, error) {
	rows, err := r.tx.QueryContext(r.ctx, q, args...)
	if err != nil {
		return nil, storeErr("find embeddings", err)
	}
	defer rows.Close()
	out := []annals.ChatVector{}
	for rows.Next() {
		var cv annals.ChatVector
		var c storecore.CandidateRow
		var active int64
		if err := rows.Scan(&cv.ChatID, &cv.Model, &active, &c.PK, &c.Stamp.Updated); err != nil {
			return nil, storeErr("scan embedding", err)
		}
		c.Stamp.ChatID, c.Stamp.Model = cv.ChatID, cv.Model
		cv.LastActivity = fromNano(active)
		rowOf[cv.ChatID] = c
		out = append(out, cv)
	}
	return out, storeErrOrNil("find embeddings", rows.Err())
}

// Vectors reads and decodes the vectors of rows pks, handing each to got.
func (r embeddingRead) Vectors(pks []int64, got func(pk int64, vec []float32)) error {
	list, err := json.Marshal(pks)
	if err != nil {
		return annals.Internal("encode vector keys", err)
	}
	rows, err := r.tx.QueryContext(r.ctx, `SELECT v.chat_pk, v.vector FROM json_each(?) j CROSS JOIN chat_embeddings v
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
