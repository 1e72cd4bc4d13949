// Package web is the browser UI served at / by annals serve (docs/WEB.md): the chat list, the
// chat view, search and curation, as server-rendered html/template pages with their CSS and
// script embedded in the binary. It is one more transport: each request's history comes from
// the caller's door (history.For, which the HTTP server ran and put in the request's context);
// the UI decodes the request, calls that history and renders. It decides nothing: scope,
// writes and authentication are the door's and the server's.
//
// Safety: every string from a transcript reaches the page through html/template's escaping
// (and termsafe, which shows control characters as visible escapes); no transcript text ever
// becomes a URL scheme, an attribute name or markup; every page carries a strict
// Content-Security-Policy (no inline script or style, nothing fetched from elsewhere),
// X-Frame-Options DENY and nosniff, and no page holding history is stored by the browser.
package web

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// ContentSecurityPolicy is every page's policy: scripts, styles and images from this server
// only, no inline script or style, no frames, forms and connections to this server only.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Config wires a Handler.
type Config struct {
	// Logger receives the causes of internal errors; nil discards them.
	Logger *slog.Logger
	// Now is the clock (relative times); nil means time.Now.
	Now func() time.Time
	// LivePoll is how often the live streams read the store for writes the history's change
	// feed does not see (another process, another server); 0 means 500 ms for an open chat
	// and 1 s for the list.
	LivePoll time.Duration
}

// Handler serves the UI.
type Handler struct {
	mux   *http.ServeMux
	pages map[string]*template.Template
	log   *slog.Logger
	now   func() time.Time
	// livePoll is Config.LivePoll.
	livePoll time.Duration
}

// New returns the UI's handler.
func New(cfg Config) (*Handler, error) {
	h := &Handler{mux: http.NewServeMux(), log: cfg.Logger, now: cfg.Now, livePoll: cfg.LivePoll}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.now == nil {
		h.now = time.Now
	}
	var err error
	if h.pages, err = parsePages(h.funcs()); err != nil {
		return nil, err
	}
	h.routes()
	return h, nil
}

func (h *Handler) routes() {
	assets, _ := fs.Sub(assetFS, "assets")
	files := http.StripPrefix("/assets/", http.FileServerFS(assets))
	h.mux.Handle("GET /assets/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}))
	h.mux.HandleFunc("GET /login", h.serve(h.login))
	h.mux.HandleFunc("GET /{$}", h.serve(h.list))
	h.mux.HandleFunc("GET /chats/{id}", h.serve(h.chat))
	h.mux.HandleFunc("GET /usage", h.serve(h.usage))
	h.mux.HandleFunc("GET /chats/{id}/entries", h.serve(h.entries))
	h.mux.HandleFunc("GET /chats/{id}/related", h.serve(h.related))
	h.mux.HandleFunc("GET /chats/{id}/find", h.serve(h.find))
	h.mux.HandleFunc("GET /chats/{id}/events", h.serve(h.events))
	h.mux.HandleFunc("GET /events", h.serve(h.listEvents))
	h.mux.HandleFunc("POST /chats/{id}/{action}", h.serve(h.curate))
	h.mux.HandleFunc("GET /search", h.serve(h.search))
	h.mux.HandleFunc("/", h.serve(func(w http.ResponseWriter, r *http.Request) error {
		return annals.Errorf(annals.ENOTFOUND, "there is no page at %s", r.URL.Path)
	}))
}

// ServeHTTP serves a request with the UI's security headers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.mux.ServeHTTP(w, r)
}

// serve adapts a page handler: every answer holding history is kept out of the browser's
// cache, and an error is rendered as the error page.
func (h *Handler) serve(fn func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if err := fn(w, r); err != nil {
			h.fail(w, r, err)
		}
	}
}

// callerOf is the request's history, bound to its caller by the door.
func callerOf(r *http.Request) (*history.Caller, error) {
	c := history.CallerFromContext(r.Context())
	if c == nil {
		return nil, annals.Errorf(annals.EINTERNAL, "the web UI was reached without a caller")
	}
	return c, nil
}

// errorPage is the error page's data.
type errorPage struct {
	Status  int
	Code    string
	Message string
}

// fail renders err: its code's status and its caller-facing message (an internal error's
// cause goes to the log only). A chat that is missing and one outside the caller's scope get
// the same page, as the history answers them the same.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := annals.ErrorCode(err)
	msg := annals.ErrorMessage(err)
	if code == annals.EINTERNAL {
		h.log.Error("web: internal error", "path", r.URL.Path, "err", annals.ErrorDetail(err))
		msg = "internal error"
	}
	if msg == "" {
		msg = code
	}
	status := httpapi.StatusOf(code)
	if r.Header.Get("X-Fragment") != "" {
		http.Error(w, msg, status)
		return
	}
	h.render(w, r, status, "error", "Error", errorPage{Status: status, Code: code, Message: msg})
}

// frame is what every page's layout shows besides the page's own data.
type frame struct {
	Title string
	// Who is the signed-in caller ("" before login).
	Who string
	// SignedIn: a session cookie is present (the layout offers sign out).
	SignedIn bool
	Data     any
}

// render writes a whole page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, page, title string, data any) {
	f := frame{Title: title, Data: data}
	if c := history.CallerFromContext(r.Context()); c != nil && c.Principal() != nil {
		f.Who = who(c.Principal())
	}
	if _, err := r.Cookie(httpapi.SessionCookie); err == nil {
		f.SignedIn = true
	}
	h.execute(w, status, page, "layout", f)
}

// fragment writes a part of a page that the page's script inserts (a next page of rows).
func (h *Handler) fragment(w http.ResponseWriter, page, name string, data any) {
	h.execute(w, http.StatusOK, page, name, data)
}

func (h *Handler) execute(w http.ResponseWriter, status int, page, name string, data any) {
	t := h.pages[page]
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		h.log.Error("web: rendering failed", "page", page, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func who(p *annals.Principal) string {
	s := p.TenantID
	if p.UserID != "" {
		s += " / " + p.UserID
	}
	if p.AgentID != "" {
		s += " / " + p.AgentID
	}
	return s + " (" + string(p.Role) + ")"
}

// login shows the login form; the server handles its POST.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) error {
	msg := ""
	switch r.URL.Query().Get("error") {
	case "key":
		msg = "That key was not accepted: it is unknown, revoked or mistyped."
	case "limited":
		msg = "Too many failed sign-ins from this address: wait a minute and try again."
	}
	h.render(w, r, http.StatusOK, "login", "Sign in", struct{ Error, Next string }{msg, r.URL.Query().Get("next")})
	return nil
}
