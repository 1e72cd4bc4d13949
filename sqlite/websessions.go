package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/annals-dev/annals"
)

// The web UI's browser sessions on SQLite (docs/WEB.md, migration 0021).

var _ annals.WebSessionStore = (*DB)(nil)

// CreateWebSession stores a session; see annals.WebSessionStore.
func (db *DB) CreateWebSession(ctx context.Context, s *annals.WebSession) error {
	if err := s.Validate(); err != nil {
		return err
	}
	created := s.CreatedAt
	if created.IsZero() {
		created = db.now()
	}
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `INSERT INTO web_sessions (token_hash, key_hash, created_at, expires_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (token_hash) DO NOTHING`, s.TokenHash, s.KeyHash, unixNano(created), unixNano(s.ExpiresAt))
		if err != nil {
			return storeErr("create web session", err)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return annals.Errorf(annals.ECONFLICT, "a web session with this token exists")
		}
		return nil
	})
}

// FindWebSession returns a live session; see annals.WebSessionStore.
func (db *DB) FindWebSession(ctx context.Context, tokenHash []byte, now time.Time) (*annals.WebSession, error) {
	var s annals.WebSession
	var created, expires int64
	err := db.reader.QueryRowContext(ctx, `SELECT token_hash, key_hash, created_at, expires_at FROM web_sessions
		WHERE token_hash = ? AND expires_at > ?`, tokenHash, unixNano(now)).Scan(&s.TokenHash, &s.KeyHash, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, annals.Errorf(annals.ENOTFOUND, "no such web session")
	}
	if err != nil {
		return nil, storeErr("find web session", err)
	}
	s.CreatedAt, s.ExpiresAt = fromNano(created), fromNano(expires)
	return &s, nil
}

// DeleteWebSession ends a session; see annals.WebSessionStore.
func (db *DB) DeleteWebSession(ctx context.Context, tokenHash []byte) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM web_sessions WHERE token_hash = ?`, tokenHash)
		return storeErrOrNil("delete web session", err)
	})
}

// PruneWebSessions deletes expired sessions; see annals.WebSessionStore.
func (db *DB) PruneWebSessions(ctx context.Context, now time.Time) (int, error) {
	var left int
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_sessions WHERE expires_at <= ?`, unixNano(now)); err != nil {
			return storeErr("prune web sessions", err)
		}
		return storeErrOrNil("count web sessions", tx.QueryRowContext(ctx, `SELECT count(*) FROM web_sessions`).Scan(&left))
	})
	return left, err
}
