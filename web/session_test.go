package web_test

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/httpapi"
)

// sessionToken is the session cookie c holds for the env's server.
func sessionToken(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	u, _ := url.Parse(base)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == httpapi.SessionCookie {
			return ck.Value
		}
	}
	t.Fatal("no session cookie")
	return ""
}

// TestSessionsOutliveARestart: a browser session is kept in the database, as the hash of its
// token: another server over the same database (a restart) knows it, its CSRF token still
// holds; it expires after SessionTTL; revoking the key ends it and removes it.
func TestSessionsOutliveARestart(t *testing.T) {
	k := newKeyed(t)
	c := client(t)
	csrf := k.login(t, c, k.acme)
	token := sessionToken(t, c, k.url)
	ctx := context.Background()
	hash := sha256.Sum256([]byte(token))
	if s, err := k.db.FindWebSession(ctx, hash[:], time.Now()); err != nil || !s.ExpiresAt.After(time.Now().Add(httpapi.SessionTTL-time.Minute)) {
		t.Fatalf("the database holds %+v, %v; want the session under its token's hash, expiring in %s", s, err, httpapi.SessionTTL)
	}
	if _, err := k.db.FindWebSession(ctx, []byte(token), time.Now()); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("the database finds the session by its raw token (%v): it must keep only the hash", err)
	}

	k.restart(nil)
	if a := do(t, c, "GET", k.url+"/chats/acme-chat", nil, nil); a.status != 200 || !strings.Contains(a.body, "acme secret") {
		t.Fatalf("the chat after a restart: %d (want the session to hold)", a.status)
	}
	if a := do(t, c, "POST", k.url+"/chats/acme-chat/pin", url.Values{"on": {"true"}}, map[string]string{"X-CSRF-Token": csrf}); a.status != 200 {
		t.Fatalf("a curation with the CSRF token of before the restart: %d %s", a.status, a.body)
	}

	// Past its expiry the session is over.
	k.restart(func() time.Time { return time.Now().Add(httpapi.SessionTTL + time.Minute) })
	if a := do(t, c, "GET", k.url+"/chats/acme-chat", nil, nil); a.status != http.StatusSeeOther {
		t.Fatalf("the chat after the session expired: %d, want the login", a.status)
	}

	// Revoking the key ends the session and removes it.
	k.restart(nil)
	if a := do(t, c, "GET", k.url+"/chats/acme-chat", nil, nil); a.status != 200 {
		t.Fatalf("the chat before the revocation: %d", a.status)
	}
	keys, err := k.db.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range keys {
		if key.Principal.TenantID == "acme" {
			if _, err := k.db.RevokeKey(ctx, key.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a := do(t, c, "GET", k.url+"/chats/acme-chat", nil, nil); a.status != http.StatusSeeOther {
		t.Fatalf("the chat after the key was revoked: %d, want the login", a.status)
	}
	if _, err := k.db.FindWebSession(ctx, hash[:], time.Now()); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("the revoked key's session is still stored (%v)", err)
	}
}
