package httpapi

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/queryview"
	"github.com/annals-dev/annals/view"
)

// access says who may call a route.
type access int

const (
	// public routes need no credentials (GET /healthz).
	public access = iota
	// reader routes need a principal and never write.
	reader
	// writer routes need a principal whose door lets it write (a read-only server refuses them
	// before the body is read).
	writer
	// admin routes need a principal the door lets do admin-only operations: /metrics counts
	// every tenant's chats and requests, which no tenant's operator may see.
	admin
	// browser routes are the web UI's (Config.Web): the caller is a session cookie's key or,
	// in local mode, the local owner; a state-changing request needs the CSRF token too.
	browser
)

// route options.
type route struct {
	access access
	// maxBody overrides the server's body limit (0: the server's).
	maxBody int64
	// stream routes hold long-lived answers (MCP's event streams): no request timeout; the
	// protocol's sessions end themselves.
	stream bool
	// agent marks an agent's tool surface (MCP): its writes are offered as the door decides
	// for agents (history.SurfaceAgent).
	agent bool
	// answer, when set, writes the route's errors in its own protocol (the RPC's).
	answer func(w http.ResponseWriter, r *http.Request, err error)
	h      func(w http.ResponseWriter, r *http.Request) error
}

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.handle("POST /v1/history", route{access: reader, h: s.handleHistory})
	s.handle("POST /v1/_history", route{access: reader, h: s.handleLoomcycleHistory})

	s.handle("POST /v1/sessions", route{access: writer, h: s.handleCreateChat})
	s.handle("POST /v1/sessions/{id}/entries", route{access: writer, h: s.handleAppend})
	s.handle("POST /v1/sessions/{id}/truncate", route{access: writer, h: s.handleTruncate})
	s.handle("POST /v1/runs", route{access: writer, h: s.handleRun})
	s.handle("POST /v1/capture", route{access: writer, h: s.handleCapture})
	s.handle("POST /v1/ingest", route{access: writer, h: s.handleIngest})
	s.handle("POST /v1/replicate", route{access: writer, h: s.handleReplicate})
	s.handle("POST /v1/replicate/heads", route{access: reader, h: s.handleReplicaHeads})
	s.handle("GET /v1/replicate/feed", route{access: reader, h: s.handleReplicaFeed})

	s.handle("GET /v1/sessions/{id}/export", route{access: reader, h: s.handleExport})
	s.handle("GET /v1/sessions/{id}/runs", route{access: reader, h: s.handleRuns})

	s.handle("POST /query", route{access: reader, maxBody: queryview.MaxBodyBytes, h: s.handleQuery})
	s.handle("GET /healthz", route{access: public, h: s.handleHealth})
	s.handle("GET /metrics", route{access: admin, h: s.handleMetrics})
	s.webRoutes()
	// The door refuses a caller who is not an admin (history.Caller.Embeddings).
	s.handle("POST /v1/admin/embeddings", route{access: reader, h: s.handleEmbeddings})
	if s.cfg.MCP != nil {
		mcp := route{access: reader, stream: true, agent: true, h: s.handleMCP}
		s.handle("POST /mcp", mcp)
		s.handle("GET /mcp", mcp)
		s.handle("DELETE /mcp", mcp)
	}
	if s.cfg.RPC != nil {
		s.handle("POST "+s.cfg.RPC.Prefix(), route{access: reader, answer: s.cfg.RPC.WriteError, h: s.handleRPC})
	}
}

// Routes lists the server's routes as registered, "METHOD /path" in the mux's pattern syntax
// ({id} a path segment; a path ending in "/" everything under it): what docs/openapi.yaml must
// document, which its test checks.
func (s *Server) Routes() []string { return slices.Clone(s.patterns) }

// handleRPC hands an authenticated request to the RPC handler, which answers in its protocol.
func (s *Server) handleRPC(w http.ResponseWriter, r *http.Request) error {
	s.cfg.RPC.ServeHTTP(w, r)
	return nil
}

// handleMCP hands an authenticated request to the MCP handler, which answers in the
// protocol's own terms (JSON-RPC errors, event streams).
func (s *Server) handleMCP(w http.ResponseWriter, r *http.Request) error {
	s.cfg.MCP.ServeHTTP(w, r)
	return nil
}

