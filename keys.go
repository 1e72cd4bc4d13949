package annals

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"
)

// API keys authenticate callers of the HTTP server. A key is a random secret shown to its owner
// once; a store keeps only its SHA-256 hash, which is enough to recognise the key and useless to
// anyone who reads the database. Each key is bound to a principal: the tenant, user and agent it
// acts as, its role and its allowed history scopes.

// KeySecretPrefix starts every API key secret, so a leaked key is recognisable in logs and by
// secret scanners.
const KeySecretPrefix = "annals_"

// keySecretBytes is the entropy of a secret: 256 bits, so a plain SHA-256 (no salt, no stretching)
// is safe: there is nothing to brute-force.
const keySecretBytes = 32

// keySecretLen is the length of a well-formed secret: the prefix and 32 bytes in unpadded
// base64url.
var keySecretLen = len(KeySecretPrefix) + base64.RawURLEncoding.EncodedLen(keySecretBytes)

// APIKey is one stored API key. It never holds the secret itself.
type APIKey struct {
	// ID names the key in listings and revocations; it is not secret.
	ID string `json:"id"`
	// Name is a free label ("ci", "laptop").
	Name string `json:"name,omitempty"`
	// Principal is who a request carrying the key acts as; its Scopes are the key's allowed
	// history scopes (empty means history is denied).
	Principal Principal `json:"principal"`
	// Hash is the SHA-256 of the secret (HashKeySecret).
	Hash      []byte     `json:"-"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// Revoked reports whether the key has been revoked.
func (k *APIKey) Revoked() bool { return k.RevokedAt != nil }

// Validate checks a key before it is stored: an id, a 32-byte hash, a tenant, a known role and
// scopes, and global only for an admin. It rewrites scope aliases to their canonical names
// ("any" becomes global) on a copy of the scope list.
func (k *APIKey) Validate() error {
	k.Principal.Scopes = append([]Scope(nil), k.Principal.Scopes...)
	if err := ValidateID("key.id", k.ID); err != nil {
		return err
	}
	if len(k.Hash) != sha256.Size {
		return Errorf(EINVALID, "key.hash must be a SHA-256 hash (%d bytes), got %d bytes", sha256.Size, len(k.Hash))
	}
	if err := validateText("key.name", k.Name, MaxTitleBytes); err != nil {
		return err
	}
	if err := validateLine("key.name", k.Name); err != nil {
		return err
	}
	p := k.Principal
	if err := ValidateID("key tenant", p.TenantID); err != nil {
		return err
	}
	if err := validateOptionalID("key user", p.UserID); err != nil {
		return err
	}
	if err := validateOptionalID("key agent", p.AgentID); err != nil {
		return err
	}
	if _, err := ParseRole(string(p.Role)); err != nil {
		return err
	}
	for i, raw := range p.Scopes {
		s, err := ParseScope(string(raw))
		if err != nil {
			return err
		}
		// Store the canonical name ("any" becomes global), so every later check sees it.
		k.Principal.Scopes[i] = s
		if s == ScopeGlobal && p.Role != RoleAdmin {
			return Errorf(EINVALID, "scope global reaches every tenant and is only allowed on an admin key (role %s given)", p.Role)
		}
	}
	return nil
}

// NewKeySecret returns a fresh random secret: KeySecretPrefix and 32 random bytes in base64url.
func NewKeySecret() (string, error) {
	b := make([]byte, keySecretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", Internal("generate key secret", err)
	}
	return KeySecretPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// NewKeyID returns a fresh key id ("key_" and 12 hex digits).
func NewKeyID() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", Internal("generate key id", err)
	}
	return "key_" + hex.EncodeToString(b), nil
}

// WellFormedKeySecret reports whether s has the shape of a secret NewKeySecret makes. A malformed
// value is refused without a store lookup.
func WellFormedKeySecret(s string) bool {
	if len(s) != keySecretLen || !strings.HasPrefix(s, KeySecretPrefix) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s[len(KeySecretPrefix):])
	return err == nil
}

// HashKeySecret returns the SHA-256 of a secret, the only form in which a store keeps it.
func HashKeySecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// KeyStore keeps API keys (hashes only).
type KeyStore interface {
	// CreateKey stores a new key and returns it as stored. The key must carry its Hash; the
	// secret is never given to a store. Errors: invalid, conflict (the id or hash is taken),
	// forbidden (read-only), unavailable, internal.
	CreateKey(ctx context.Context, key *APIKey) (*APIKey, error)

	// FindKeyByHash returns the key whose secret hashes to hash, revoked or not: the caller
	// refuses a revoked key. Errors: not_found, unavailable, internal.
	FindKeyByHash(ctx context.Context, hash []byte) (*APIKey, error)

	// ListKeys returns every key, revoked ones included, oldest first.
	// Errors: unavailable, internal.
	ListKeys(ctx context.Context) ([]*APIKey, error)

	// RevokeKey marks a key revoked (idempotently: revoking again keeps the first time) and
	// returns it. Errors: not_found, forbidden (read-only), unavailable, internal.
	RevokeKey(ctx context.Context, id string) (*APIKey, error)
}
