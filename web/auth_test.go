package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/sqlite"
)

// keyed is a server with keys for two tenants: acme's member and globex's member, each with a
// chat of its own.
type keyed struct {
	*env
	acme, globex string
}

func newKeyed(t *testing.T) *keyed {
	k := &keyed{}
	k.env = newEnv(t, envOptions{seed: func(db *sqlite.DB) {
		k.acme = mustKey(t, db, annals.Principal{TenantID: "acme", UserID: "ann", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeTenant}})
		k.globex = mustKey(t, db, annals.Principal{TenantID: "globex", UserID: "gus", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeTenant}})
	}})
	k.chat(&annals.Chat{ID: "acme-chat", TenantID: "acme", UserID: "ann", Title: "Acme's plans", CreatedAt: t0},
		&annals.Entry{Kind: annals.KindUser, Text: "acme secret"})
	k.chat(&annals.Chat{ID: "globex-chat", TenantID: "globex", UserID: "gus", Title: "Globex's plans", CreatedAt: t0},
		&annals.Entry{Kind: annals.KindUser, Text: "globex secret"})
	return k
}

// login signs c in with key and returns the CSRF token the server handed the page.
func (k *keyed) login(t *testing.T, c *http.Client, key string) string {
	t.Helper()
	a := do(t, c, "POST", k.url+"/login", url.Values{"key": {key}, "next": {"/chats/acme-chat"}}, nil)
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/chats/acme-chat" {
		t.Fatalf("login: %d %v %s", a.status, a.header, a.body)
	}
	var session *http.Cookie
	for _, ck := range (&http.Response{Header: a.header}).Cookies() {
		if ck.Name == httpapi.SessionCookie {
			session = ck
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.MaxAge <= 0 || session.Secure {
		t.Fatalf("the session cookie is %+v (want HttpOnly, SameSite=Strict, an expiry, not Secure over plain HTTP)", session)
	}
	u, _ := url.Parse(k.url)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == httpapi.CSRFCookie {
			return ck.Value
		}
	}
	t.Fatal("no CSRF cookie after login")
	return ""
}

func TestLoginRequiredWithKeys(t *testing.T) {
	k := newKeyed(t)
	c := client(t)
	a := do(t, c, "GET", k.url+"/chats/acme-chat", nil, nil)
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/login?next=%2Fchats%2Facme-chat" {
		t.Fatalf("a page without a session: %d %q", a.status, a.header.Get("Location"))
	}
	a = do(t, c, "GET", k.url+"/login", nil, nil)
	if a.status != 200 || !strings.Contains(a.body, `name="key"`) {
		t.Fatalf("the login page: %d", a.status)
	}
	// A wrong key is refused, back to the form with a message.
	a = do(t, c, "POST", k.url+"/login", url.Values{"key": {"ak_wrong"}}, nil)
	if a.status != http.StatusSeeOther || !strings.HasPrefix(a.header.Get("Location"), "/login?error=key") {
		t.Fatalf("a wrong key: %d %q", a.status, a.header.Get("Location"))
	}
	// A login from another site is refused.
	a = do(t, c, "POST", k.url+"/login", url.Values{"key": {k.acme}}, map[string]string{"Origin": "https://evil.example"})
	if a.status != http.StatusForbidden {
		t.Fatalf("a cross-site login: %d", a.status)
	}
	// next never leaves the server.
	a = do(t, c, "POST", k.url+"/login", url.Values{"key": {k.acme}, "next": {"//evil.example/x"}}, nil)
	if a.header.Get("Location") != "/" {
		t.Fatalf("login with next=//evil.example sends the browser to %q", a.header.Get("Location"))
	}
	csrf := k.login(t, c, k.acme)
	a = do(t, c, "GET", k.url+"/chats/acme-chat", nil, nil)
	if a.status != 200 || !strings.Contains(a.body, "acme secret") || !strings.Contains(a.body, "Sign out") {
		t.Fatalf("the own chat after login: %d", a.status)
	}
	// Sign-out needs the CSRF token, then ends the session.
	if a = do(t, c, "POST", k.url+"/logout", url.Values{}, nil); a.status != http.StatusForbidden {
		t.Fatalf("sign-out without the CSRF token: %d", a.status)
	}
	if a = do(t, c, "POST", k.url+"/logout", url.Values{}, map[string]string{"X-CSRF-Token": csrf}); a.status != http.StatusSeeOther {
		t.Fatalf("sign-out: %d %s", a.status, a.body)
	}
	if a = do(t, c, "GET", k.url+"/chats/acme-chat", nil, nil); a.status != http.StatusSeeOther {
		t.Fatalf("the chat after sign-out: %d", a.status)
	}
}

func TestOtherTenantsChatIsNotFound(t *testing.T) {
	k := newKeyed(t)
	c := client(t)
	k.login(t, c, k.acme)
	other := do(t, c, "GET", k.url+"/chats/globex-chat", nil, nil)
	missing := do(t, c, "GET", k.url+"/chats/no-such-chat", nil, nil)
	if other.status != http.StatusNotFound || missing.status != http.StatusNotFound {
		t.Fatalf("another tenant's chat: %d, a missing one: %d", other.status, missing.status)
	}
	if strings.ReplaceAll(other.body, "globex-chat", "ID") != strings.ReplaceAll(missing.body, "no-such-chat", "ID") {
		t.Errorf("another tenant's chat and a missing one get different pages:\n%s\n---\n%s", other.body, missing.body)
	}
	if strings.Contains(other.body, "globex secret") || strings.Contains(other.body, "Globex's plans") {
		t.Error("another tenant's chat leaked")
	}
	if a := do(t, c, "GET", k.url+"/chats/globex-chat/events?after=0", nil, nil); a.status != http.StatusNotFound || strings.Contains(a.body, "globex secret") {
		t.Errorf("another tenant's live stream: %d", a.status)
	}
	list := do(t, c, "GET", k.url+"/", nil, nil)
	if !strings.Contains(list.body, "Acme&#39;s plans") || strings.Contains(list.body, "Globex") {
		t.Errorf("the list shows more than the key's scope")
	}
	// A revoked key's session ends at once.
	keys, err := k.db.ListKeys(k.ownerCtx())
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range keys {
		if key.Principal.TenantID == "acme" {
			if _, err := k.db.RevokeKey(k.ownerCtx(), key.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a := do(t, c, "GET", k.url+"/", nil, nil); a.status != http.StatusSeeOther {
		t.Errorf("a revoked key's session still opens the list: %d", a.status)
	}
}

func TestLocalModeNeedsNoLogin(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := client(t)
	if a := do(t, c, "GET", e.url+"/login", nil, nil); a.status != http.StatusSeeOther || a.header.Get("Location") != "/" {
		t.Errorf("the login page in local mode: %d %q", a.status, a.header.Get("Location"))
	}
	if a := do(t, c, "GET", e.url+"/", nil, nil); a.status != 200 || strings.Contains(a.body, "Sign out") {
		t.Errorf("the list in local mode: %d", a.status)
	}
	// Local mode still refuses a request addressed to another host name (DNS rebinding).
	if a := do(t, c, "GET", e.url+"/", nil, map[string]string{"Host": "evil.example"}); a.status == 200 {
		t.Errorf("local mode answered a request for host evil.example")
	}
}
