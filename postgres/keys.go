package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/annals-dev/annals"
)

var _ annals.KeyStore = (*DB)(nil)

const keyColumns = `id, name, hash, tenant_id, user_id, agent_id, role, scopes, created_at, revoked_at`

func scanKey(row pgx.Row) (*annals.APIKey, error) {
	var k annals.APIKey
	var role string
	var scopes []string
	var created int64
	var revoked *int64
	if err := row.Scan(&k.ID, &k.Name, &k.Hash, &k.Principal.TenantID, &k.Principal.UserID, &k.Principal.AgentID,
		&role, &scopes, &created, &revoked); err != nil {
		return nil, err
	}
	k.Principal.Role = annals.Role(role)
	for _, s := range scopes {
		k.Principal.Scopes = append(k.Principal.Scopes, annals.Scope(s))
	}
	k.CreatedAt = fromNano(created)
	k.RevokedAt = fromNullNano(revoked)
	return &k, nil
}

// CreateKey stores a key (its hash, never a secret); see annals.KeyStore.
func (db *DB) CreateKey(ctx context.Context, key *annals.APIKey) (*annals.APIKey, error) {
	if key == nil {
		return nil, annals.Errorf(annals.EINVALID, "key is required")
	}
	if err := key.Validate(); err != nil {
		return nil, err
	}
	created := key.CreatedAt
	if created.IsZero() {
		created = db.now()
	}
	scopes := make([]string, len(key.Principal.Scopes))
	for i, s := range key.Principal.Scopes {
		scopes[i] = string(s)
	}
	var out *annals.APIKey
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		p := key.Principal
		_, err := tx.Exec(ctx, `INSERT INTO api_keys (id, name, hash, tenant_id, user_id, agent_id, role, scopes, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			key.ID, key.Name, key.Hash, p.TenantID, p.UserID, p.AgentID, string(p.Role), scopes, unixNano(created))
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" {
			return annals.Errorf(annals.ECONFLICT, "key %q already exists", key.ID)
		}
		if err != nil {
			return db.storeErr("insert key", err)
		}
		out, err = scanKey(tx.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = $1`, key.ID))
		if err != nil {
			return db.storeErr("read key", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FindKeyByHash returns the key with that hash, revoked or not; see annals.KeyStore.
func (db *DB) FindKeyByHash(ctx context.Context, hash []byte) (*annals.APIKey, error) {
	k, err := scanKey(db.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, annals.Errorf(annals.ENOTFOUND, "key not found")
	}
	if err != nil {
		return nil, db.storeErr("find key", err)
	}
	return k, nil
}

// ListKeys returns every key, oldest first; see annals.KeyStore.
func (db *DB) ListKeys(ctx context.Context) ([]*annals.APIKey, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, db.storeErr("list keys", err)
	}
	defer rows.Close()
	out := []*annals.APIKey{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, db.storeErr("scan key", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("list keys", err)
	}
	return out, nil
}

// RevokeKey marks a key revoked, keeping the first revocation time; see annals.KeyStore.
func (db *DB) RevokeKey(ctx context.Context, id string) (*annals.APIKey, error) {
	var out *annals.APIKey
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2`, unixNano(db.now()), id)
		if err != nil {
			return db.storeErr("revoke key", err)
		}
		if tag.RowsAffected() == 0 {
			return annals.Errorf(annals.ENOTFOUND, "key %q not found", id)
		}
		out, err = scanKey(tx.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = $1`, id))
		if err != nil {
			return db.storeErr("read key", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Counts returns how many chats and entries the database holds, across every tenant, from the
// chats table only (entry counts are kept per chat): cheap enough for a metrics scrape. It is for
// operators (the server's /metrics), never for a caller's answer.
func (db *DB) Counts(ctx context.Context) (chats, entries int64, err error) {
	if err := db.pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(entry_count), 0)::bigint FROM chats`).Scan(&chats, &entries); err != nil {
		return 0, 0, db.storeErr("count chats", err)
	}
	return chats, entries, nil
}
