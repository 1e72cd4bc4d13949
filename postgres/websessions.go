package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

// The web UI's browser sessions on PostgreSQL (docs/WEB.md, migration 0015).

var _ annals.WebSessionStore = (*DB)(nil)

// CreateWebSession stores a session; see annals.WebSessionStore.
func (db *DB) CreateWebSession(ctx context.Context, s *annals.WebSession) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if db.readOnly {
		return errReadOnly()
	}
	created := s.CreatedAt
	if created.IsZero() {
		created = db.now()
	}
	tag, err := db.pool.Exec(ctx, `INSERT INTO web_sessions (token_hash, key_hash, created_at, expires_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (token_hash) DO NOTHING`, s.TokenHash, s.KeyHash, unixNano(created), unixNano(s.ExpiresAt))
	if err != nil {
		return db.storeErr("create web session", err)
	}
	if tag.RowsAffected() == 0 {
		return annals.Errorf(annals.ECONFLICT, "a web session with this token exists")
	}
	return nil
}

// FindWebSession returns a live session; see annals.WebSessionStore.
func (db *DB) FindWebSession(ctx context.Context, tokenHash []byte, now time.Time) (*annals.WebSession, error) {
	var s annals.WebSession
	var created, expires int64
	err := db.pool.QueryRow(ctx, `SELECT token_hash, key_hash, created_at, expires_at FROM web_sessions
		WHERE token_hash = $1 AND expires_at > $2`, tokenHash, unixNano(now)).Scan(&s.TokenHash, &s.KeyHash, &created, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, annals.Errorf(annals.ENOTFOUND, "no such web session")
	}
	if err != nil {
		return nil, db.storeErr("find web session", err)
	}
	s.CreatedAt, s.ExpiresAt = fromNano(created), fromNano(expires)
	return &s, nil
}

// DeleteWebSession ends a session; see annals.WebSessionStore.
func (db *DB) DeleteWebSession(ctx context.Context, tokenHash []byte) error {
	if db.readOnly {
		return errReadOnly()
	}
	if _, err := db.pool.Exec(ctx, `DELETE FROM web_sessions WHERE token_hash = $1`, tokenHash); err != nil {
		return db.storeErr("delete web session", err)
	}
	return nil
}

// PruneWebSessions deletes expired sessions; see annals.WebSessionStore.
func (db *DB) PruneWebSessions(ctx context.Context, now time.Time) (int, error) {
	if db.readOnly {
		return 0, errReadOnly()
	}
	if _, err := db.pool.Exec(ctx, `DELETE FROM web_sessions WHERE expires_at <= $1`, unixNano(now)); err != nil {
		return 0, db.storeErr("prune web sessions", err)
	}
	var left int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM web_sessions`).Scan(&left); err != nil {
		return 0, db.storeErr("count web sessions", err)
	}
	return left, nil
}
