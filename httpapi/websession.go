package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"sync"
	"time"

	"github.com/annals-dev/annals"
)

// Browser sessions: the web UI's login exchanges an API key for a session cookie. A session is
// the hash of the cookie's random token, the hash of the key (every request finds the key again,
// so revoking it ends its sessions at once) and an expiry; its CSRF token is derived from the
// cookie's token, so nothing but hashes is kept. Sessions are kept by the database
// (Config.WebSessions, annals.WebSessionStore): a restart signs nobody out and every server of a
// shared PostgreSQL database knows them. Without a store (a read-only database) they live in
// the server's memory (docs/WEB.md).

// Cookie names and the session's lifetime.
const (
	SessionCookie = "annals_session"
	// CSRFCookie carries the CSRF token to the page's own script, which sends it back in the
	// X-CSRF-Token header of every state-changing request. The server compares the header
	// with the token of the session (or, in local mode, of the process), never with the
	// cookie, so a cookie planted by someone else proves nothing.
	CSRFCookie     = "annals_csrf"
	CSRFHeader     = "X-CSRF-Token"
	SessionTTL     = 12 * time.Hour
	maxWebSessions = 10000
)

type webSession struct {
	keyHash []byte
	csrf    string
}

// webSessions is the server's table of browser sessions, over a store.
type webSessions struct {
	store annals.WebSessionStore
	// localCSRF is the CSRF token of local mode, where there is no session: one per process.
	localCSRF string
}

func newWebSessions(store annals.WebSessionStore) *webSessions {
	if store == nil {
		store = &memSessions{m: map[string]annals.WebSession{}}
	}
	return &webSessions{store: store, localCSRF: randomToken()}
}

// randomToken is 32 random bytes, base64url.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+).
	return base64.RawURLEncoding.EncodeToString(b)
}

// tokenHash is what a store keeps of a session's token.
func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// csrfOf is a session's CSRF token: derived from the cookie's token (which the page's script
// cannot read), different from the hash a store keeps, so neither the database nor the CSRF
// cookie gives away the other.
func csrfOf(token string) string {
	sum := sha256.Sum256([]byte("annals web csrf\x00" + token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// create starts a session for the key with this hash and returns its cookie token.
func (t *webSessions) create(ctx context.Context, keyHash []byte, now time.Time) (string, *webSession, error) {
	left, err := t.store.PruneWebSessions(ctx, now)
	if err != nil {
		return "", nil, err
	}
	if left >= maxWebSessions {
		return "", nil, annals.Errorf(annals.EUNAVAILABLE, "too many browser sessions are open (%d); try again after some expire", maxWebSessions)
	}
	token := randomToken()
	ws := &annals.WebSession{TokenHash: tokenHash(token), KeyHash: keyHash, CreatedAt: now, ExpiresAt: now.Add(SessionTTL)}
	if err := t.store.CreateWebSession(ctx, ws); err != nil {
		return "", nil, err
	}
	return token, &webSession{keyHash: keyHash, csrf: csrfOf(token)}, nil
}

// find returns the live session of a cookie token, or nil.
func (t *webSessions) find(ctx context.Context, token string, now time.Time) (*webSession, error) {
	if token == "" {
		return nil, nil
	}
	ws, err := t.store.FindWebSession(ctx, tokenHash(token), now)
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &webSession{keyHash: ws.KeyHash, csrf: csrfOf(token)}, nil
}

func (t *webSessions) remove(ctx context.Context, token string) error {
	return t.store.DeleteWebSession(ctx, tokenHash(token))
}

// memSessions keeps sessions in the server's memory, when the database cannot.
type memSessions struct {
	mu sync.Mutex
	m  map[string]annals.WebSession
}

func (m *memSessions) CreateWebSession(_ context.Context, s *annals.WebSession) error {
	if err := s.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.m[string(s.TokenHash)]; ok {
		return annals.Errorf(annals.ECONFLICT, "a web session with this token exists")
	}
	m.m[string(s.TokenHash)] = *s
	return nil
}

func (m *memSessions) FindWebSession(_ context.Context, tokenHash []byte, now time.Time) (*annals.WebSession, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.m[string(tokenHash)]
	if !ok || !now.Before(s.ExpiresAt) {
		return nil, annals.Errorf(annals.ENOTFOUND, "no such web session")
	}
	return &s, nil
}

func (m *memSessions) DeleteWebSession(_ context.Context, tokenHash []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, string(tokenHash))
	return nil
}

func (m *memSessions) PruneWebSessions(_ context.Context, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, s := range m.m {
		if !now.Before(s.ExpiresAt) {
			delete(m.m, id)
		}
	}
	return len(m.m), nil
}

// csrfMatches compares a request's CSRF header with the token expected, in constant time.
func csrfMatches(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// secureRequest reports whether the browser reached the server over TLS (directly, or through
// a proxy that says so): the session cookies are then marked Secure.
func secureRequest(r *http.Request) bool {
	return r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
}

// setWebCookie sets one of the UI's cookies: Path=/, SameSite=Strict, Secure over TLS; a
// maxAge below 0 deletes it.
func setWebCookie(w http.ResponseWriter, r *http.Request, name, value string, httpOnly bool, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: httpOnly, Secure: secureRequest(r), SameSite: http.SameSiteStrictMode,
	})
}
