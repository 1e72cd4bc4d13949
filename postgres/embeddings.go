package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/internal/vector"
)

// Vectors are float32 little-endian bytes (the SQLite store's encoding), so a copy between the
// backends moves them unchanged and a round trip is exact. Similarity is computed by the history
// service in Go over the candidates FindEmbeddings returns (newest DefaultCandidateCap in scope):
// the core needs no extension. A pgvector index is not used even where the extension exists; see
// docs/POSTGRES.md.

// UpsertEmbedding stores a chat's vector; see annals.EmbeddingStore.
func (db *DB) UpsertEmbedding(ctx context.Context, ref annals.ChatRef, model string, vec []float32, entries int64) error {
	if len(vec) == 0 || model == "" {
		return annals.Errorf(annals.EINVALID, "an embedding needs a model name and a non-empty vector")
	}
	return db.writeTx(ctx, func(tx pgx.Tx) error {
		// updated_at only moves forward, even under clocks that stand still, step back or
		// differ between servers: it is the version the vector caches of every server check
		// (storecore.EmbeddingCache).
		var pk int64
		err := tx.QueryRow(ctx, `INSERT INTO chat_embeddings (chat_pk, tenant_id, user_id, agent_id, model, dimension, vector, updated_at, source_entries)
			SELECT c.pk, c.tenant_id, c.user_id, c.agent_id, $6, $7, $8, $9, $10 FROM chats c WHERE `+refWhere+`
			ON CONFLICT (chat_pk) DO UPDATE SET model = excluded.model, dimension = excluded.dimension,
				vector = excluded.vector, source_entries = excluded.source_entries,
				updated_at = GREATEST(excluded.updated_at, chat_embeddings.updated_at + 1)
			RETURNING chat_pk`,
			append(refArgs(ref), model, len(vec), vector.Encode(vec), unixNano(db.now()), entries)...).Scan(&pk)
		if errors.Is(err, pgx.ErrNoRows) {
			return annals.NotFound(ref.ID)
		}
		if err != nil {
			return db.storeErr("upsert embedding", err)
		}
		db.embeds.Forget(pk)
		return nil
	})
}

// FindChatsToEmbed lists owner's chats without a current vector of model; see
// annals.EmbeddingStore.
func (db *DB) FindChatsToEmbed(ctx context.Context, owner annals.Owner, model string, limit int) ([]*annals.Chat, error) {
	q, args := storecore.ChatsToEmbed(chatColumns, owner, model, limit)
	rows, err := db.tracedQuery(ctx, q, args...)
	if err != nil {
		return nil, db.storeErr("find chats to embed", err)
	}
	defer rows.Close()
	out := []*annals.Chat{}
	for rows.Next() {
		c, err := scanChat(rows)
		if err != nil {
			return nil, db.storeErr("scan chat", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("find chats to embed", err)
	}
	return out, nil
}

// FindTenants returns every tenant that has a chat; see annals.EmbeddingStore.
func (db *DB) FindTenants(ctx context.Context) ([]string, error) {
	rows, err := db.tracedQuery(ctx, storecore.FindTenants)
	if err != nil {
		return nil, db.storeErr("find tenants", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, db.storeErr("scan tenant", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("find tenants", err)
	}
	return out, nil
}

// LoadEmbedderState returns the state saved under tenant and name; see
// annals.EmbedderStateStore.
func (db *DB) LoadEmbedderState(ctx context.Context, tenant, name string) ([]byte, error) {
	var data []byte
	err := db.pool.QueryRow(ctx, `SELECT data FROM embedder_state WHERE tenant_id = $1 AND name = $2`, tenant, name).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, annals.Errorf(annals.ENOTFOUND, "no embedder state %q is saved for this tenant", name)
	}
	if err != nil {
		return nil, db.storeErr("load embedder state", err)
	}
	return data, nil
}

// SaveEmbedderState replaces the state saved under tenant and name; see
// annals.EmbedderStateStore.
func (db *DB) SaveEmbedderState(ctx context.Context, tenant, name string, data []byte) error {
	if err := storecore.CheckEmbedderStateKey(tenant, name); err != nil {
		return err
	}
	return db.writeTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO embedder_state (tenant_id, name, data, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (tenant_id, name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
			tenant, name, data, unixNano(db.now()))
		if err != nil {
			return db.storeErr("save embedder state", err)
		}
		return nil
	})
}

var _ annals.EmbeddingStatistics = (*DB)(nil)

// AnalyzeEmbeddings refreshes the planner's statistics of chat_embeddings, the one table a
// backfill writes in bulk; see annals.EmbeddingStatistics.
func (db *DB) AnalyzeEmbeddings(ctx context.Context) error {
	if db.readOnly {
		return errReadOnly()
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE chat_embeddings`); err != nil {
		return db.storeErr("analyze embeddings", err)
	}
	return nil
}