// handle registers a route with the stdlib mux's method pattern, wrapped in authentication,
// the read-only gate, the body limit, the request timeout and the one error mapping.
func (s *Server) handle(pattern string, rt route) {
	s.patterns = append(s.patterns, pattern)
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if err := s.serve(w, r, rt); err != nil && !errors.Is(err, errAnswered) {
			if rt.answer != nil {
				s.logInternal(r, err)
				rt.answer(w, r, err)
				return
			}
			s.writeError(w, r, err)
		}
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, rt route) error {
	if rt.access != public {
		auth := s.authenticate
		if rt.access == browser {
			auth = s.authenticateBrowser
		}
		p, local, err := auth(w, r)
		if err != nil {
			return err
		}
		// The door decides what this caller may do; the routes only ask it.
		svc := s.svc
		if local && s.cfg.LocalReads != nil {
			svc = s.cfg.LocalReads
		}
		caller := history.For(svc, p, s.access(rt, local))
		if rt.access == admin {
			if err := caller.CheckAdmin(r.Pattern, "shows every tenant's counts"); err != nil {
				return err
			}
		}
		ctx := annals.NewContextWithPrincipal(r.Context(), caller.Principal())
		if local && s.cfg.LocalReads != nil {
			ctx = context.WithValue(ctx, remoteReadsKey{}, true)
		}
		r = r.WithContext(history.NewContextWithCaller(ctx, caller))
		if rw, ok := w.(*responseWriter); ok {
			rw.principal = p
		}
		if rt.access == writer {
			if err := caller.CheckWrite(r.Pattern); err != nil {
				return err
			}
		}
		if rt.access == browser {
			if err := s.checkBrowserWrite(w, r, caller); err != nil {
				return err
			}
		}
	}
	limit, own := s.cfg.MaxBodyBytes, false
	if rt.maxBody > 0 && rt.maxBody < limit {
		limit, own = rt.maxBody, true
	}
	if r.ContentLength > limit {
		return tooLarge(limit, own)
	}
	body := &limitedBody{r: r.Body, left: limit, limit: limit, route: own}
	ctx, cancel := r.Context(), context.CancelFunc(func() {})
	if !rt.stream {
		ctx, cancel = context.WithTimeout(ctx, s.cfg.RequestTimeout)
	} else if rt.access == browser {
		// A page's live stream ends when the server stops, so a stop never waits for it.
		ctx, cancel = context.WithCancel(ctx)
		stop := context.AfterFunc(s.streams, cancel)
		defer stop()
	}
	defer cancel()
	guard := newBodyGuard(ctx, body, s.cfg.RequestTimeout)
	r.Body = guard
	err := rt.h(w, r.WithContext(ctx))
	switch {
	case err == nil:
	case body.exceeded:
		return tooLarge(limit, own)
	case guard.err != nil:
		// Whatever the decoder made of the failed read, the refusal is the guard's.
		return guard.err
	case !rt.stream && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return timedOut(s.cfg.RequestTimeout)
	}
	return err
}

// access is the mode a route's callers reach the history in: the server's configuration and
// how the caller arrived (local mode, an agent's surface).
func (s *Server) access(rt route, local bool) history.Access {
	a := history.Access{ReadOnly: s.cfg.ReadOnly, Agents: s.cfg.Agents, Local: local}
	if rt.agent {
		a.Surface, a.AllowWrites = history.SurfaceAgent, s.cfg.MCPAllowWrites
	}
	return a
}

// historyFor is the history as the request's caller reaches it: the door's answer, which serve
// put in the context. A context without one (no route sets none) gets a door for nobody.
func (s *Server) historyFor(ctx context.Context) annals.HistoryService {
	if c := history.CallerFromContext(ctx); c != nil {
		return c
	}
	return history.For(s.svc, nil, history.Access{ReadOnly: true})
}

// remoteReadsKey marks the context of a caller whose reads ask the remote collection
// (Config.LocalReads).
type remoteReadsKey struct{}

// viewFor is the query view as the request's caller reaches it, through the same door.
func (s *Server) viewFor(ctx context.Context) view.Service {
	c := history.CallerFromContext(ctx)
	if c == nil {
		c = history.For(s.svc, nil, history.Access{ReadOnly: true})
	}
	return c.View(s.cfg.View)
}

// authenticate returns the caller's principal: the API key's, or in local mode, for a request
// without credentials, the local owner (local is then true). Missing, malformed, unknown and revoked keys all get the
// same 401 with no detail, so the answer says nothing about which keys exist. Each 401 counts
// against the source address (authLimit); an address past its allowance gets 429 with
// Retry-After, without a look at the store, unless the request carries an active key.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (p *annals.Principal, local bool, err error) {
	auth := r.Header.Get("Authorization")
	if auth == "" && s.local && !s.keysActive(r.Context()) {
		if err := localRequestAllowed(r); err != nil {
			return nil, false, err
		}
		return history.LocalOwner(), true, nil
	}
	hash := bearerHash(auth)
	addr := sourceOf(r)
	if wait := s.authLimit.wait(addr); wait > 0 {
		known := false
		if hash != nil && s.keys != nil {
			var err error
			if known, err = s.authLimit.isKnown(r.Context(), s.keys, hash); err != nil {
				return nil, false, err
			}
		}
		if !known {
			return nil, false, s.authLimit.limitedError(w, wait)
		}
	}
	p, err = s.keyPrincipal(r, hash)
	if isCode(err, CodeUnauthorized) {
		s.authLimit.failed(addr)
	}
	return p, false, err
}

