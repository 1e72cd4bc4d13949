package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/annals-dev/annals"
)

var _ annals.KeyStore = (*DB)(nil)

const keyColumns = `id, name, hash, tenant_id, user_id, agent_id, role, scopes, created_at, revoked_at`

func scanKey(row scanner) (*annals.APIKey, error) {
	var k annals.APIKey
	var role, scopes string
	var created int64
	var revoked sql.NullInt64
	if err := row.Scan(&k.ID, &k.Name, &k.Hash, &k.Principal.TenantID, &k.Principal.UserID, &k.Principal.AgentID,
		&role, &scopes, &created, &revoked); err != nil {
		return nil, err
	}
	k.Principal.Role = annals.Role(role)
	for _, s := range strings.Split(scopes, ",") {
		if s != "" {
			k.Principal.Scopes = append(k.Principal.Scopes, annals.Scope(s))
		}
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
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE id = ? OR hash = ?`, key.ID, key.Hash).Scan(&n); err != nil {
			return storeErr("check key", err)
		}
		if n > 0 {
			return annals.Errorf(annals.ECONFLICT, "key %q already exists", key.ID)
		}
		p := key.Principal
		if _, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, name, hash, tenant_id, user_id, agent_id, role, scopes, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			key.ID, key.Name, key.Hash, p.TenantID, p.UserID, p.AgentID, string(p.Role), strings.Join(scopes, ","), unixNano(created)); err != nil {
			return storeErr("insert key", err)
		}
		k, err := scanKey(tx.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = ?`, key.ID))
		if err != nil {
			return storeErr("read key", err)
		}
		out = k
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FindKeyByHash returns the key with that hash, revoked or not; see annals.KeyStore. A database
// from before the keys table (opened read-only, so not migrated) has no keys.
func (db *DB) FindKeyByHash(ctx context.Context, hash []byte) (*annals.APIKey, error) {
	k, err := scanKey(db.reader.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) || noKeysTable(err) {
		return nil, annals.Errorf(annals.ENOTFOUND, "key not found")
	}
	if err != nil {
		return nil, storeErr("find key", err)
	}
	return k, nil
}

// ListKeys returns every key, oldest first; see annals.KeyStore.
func (db *DB) ListKeys(ctx context.Context) ([]*annals.APIKey, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
	if noKeysTable(err) {
		return []*annals.APIKey{}, nil
	}
	if err != nil {
		return nil, storeErr("list keys", err)
	}
	defer rows.Close()
	out := []*annals.APIKey{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, storeErr("scan key", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("list keys", err)
	}
	return out, nil
}

// RevokeKey marks a key revoked, keeping the first revocation time; see annals.KeyStore.
func (db *DB) RevokeKey(ctx context.Context, id string) (*annals.APIKey, error) {
	var out *annals.APIKey
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`, unixNano(db.now()), id)
		if err != nil {
			return storeErr("revoke key", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return annals.Errorf(annals.ENOTFOUND, "key %q not found", id)
		}
		k, err := scanKey(tx.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = ?`, id))
		if err != nil {
			return storeErr("read key", err)
		}
		out = k
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func noKeysTable(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no such table: api_keys")
}
