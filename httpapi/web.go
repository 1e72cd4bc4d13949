package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// The web UI's routes (Config.Web): the pages and their fragments, the assets and the login.
// The server authenticates a browser (a session cookie, or local mode), checks the CSRF token
// of every state-changing request, puts the door's answer in the request's context, and hands
// the request to the UI, which renders. docs/WEB.md.

// webPages are the paths the UI serves behind authentication. None is annals's API's: /v1,
// /query, /mcp, /healthz and /metrics keep their routes.
var webPages = []string{
	"GET /{$}", "GET /chats/", "POST /chats/", "GET /search", "GET /usage", "GET /usage/",
}

// errAnswered says the route has answered already (a redirect to the login page).
var errAnswered = errors.New("answered")

var errSignIn = httpError(CodeUnauthorized, "sign in first: open /login and give an API key")

func (s *Server) webRoutes() {
	if s.cfg.Web == nil {
		return
	}
	s.handle("GET /assets/", route{access: public, h: s.handleWeb})
	s.handle("GET /login", route{access: public, h: s.handleLoginPage})
	s.handle("POST /login", route{access: public, maxBody: 8 << 10, h: s.handleLogin})
	s.handle("POST /logout", route{access: browser, maxBody: 8 << 10, h: s.handleLogout})
	for _, p := range webPages {
		s.handle(p, route{access: browser, h: s.handleWeb})
	}
	// The page's export links download through the API's own export, as the browser's caller.
	s.handle("GET /chats/{id}/export", route{access: browser, h: s.handleExport})
	s.handle("GET /events", route{access: browser, stream: true, h: s.handleWeb})
	s.handle("GET /chats/{id}/events", route{access: browser, stream: true, h: s.handleWeb})
}

func (s *Server) handleWeb(w http.ResponseWriter, r *http.Request) error {
	s.cfg.Web.ServeHTTP(w, r)
	return nil
}

// handleLoginPage shows the login form, or sends a local-mode browser, which needs none, home.
func (s *Server) handleLoginPage(w http.ResponseWriter, r *http.Request) error {
	if s.LocalMode() {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	s.cfg.Web.ServeHTTP(w, r)
	return nil
}

// authenticateBrowser is authenticate for the UI: a live session's key, else in local mode the
// local owner. A page asked for without either is sent to the login page.
func (s *Server) authenticateBrowser(w http.ResponseWriter, r *http.Request) (*annals.Principal, bool, error) {
	sess, token, err := s.browserSession(r)
	if err != nil {
		return nil, false, err
	}
	if sess != nil {
		p, err := s.keyPrincipal(r, sess.keyHash)
		if err == nil {
			return p, false, nil
		}
		if !isCode(err, CodeUnauthorized) {
			return nil, false, err
		}
		// The key was revoked: its sessions end.
		if err := s.sessions.remove(r.Context(), token); err != nil {
			return nil, false, err
		}
	}
	if s.local && !s.keysActive(r.Context()) {
		if err := localRequestAllowed(r); err != nil {
			return nil, false, err
		}
		return history.LocalOwner(), true, nil
	}
	if r.Method == http.MethodGet && !strings.HasSuffix(r.URL.Path, "/events") {
		http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return nil, false, errAnswered
	}
	return nil, false, errSignIn
}

// browserSession is the live session the request's cookie names (nil: none), with the
// cookie's token.
func (s *Server) browserSession(r *http.Request) (*webSession, string, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return nil, "", nil
	}
	sess, err := s.sessions.find(r.Context(), c.Value, s.now())
	return sess, c.Value, err
}

// checkBrowserWrite hands a page its CSRF token (a cookie its script reads) and refuses a
// state-changing request without the token or from another site.
func (s *Server) checkBrowserWrite(w http.ResponseWriter, r *http.Request, caller *history.Caller) error {
	want := s.sessions.localCSRF
	sess, _, err := s.browserSession(r)
	if err != nil {
		return err
	}
	if sess != nil {
		want = sess.csrf
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if c, err := r.Cookie(CSRFCookie); err != nil || c.Value != want {
			setWebCookie(w, r, CSRFCookie, want, false, int(SessionTTL.Seconds()))
		}
		return nil
	}
	if crossSite(r) || !csrfMatches(r.Header.Get(CSRFHeader), want) {
		return annals.Errorf(annals.EFORBIDDEN, "this request changes the history and needs the page's CSRF token (header %s); reload the page and try again", CSRFHeader)
	}
	return nil
}

// crossSite reports a browser's sign that the request comes from another site.
func crossSite(r *http.Request) bool {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return true
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		return err != nil || !strings.EqualFold(u.Host, r.Host)
	}
	return false
}

// handleLogin exchanges an API key (the form's key field) for a session: an HttpOnly,
// SameSite=Strict cookie (Secure over TLS) that expires after SessionTTL. A wrong key counts
// against the source address like any failed authentication.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	if crossSite(r) {
		return annals.Errorf(annals.EFORBIDDEN, "a login must come from this server's own login page")
	}
	if err := r.ParseForm(); err != nil {
		return annals.Errorf(annals.EINVALID, "the login form could not be read: send key=<API key> as a form")
	}
	next := safeNext(r.PostForm.Get("next"))
	addr := sourceOf(r)
	if s.authLimit.wait(addr) > 0 {
		http.Redirect(w, r, "/login?error=limited&next="+url.QueryEscape(next), http.StatusSeeOther)
		return nil
	}
	hash := bearerHash("Bearer " + strings.TrimSpace(r.PostForm.Get("key")))
	if _, err := s.keyPrincipal(r, hash); err != nil {
		if !isCode(err, CodeUnauthorized) {
			return err
		}
		s.authLimit.failed(addr)
		http.Redirect(w, r, "/login?error=key&next="+url.QueryEscape(next), http.StatusSeeOther)
		return nil
	}
	token, sess, err := s.sessions.create(r.Context(), hash, s.now())
	if err != nil {
		return err
	}
	setWebCookie(w, r, SessionCookie, token, true, int(SessionTTL.Seconds()))
	setWebCookie(w, r, CSRFCookie, sess.csrf, false, int(SessionTTL.Seconds()))
	http.Redirect(w, r, next, http.StatusSeeOther)
	return nil
}

// handleLogout ends the session and clears its cookies.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		if err := s.sessions.remove(r.Context(), c.Value); err != nil {
			return err
		}
	}
	setWebCookie(w, r, SessionCookie, "", true, -1)
	setWebCookie(w, r, CSRFCookie, "", false, -1)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}

// safeNext is where a login sends the browser: a path on this server, never another site.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || strings.ContainsAny(next, "\r\n") {
		return "/"
	}
	return next
}
