package httpapi

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"sync"
	"time"

	"github.com/annals-dev/annals"
)

// Browser sessions: the web UI's login exchanges an API key for a session cookie. The server
// keeps, per session, the key's hash (every request finds the key again, so revoking it ends
// its sessions at once), a CSRF token and an expiry; the cookie carries only a random token,
// stored here hashed. Sessions live in the server's memory: a restart signs everyone out, and
// each server of a shared PostgreSQL database has its own (docs/WEB.md).

// Cookie names and the session's lifetime.
const (
	SessionCookie = "annals_session"
	// CSRFCookie carries the CSRF token to the page's own script, which sends it back in the
	// X-CSRF-Token header of every state-changing request. The server compares the header
	// with the token it holds for the session (or, in local mode, for the process), never
	// with the cookie, so a cookie planted by someone else proves nothing.
	CSRFCookie     = "annals_csrf"
	CSRFHeader     = "X-CSRF-Token"
	SessionTTL     = 12 * time.Hour
	maxWebSessions = 10000
)

type webSession struct {
	keyHash []byte
	csrf    string
	expires time.Time
}

// webSessions is the server's table of browser sessions.
type webSessions struct {
	mu sync.Mutex
	m  map[string]*webSession
	// localCSRF is the CSRF token of local mode, where there is no session: one per process.
	localCSRF string
}

func newWebSessions() *webSessions {
	return &webSessions{m: map[string]*webSession{}, localCSRF: randomToken()}
}

// randomToken is 32 random bytes, base64url.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+).
	return base64.RawURLEncoding.EncodeToString(b)
}

func tokenID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// create starts a session for the key with this hash and returns its cookie token.
func (t *webSessions) create(keyHash []byte, now time.Time) (string, *webSession, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, s := range t.m {
		if !now.Before(s.expires) {
			delete(t.m, id)
		}
	}
	if len(t.m) >= maxWebSessions {
		return "", nil, annals.Errorf(annals.EUNAVAILABLE, "too many browser sessions are open (%d); try again after some expire", maxWebSessions)
	}
	token := randomToken()
	s := &webSession{keyHash: keyHash, csrf: randomToken(), expires: now.Add(SessionTTL)}
	t.m[tokenID(token)] = s
	return token, s, nil
}

// find returns the live session of a cookie token, or nil.
func (t *webSessions) find(token string, now time.Time) *webSession {
	if token == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	id := tokenID(token)
	s := t.m[id]
	if s != nil && !now.Before(s.expires) {
		delete(t.m, id)
		return nil
	}
	return s
}

func (t *webSessions) remove(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, tokenID(token))
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
