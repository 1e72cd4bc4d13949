package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/internal/vector"
)

// UpsertEmbedding stores a chat's vector; see annals.EmbeddingStore.
func (db *DB) UpsertEmbedding(ctx context.Context, ref annals.ChatRef, model string, vec []float32, entries int64) error {
	if len(vec) == 0 || model == "" {
		return annals.Errorf(annals.EINVALID, "an embedding needs a model name and a non-empty vector")
	}
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		// updated_at only moves forward, even under a clock that stands still or steps back:
		// it is the version the vector cache checks (storecore.EmbeddingCache).
		var pk int64
		err := tx.QueryRowContext(ctx, `INSERT INTO chat_embeddings (chat_pk, tenant_id, user_id, agent_id, model, dimension, vector, source_entries, updated_at)
			SELECT pk, tenant_id, user_id, agent_id, ?, ?, ?, ?, ? FROM chats WHERE `+refWhere+`
			ON CONFLICT (chat_pk) DO UPDATE SET model = excluded.model, dimension = excluded.dimension,
				vector = excluded.vector, source_entries = excluded.source_entries, updated_at = max(excluded.updated_at, chat_embeddings.updated_at + 1)
			RETURNING chat_pk`,
			append([]any{model, len(vec), vector.Encode(vec), entries, unixNano(db.now())}, refArgs(ref)...)...).Scan(&pk)
		if errors.Is(err, sql.ErrNoRows) {
			return annals.NotFound(ref.ID)
		}
		if err != nil {
			return storeErr("upsert embedding", err)
		}
		db.embeds.Forget(pk)
		return nil
	})
}

// FindEmbeddings returns candidate vectors in owner scope; see annals.EmbeddingStore,
// storecore.FindEmbeddings and findEmbeddings (vectorcache.go). The vectors returned may be
// shared with later calls: callers read them, never write.
func (db *DB) FindEmbeddings(ctx context.Context, f annals.EmbeddingFilter) ([]annals.ChatVector, error) {
	return db.findEmbeddings(ctx, f)
}

// FindChatsToEmbed lists owner's chats without a current vector of model; see
// annals.EmbeddingStore.
func (db *DB) FindChatsToEmbed(ctx context.Context, owner annals.Owner, model string, limit int) ([]*annals.Chat, error) {
	q, args := storecore.ChatsToEmbed(chatColumns, owner, model, limit)
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, storeErr("find chats to embed", err)
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
	return out, storeErrOrNil("find chats to embed", rows.Err())
}

// FindTenants returns every tenant that has a chat; see annals.EmbeddingStore.
func (db *DB) FindTenants(ctx context.Context) ([]string, error) {
	rows, err := db.reader.QueryContext(ctx, storecore.FindTenants)
	if err != nil {
		return nil, storeErr("find tenants", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, storeErr("scan tenant", err)
		}
		out = append(out, t)
	}
	return out, storeErrOrNil("find tenants", rows.Err())
}

// LoadEmbedderState returns the state saved under tenant and name; see
// annals.EmbedderStateStore.
func (db *DB) LoadEmbedderState(ctx context.Context, tenant, name string) ([]byte, error) {
	var data []byte
	err := db.reader.QueryRowContext(ctx, `SELECT data FROM embedder_state WHERE tenant_id = ? AND name = ?`, tenant, name).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, annals.Errorf(annals.ENOTFOUND, "no embedder state %q is saved for this tenant", name)
	}
	if err != nil {
		return nil, storeErr("load embedder state", err)
	}
	return data, nil
}

// SaveEmbedderState replaces the state saved under tenant and name; see
// annals.EmbedderStateStore.
func (db *DB) SaveEmbedderState(ctx context.Context, tenant, name string, data []byte) error {
	if err := storecore.CheckEmbedderStateKey(tenant, name); err != nil {
		return err
	}
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO embedder_state (tenant_id, name, data, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (tenant_id, name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
			tenant, name, data, unixNano(db.now()))
		return storeErrOrNil("save embedder state", err)
	})
}
