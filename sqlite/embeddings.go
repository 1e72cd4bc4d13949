package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// UpsertEmbedding stores a chat's vector; see annals.EmbeddingStore.
func (db *DB) UpsertEmbedding(ctx context.Context, ref annals.ChatRef, model string, vector []float32) error {
	if len(vector) == 0 || model == "" {
		return annals.Errorf(annals.EINVALID, "an embedding needs a model name and a non-empty vector")
	}
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `INSERT INTO chat_embeddings (chat_pk, tenant_id, user_id, agent_id, model, dimension, vector, updated_at)
			SELECT pk, tenant_id, user_id, agent_id, ?, ?, ?, ? FROM chats WHERE `+refWhere+`
			ON CONFLICT (chat_pk) DO UPDATE SET model = excluded.model, dimension = excluded.dimension,
				vector = excluded.vector, updated_at = excluded.updated_at`,
			append([]any{model, len(vector), encodeVector(vector), unixNano(db.now())}, refArgs(ref)...)...)
		if err != nil {
			return storeErr("upsert embedding", err)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return annals.NotFound(ref.ID)
		}
		return nil
	})
}

// FindEmbeddings returns candidate vectors in owner scope; see annals.EmbeddingStore and
// storecore.FindEmbeddings.
func (db *DB) FindEmbeddings(ctx context.Context, f annals.EmbeddingFilter) ([]annals.ChatVector, error) {
	return storecore.FindEmbeddings(f, func(q string, args []any) ([]annals.ChatVector, error) {
		return db.readEmbeddings(ctx, &storecore.VectorArena{}, q, args)
	})
}

func (db *DB) readEmbeddings(ctx context.Context, arena *storecore.VectorArena, q string, args []any) ([]annals.ChatVector, error) {
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, storeErr("find embeddings", err)
	}
	defer rows.Close()
	out := []annals.ChatVector{}
	var model string
	for rows.Next() {
		var cv annals.ChatVector
		// The blob is decoded in place: it is only valid until the next row.
		var blob, m sql.RawBytes
		var active int64
		if err := rows.Scan(&cv.ChatID, &m, &blob, &active); err != nil {
			return nil, storeErr("scan embedding", err)
		}
		if string(m) != model {
			model = string(m)
		}
		cv.Model = model
		var ok bool
		if cv.Vector, ok = arena.Decode(blob); !ok {
			return nil, annals.Internal("decode embedding", fmt.Errorf("vector blob of %d bytes is not a whole number of float32s", len(blob)))
		}
		cv.LastActivity = fromNano(active)
		out = append(out, cv)
	}
	return out, storeErrOrNil("find embeddings", rows.Err())
}

// FindChatsWithoutEmbedding lists chats lacking a vector of model; see annals.EmbeddingStore.
func (db *DB) FindChatsWithoutEmbedding(ctx context.Context, model string, limit int) ([]*annals.Chat, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT `+chatColumns+` FROM chats c
		WHERE NOT EXISTS (SELECT 1 FROM chat_embeddings v WHERE v.chat_pk = c.pk AND v.model = ?)
		ORDER BY c.pk LIMIT ?`, model, limit)
	if err != nil {
		return nil, storeErr("find chats without embedding", err)
	}
	defer rows.Close()
	out := []*annals.Chat{}
	for rows.Next() {
		c, err := scanChat(rows)
		if err != nil {
			return nil, storeErr("scan chat", err)
		}
		out = append(out, c)
	}
	return out, storeErrOrNil("find chats without embedding", rows.Err())
}

// encodeVector stores float32s little-endian: compact, exact, and readable by any backend.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}
