package annals

import (
	"context"
	"time"
)

// WebSession is a browser session of the web UI (docs/WEB.md): a login exchanged an API key
// for a cookie holding a random token. A store keeps the token's hash, never the token, and the
// hash of the key the session acts as, so every request finds the key again and a revoked key
// ends its sessions at once.
type WebSession struct {
	TokenHash []byte
	KeyHash   []byte
	CreatedAt time.Time
	ExpiresAt time.Time
}

// WebSessionStore keeps browser sessions in the database, so a restart signs nobody out and
// every server of one database knows every session. Implemented by both stores.
type WebSessionStore interface {
	// CreateWebSession stores a new session. Errors: invalid (no token or key hash, no
	// expiry), conflict (the token hash is taken), forbidden (read-only), unavailable, internal.
	CreateWebSession(ctx context.Context, s *WebSession) error
	// FindWebSession returns the session with this token hash if it expires after now.
	// Errors: not_found (none, or expired), unavailable, internal.
	FindWebSession(ctx context.Context, tokenHash []byte, now time.Time) (*WebSession, error)
	// DeleteWebSession ends a session; ending one that is gone is no error.
	DeleteWebSession(ctx context.Context, tokenHash []byte) error
	// PruneWebSessions deletes the sessions expired at now and returns how many are left.
	PruneWebSessions(ctx context.Context, now time.Time) (int, error)
}

// Validate checks a session before a store keeps it.
func (s *WebSession) Validate() error {
	switch {
	case s == nil:
		return Errorf(EINVALID, "session is required")
	case len(s.TokenHash) == 0 || len(s.TokenHash) > 64:
		return Errorf(EINVALID, "a session needs its token's hash (at most 64 bytes)")
	case len(s.KeyHash) == 0 || len(s.KeyHash) > 64:
		return Errorf(EINVALID, "a session needs its key's hash (at most 64 bytes)")
	case s.ExpiresAt.IsZero():
		return Errorf(EINVALID, "a session needs an expiry")
	}
	return nil
}