// bearerHash is the hash of a well-formed bearer key in an Authorization value, else nil.
func bearerHash(auth string) []byte {
	scheme, secret, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil
	}
	secret = strings.TrimSpace(secret)
	if !annals.WellFormedKeySecret(secret) {
		return nil
	}
	return annals.HashKeySecret(secret)
}

// keyPrincipal is the principal of the active key whose secret hashes to hash (nil: none
// given, or malformed).
func (s *Server) keyPrincipal(r *http.Request, hash []byte) (*annals.Principal, error) {
	if hash == nil || s.keys == nil {
		return nil, errUnauthorized
	}
	key, err := s.keys.FindKeyByHash(r.Context(), hash)
	if err != nil {
		if annals.ErrorCode(err) != annals.ENOTFOUND {
			// The store is down: say so rather than blame the key.
			return nil, err
		}
		return nil, errUnauthorized
	}
	if subtle.ConstantTimeCompare(key.Hash, hash) != 1 || key.Revoked() {
		return nil, errUnauthorized
	}
	p := key.Principal
	p.Scopes = append([]annals.Scope(nil), key.Principal.Scopes...)
	// The access log names the key by its id (never its secret).
	if id, ok := r.Context().Value(keyIDKey{}).(*string); ok {
		*id = key.ID
	}
	return &p, nil
}

// localRequestAllowed guards local mode against the browser. Binding to loopback keeps other
// machines out, but a web page the user visits can still reach 127.0.0.1: with a cross-site
// "simple" POST (no preflight), or, after DNS rebinding, under its own host name. Local mode
// therefore answers only requests addressed to a loopback host and carrying no sign of a
// cross-site browser request (an Origin that is not loopback, or Sec-Fetch-Site: cross-site).
func localRequestAllowed(r *http.Request) error {
	refuse := annals.Errorf(annals.EFORBIDDEN, "local mode answers only same-machine requests to a loopback host (localhost, 127.0.0.1, [::1]) and never cross-site browser requests; create an API key to serve anything else")
	if !isLoopbackRequestHost(r.Host) {
		return refuse
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || !isLoopbackRequestHost(u.Host) {
			return refuse
		}
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" {
		return refuse
	}
	return nil
}

// isLoopbackHost reports whether a Host value (with or without a port) names this machine.
func isLoopbackRequestHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

var errUnauthorized = httpError(CodeUnauthorized, "a valid API key is required (Authorization: Bearer <key>)")

// keyIDKey carries a *string in the request context that authenticate fills with the key's id.
type keyIDKey struct{}

// writeError writes err as the JSON error body, logging the cause of an internal error.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	d := errorDetail(err)
	s.logInternal(r, err)
	if rw, ok := w.(*responseWriter); ok && rw.wroteHeader {
		// A streamed answer already started with 200: the status can no longer say it failed,
		// so the connection is dropped before the response's end, which every client reports
		// as an error (curl: exit 18; Go: unexpected EOF) instead of keeping a truncated file.
		s.log.Warn("error after the response started; connection aborted", "route", r.Pattern, "code", d.Code, "err", annals.ErrorDetail(err))
		if aerr := abortResponse(rw); aerr != nil {
			s.log.Error("could not abort a failed response", "route", r.Pattern, "err", aerr)
		}
		return
	}
	writeErrorBody(w, d)
}

// logInternal logs the cause of an internal error, which its answer leaves out.
func (s *Server) logInternal(r *http.Request, err error) {
	if annals.ErrorCode(err) == annals.EINTERNAL {
		s.log.Error("internal error", "method", r.Method, "route", r.Pattern, "err", annals.ErrorDetail(err))
	}
}

// abortResponse ends a started response without its end, so the client sees a body cut short,
// never a clean end. Over HTTP/1.1 the connection is taken over and closed before the last
// chunk. Over HTTP/2 (h2c, which gRPC clients speak) there is no connection of its own to take:
// the handler aborts with http.ErrAbortHandler, the standard library's way to reset the
// stream, which ServeHTTP passes on after logging the request.
func abortResponse(rw *responseWriter) error {
	if rw.req.ProtoMajor >= 2 {
		rw.aborted = true
		panic(http.ErrAbortHandler)
	}
	conn, buf, err := http.NewResponseController(rw).Hijack()
	if err != nil {
		return fmt.Errorf("take over the connection: %w", err)
	}
	rw.aborted = true
	// What was written before the failure goes out first (the chunk framing stays valid); the
	// terminating chunk never does.
	_ = buf.Flush()
	return conn.Close()
}

