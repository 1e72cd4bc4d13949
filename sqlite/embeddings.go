package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/vector"
)

// UpsertEmbedding stores a chat's vector; see annals.EmbeddingStore.
func (db *DB) UpsertEmbedding(ctx context.Context, ref annals.ChatRef, model string, vec []float32) error {
	if len(vec) == 0 || model == "" {
		return annals.Errorf(annals.EINVALID, "an embedding needs a model name and a non-empty vector")
	}
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		// updated_at only moves forward, even under a clock that stands still or steps back:
		// it is the version the vector cache checks (vectorcache.go).
		var pk int64
		err := tx.QueryRowContext(ctx, `INSERT INTO chat_embeddings (chat_pk, tenant_id, user_id, agent_id, model, dimension, vector, updated_at)
			SELECT pk, tenant_id, user_id, agent_id, ?, ?, ?, ? FROM chats WHERE `+refWhere+`
			ON CONFLICT (chat_pk) DO UPDATE SET model = excluded.model, dimension = excluded.dimension,
				vector = excluded.vector, updated_at = max(excluded.updated_at, chat_embeddings.updated_at + 1)
			RETURNING chat_pk`,
			append([]any{model, len(vec), vector.Encode(vec), unixNano(db.now())}, refArgs(ref)...)...).Scan(&pk)
		if errors.Is(err, sql.ErrNoRows) {
			return annals.NotFound(ref.ID)
		}
		if err != nil {
			return storeErr("upsert embedding", err)
		}
		db.vectors.forget(pk)
		return nil
	})
}

// FindEmbeddings returns candidate vectors in owner scope; see annals.EmbeddingStore,
// storecore.FindEmbeddings and findEmbeddings (vectorcache.go). The vectors returned may be
// shared with later calls: callers read them, never write.
func (db *DB) FindEmbeddings(ctx context.Context, f annals.EmbeddingFilter) ([]annals.ChatVector, error) {
	return db.findEmbeddings(ctx, f)
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
