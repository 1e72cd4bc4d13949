package postgres

import (
	"context"
	"errors"
	"fmt"

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
		tag, err := tx.Exec(ctx, `INSERT INTO chat_embeddings (chat_pk, tenant_id, user_id, agent_id, model, dimension, vector, updated_at, source_entries)
			SELECT c.pk, c.tenant_id, c.user_id, c.agent_id, $6, $7, $8, $9, $10 FROM chats c WHERE `+refWhere+`
			ON CONFLICT (chat_pk) DO UPDATE SET model = excluded.model, dimension = excluded.dimension,
				vector = excluded.vector, source_entries = excluded.source_entries, updated_at = excluded.updated_at`,
			append(refArgs(ref), model, len(vec), vector.Encode(vec), unixNano(db.now()), entries)...)
		if err != nil {
			return db.storeErr("upsert embedding", err)
		}
		if tag.RowsAffected() == 0 {
			return annals.NotFound(ref.ID)
		}
		return nil
	})
}

// FindEmbeddings returns candidate vectors in owner scope; see annals.EmbeddingStore and
// storecore.FindEmbeddings.
func (db *DB) FindEmbeddings(ctx context.Context, f annals.EmbeddingFilter) ([]annals.ChatVector, error) {
	return storecore.FindEmbeddings(f, storecore.VectorColumns, func(q string, args []any) ([]annals.ChatVector, error) {
		return db.readEmbeddings(ctx, q, args)
	})
}

func (db *DB) readEmbeddings(ctx context.Context, q string, args []any) ([]annals.ChatVector, error) {
	rows, err := db.tracedQuery(ctx, q, args...)
	if err != nil {
		return nil, db.storeErr("find embeddings", err)
	}
	defer rows.Close()
	arena := &vector.Arena{}
	out := []annals.ChatVector{}
	for rows.Next() {
		var cv annals.ChatVector
		var active int64
		// The vector is decoded from the row's own bytes, valid until the next row, rather
		// than copied out first.
		if err := rows.Scan(&cv.ChatID, &cv.Model, nil, &active); err != nil {
			return nil, db.storeErr("scan embedding", err)
		}
		blob := rows.RawValues()[2]
		var ok bool
		if cv.Vector, ok = arena.Decode(blob); !ok {
			return nil, annals.Internal("decode embedding", fmt.Errorf("vector of %d bytes is not a whole number of float32s", len(blob)))
		}
		cv.LastActivity = fromNano(active)
		out = append(out, cv)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("find embeddings", err)
	}
	return out, nil
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