// ServeHTTP serves a request: the mux, with panics recovered, unmatched paths and methods
// answered in JSON, and every request counted and logged (never its body or credentials).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var keyID string
	r = r.WithContext(context.WithValue(r.Context(), keyIDKey{}, &keyID))
	rw := &responseWriter{ResponseWriter: w, req: r}
	w.Header().Set(annals.APIVersionHeader, annals.APIVersion)
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				s.finish(rw, r, start, keyID)
				panic(v)
			}
			s.log.Error("panic serving request", "method", r.Method, "route", r.Pattern, "panic", fmt.Sprint(v))
			if !rw.wroteHeader {
				writeErrorBody(rw, ErrorDetail{Code: annals.EINTERNAL, Message: "internal error"})
			}
		}
		s.finish(rw, r, start, keyID)
	}()
	s.mux.ServeHTTP(rw, r)
}

func (s *Server) finish(rw *responseWriter, r *http.Request, start time.Time, keyID string) {
	elapsed := time.Since(start)
	status := rw.status
	if status == 0 {
		status = http.StatusOK
	}
	route := r.Pattern
	if route == "" {
		route = "unmatched"
	}
	s.metrics.observe(route, status, elapsed)
	attrs := []any{"method", r.Method, "route", route, "status", status,
		"duration_ms", float64(elapsed.Microseconds()) / 1000, "bytes", rw.bytes}
	if rw.principal != nil {
		attrs = append(attrs, "tenant", rw.principal.TenantID, "role", string(rw.principal.Role))
	}
	if keyID != "" {
		attrs = append(attrs, "key_id", keyID)
	}
	if rw.aborted {
		attrs = append(attrs, "aborted", true)
	}
	s.log.Info("http request", attrs...)
}

// viewPath reports whether an unrouted path is the query view's to answer: any path but
// annals's own (/v1/..., /metrics, /mcp), which keep annals's error shape and its 405.
func viewPath(path string) bool {
	return !strings.HasPrefix(path, "/v1/") && path != "/v1" && path != "/metrics" && path != "/mcp"
}

// responseWriter records the status and size of a response, and turns the mux's own plain-text
// 404 and 405 answers into the JSON error body.
type responseWriter struct {
	http.ResponseWriter
	req         *http.Request
	status      int
	bytes       int64
	wroteHeader bool
	// swallow drops the mux's plain-text body after a rewritten error.
	swallow bool
	// aborted is set when a failure after the first byte dropped the connection.
	aborted   bool
	principal *annals.Principal
}

func (w *responseWriter) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	w.status = code
	if w.req.Pattern == "" && (code == http.StatusNotFound || code == http.StatusMethodNotAllowed) {
		// The mux matched no route (404) or matched the path but not the method (405).
		w.swallow = true
		d := ErrorDetail{Code: annals.ENOTFOUND, Message: fmt.Sprintf("no route %s %s (see docs/HTTP.md)", w.req.Method, w.req.URL.Path)}
		if code == http.StatusMethodNotAllowed {
			d = ErrorDetail{Code: CodeMethodNotAllowed, Message: fmt.Sprintf("%s is not allowed on %s (allowed: %s)", w.req.Method, w.req.URL.Path, w.Header().Get("Allow"))}
		}
		var body []byte
		if viewPath(w.req.URL.Path) {
			// Outside annals's own routes the server is the reference's view to its clients:
			// every other method and path is 404 in the view's error shape.
			code = http.StatusNotFound
			body, _ = jsonBytes(QueryError{OK: false, Error: fmt.Sprintf("no route %s %s (the query view answers POST /query and GET /healthz)", w.req.Method, w.req.URL.Path), Code: annals.ENOTFOUND})
		} else {
			body, _ = jsonBytes(ErrorBody{Error: d})
		}
		w.status = code
		h := w.Header()
		h.Del("X-Content-Type-Options")
		if code == http.StatusNotFound {
			h.Del("Allow")
		}
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", fmt.Sprint(len(body)))
		w.ResponseWriter.WriteHeader(code)
		n, _ := w.ResponseWriter.Write(body)
		w.bytes += int64(n)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.swallow {
		return len(p), nil
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Flush lets streamed answers (exports) reach the client as they are written.
func (w *responseWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController access to the underlying writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
