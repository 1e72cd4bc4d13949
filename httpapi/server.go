// Package httpapi is the annals HTTP server and its Go client.
//
// The server serves the history op envelope (POST /v1/history and the loomcycle alias
// POST /v1/_history), the capture routes under /v1/sessions, /v1/runs, /v1/capture and
// /v1/ingest, the lanius-style read-only view (POST /query, GET /healthz), exports and
// Prometheus metrics. Callers authenticate with bearer API keys (annals.KeyStore), each bound to a
// principal; with no keys at all it runs in local mode, on loopback only, as the local owner.
// docs/HTTP.md is the reference.
//
// The Client implements the same operations over HTTP: annals.HistoryService (each call sent as
// the op envelope that means it), annals.CaptureStore and the query view.
package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/queryview"
	"github.com/annals-dev/annals/view"
)

// Defaults of Config.
const (
	DefaultAddr            = "127.0.0.1:7457"
	DefaultMaxBodyBytes    = 8 << 20
	DefaultRequestTimeout  = 60 * time.Second
	DefaultShutdownTimeout = 10 * time.Second
	// ReadHeaderTimeout bounds how long a client may take to send its request headers.
	ReadHeaderTimeout = 10 * time.Second
)

// Config wires a Server.
type Config struct {
	// Addr is the address to listen on, host:port; port 0 picks a free port. Empty means
	// DefaultAddr.
	Addr string
	// Service is the history the routes call, each request through the door (history.For)
	// bound to its caller: the ops, the capture path and the runs (normally a
	// *history.Service over Store).
	Service annals.HistoryService
	// LocalReads, when set, is the history the callers of local mode (no key: the machine's
	// own user) reach instead of Service: remote query mode's, whose reads ask the remote
	// collection at LocalReadsFrom and whose writes go to Service (docs/REPLICATION.md). The
	// query view, which only this database answers, refuses them. Callers with a key reach
	// Service: their key's scope is this server's, not the remote key's.
	LocalReads     annals.HistoryService
	LocalReadsFrom string
	// View is the read-only query view behind POST /query, reached through the same door as
	// Service, bound to each caller (normally the same
	// *history.Service, which resolves the caller's scope). Nil answers POST /query with
	// not_implemented.
	View view.Service
	// QueryCacheBytes bounds the answers of POST /query kept for the same query asked again
	// until anything is committed (queryview.Cache): 0 is queryview.DefaultCacheBytes, a
	// negative value keeps none.
	QueryCacheBytes int
	// Stats counts the history across every tenant for /metrics, reached through the same
	// door as Service, which offers it to admins only (normally the same *history.Service).
	// Nil leaves the counts out of /metrics (annals_store_up 0).
	Stats history.Stats
	// Embeddings runs the embedding backfill of POST /v1/admin/embeddings, through the same
	// door, which offers it to admins only (normally the same *history.Service). Nil answers
	// that route with unavailable.
	Embeddings history.Backfiller
	// Replica applies hosts' replicated operations (POST /v1/replicate), reached through the
	// same door (normally the same *history.Service). Nil answers not_implemented.
	Replica history.Replica
	// Replication reports the host's push state on /metrics (annals_replication_*); nil when
	// no remote is configured.
	Replication ReplicationGauges
	// Keys authenticates API keys. Nil means there are none: the server can only run in local
	// mode.
	Keys annals.KeyStore
	// WebSessions keeps the web UI's browser sessions (the database, so they outlive a restart
	// and are shared by the servers of one database); nil keeps them in memory.
	WebSessions annals.WebSessionStore
	// AllowLocal lets the server run in local mode although the database has API keys, all of
	// them revoked (annals serve --local). Without it such a server refuses to start: revoking
	// every key must never quietly reopen the history to requests without credentials.
	AllowLocal bool
	// ReadOnly makes the history read-only for every caller: the door (history.For) refuses
	// every write with 403, a write route before its body is read.
	ReadOnly bool
	// MCPAllowWrites offers MCP's curating tools at /mcp to every caller (annals serve
	// --mcp-allow-writes); without it the door offers them to operator and admin keys only.
	MCPAllowWrites bool
	// Agents is the per-agent history policy: the door narrows an API key that names an agent
	// to the scopes the policy grants that agent (history.AgentPolicy.Narrow). Nil leaves keys
	// as made.
	Agents history.AgentPolicy
	// MCP, when set, serves the Model Context Protocol at /mcp (streamable HTTP), behind the
	// same authentication as every route: the handler finds the caller's principal in the
	// request's context (mcp.Server.HTTPHandler).
	MCP http.Handler
	// Web, when set, serves the browser UI (package web) at /, /chats/, /search, /usage, /login
	// and /assets/, behind browser authentication: a session cookie a login exchanged for an
	// API key, or local mode. It finds its caller's history in the request's context
	// (history.CallerFromContext); state-changing requests reach it only with the CSRF token.
	Web http.Handler
	// RPC, when set, serves an RPC protocol under its path prefix (Connect, gRPC and gRPC-Web:
	// connect.Handler) behind the same authentication and door as every route, answering the
	// server's refusals in its own protocol.
	RPC RPC
	// MaxBodyBytes bounds request bodies; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// RequestTimeout bounds each request's work; 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ShutdownTimeout bounds how long Close waits for requests in flight; 0 means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// AuthFailures is how many failed authentications one source address may make per minute
	// (and at once) before it is answered 429 with Retry-After; requests carrying an active key
	// are served all the same. 0 means DefaultAuthFailures; a negative value turns the limit off.
	AuthFailures int
	// Logger receives access logs and internal errors; nil discards them.
	Logger *slog.Logger
	// Now is the clock for capture defaults; nil means time.Now.
	Now func() time.Time
}

// RPC is a handler of an RPC protocol mounted under one path prefix (package connect). It finds
// the caller's door in the request's context (history.CallerFromContext), as every route does.
type RPC interface {
	http.Handler
	// Prefix is the path it serves, "/package.Service/".
	Prefix() string
	// WriteError answers err, a refusal of the server's (no key, too large, too many failed
	// authentications), in the request's protocol.
	WriteError(w http.ResponseWriter, r *http.Request, err error)
}

// Server is the annals HTTP server.
type Server struct {
	cfg  Config
	svc  annals.HistoryService
	keys annals.KeyStore
	log  *slog.Logger
	now  func() time.Time
	mux  *http.ServeMux
	// patterns are the routes registered on mux, in order (Routes).
	patterns []string
	metrics  *metrics
	// authLimit counts failed authentications per source address.
	authLimit *authLimit
	// sessions are the web UI's browser sessions.
	sessions *webSessions
	// streams ends the web UI's live streams when the server closes.
	streams     context.Context
	stopStreams context.CancelFunc

	// local is set by Open when there were no active keys and the address is loopback: a
	// request without credentials then acts as the local owner, until a key appears.
	local bool
	// keysSeen becomes true, for good, once an active key exists; it ends local mode.
	keysSeen    atomic.Bool
	keysChecked atomic.Int64 // unix nanos of the last check while in local mode
	keysMu      sync.Mutex

	// answers keeps the buffers the query view's answers are written into (*[]byte): a
	// transcript page is ~300 KB, which allocated, cleared and handed back to the OS on every
	// request was a tenth of its CPU (issue 32).
	answers sync.Pool
	// queryCache keeps the query view's answers between requests (nil: none).
	queryCache *queryview.Cache

	ln   net.Listener
	srv  *http.Server
	done chan error
}

// New returns a Server. It does not listen until Open.
func New(cfg Config) *Server {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.AuthFailures == 0 {
		cfg.AuthFailures = DefaultAuthFailures
	}
	s := &Server{
		cfg:     cfg,
		svc:     cfg.Service,
		keys:    cfg.Keys,
		log:     cfg.Logger,
		now:     cfg.Now,
		metrics: newMetrics(),
		// A negative AuthFailures is stored as is: the limit treats it as off.
		authLimit: newAuthLimit(cfg.AuthFailures),
		sessions:  newWebSessions(cfg.WebSessions),
	}
	switch {
	case cfg.QueryCacheBytes == 0:
		s.queryCache = queryview.NewCache(queryview.DefaultCacheBytes)
	case cfg.QueryCacheBytes > 0:
		s.queryCache = queryview.NewCache(cfg.QueryCacheBytes)
	}
	s.streams, s.stopStreams = context.WithCancel(context.Background())
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.routes()
	return s
}

// Open checks that the server may run as configured and starts listening. It returns once the
// listener is bound (so Addr is known, also for port 0) and serves in the background.
//
// Without active API keys the server runs in local mode, where a request without credentials
// acts as the local owner; that is only allowed on a loopback address, and Open refuses any
// other address with a message saying why. Errors: invalid (a bad or refused address),
// unavailable (the address is taken), internal.
func (s *Server) Open(ctx context.Context) error {
	host, _, err := net.SplitHostPort(s.cfg.Addr)
	if err != nil {
		return annals.Errorf(annals.EINVALID, "--addr %q is not host:port (for example %s or 127.0.0.1:0)", s.cfg.Addr, DefaultAddr)
	}
	active, total, err := s.countKeys(ctx)
	if err != nil {
		return err
	}
	if active == 0 && total > 0 && !s.cfg.AllowLocal {
		return annals.Errorf(annals.EINVALID, "every API key of this database is revoked (%d of %d): serving now would let any local process act as the owner without a key; "+
			"create a key ('annals keys create --tenant T'), or pass --local to serve in local mode on purpose", total, total)
	}
	loopback := isLoopbackHost(ctx, host)
	if active == 0 && !loopback {
		return annals.Errorf(annals.EINVALID, "refusing to listen on %s without API keys: with no keys every request acts as the local owner of the database, which is only safe on a loopback address; "+
			"create a key first ('annals keys create --tenant T') or listen on 127.0.0.1", s.cfg.Addr)
	}
	s.local = active == 0
	s.keysSeen.Store(active > 0)

	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("cannot listen on %s: %v", s.cfg.Addr, unwrapAll(err)), Err: err}
	}
	if s.local {
		// "localhost" could resolve differently at bind time; the bound address is what counts.
		if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
			ln.Close()
			return annals.Errorf(annals.EINVALID, "refusing to serve on %s without API keys: it is not a loopback address", ln.Addr())
		}
	}
	s.ln = ln
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: ReadHeaderTimeout,
		// Reading a body is not bounded by the request's context, so the connection deadlines
		// bound a client that sends or reads slowly: the body within the request timeout, the
		// answer within the request timeout plus a margin for streaming it out.
		ReadTimeout:  s.cfg.RequestTimeout,
		WriteTimeout: s.cfg.RequestTimeout + 30*time.Second,
		IdleTimeout:  2 * time.Minute,
		ErrorLog:     slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:  func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		// HTTP/1.1, and HTTP/2 without TLS (h2c, with prior knowledge), which gRPC needs.
		Protocols: new(http.Protocols),
	}
	s.srv.Protocols.SetHTTP1(true)
	s.srv.Protocols.SetUnencryptedHTTP2(true)
	s.done = make(chan error, 1)
	go func() {
		err := s.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	mode := "keys"
	if s.local {
		mode = "local"
	}
	s.log.Info("annals server listening", "addr", ln.Addr().String(), "auth", mode, "read_only", s.cfg.ReadOnly)
	return nil
}

// Addr returns the bound address (after Open).
func (s *Server) Addr() net.Addr {
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// URL returns the base URL of the server, http://host:port (after Open).
func (s *Server) URL() string {
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String()
}

// LocalMode reports whether requests without credentials act as the local owner.
func (s *Server) LocalMode() bool { return s.local && !s.keysSeen.Load() }

// Done is closed with the serve loop's error (nil after Close) when the server stops.
func (s *Server) Done() <-chan error { return s.done }

// Close stops accepting connections and waits up to the shutdown timeout for requests in
// flight; then it closes what is left.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	s.stopStreams()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		s.log.Warn("requests still running at the shutdown timeout were cut off", "timeout", s.cfg.ShutdownTimeout)
		err = s.srv.Close()
	}
	return err
}

// activeKeys counts unrevoked keys.
func (s *Server) activeKeys(ctx context.Context) (int, error) {
	n, _, err := s.countKeys(ctx)
	return n, err
}

// countKeys counts unrevoked keys and all keys, revoked included.
func (s *Server) countKeys(ctx context.Context) (active, total int, err error) {
	if s.keys == nil {
		return 0, 0, nil
	}
	keys, err := s.keys.ListKeys(ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, k := range keys {
		if !k.Revoked() {
			active++
		}
	}
	return active, len(keys), nil
}

// keysActive reports whether an active key exists, checking the store at most once a second
// while in local mode. Once a key has been seen, local mode is over until a restart: revoking
// every key later never silently reopens the server to requests without credentials.
func (s *Server) keysActive(ctx context.Context) bool {
	if s.keysSeen.Load() {
		return true
	}
	now := time.Now().UnixNano()
	if now-s.keysChecked.Load() < int64(time.Second) {
		return false
	}
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	if s.keysSeen.Load() {
		return true
	}
	if now-s.keysChecked.Load() < int64(time.Second) {
		return false
	}
	n, err := s.activeKeys(ctx)
	if err != nil {
		// Fail closed: a store we cannot ask might hold keys.
		s.log.Error("cannot check for API keys", "err", err)
		return true
	}
	s.keysChecked.Store(now)
	if n > 0 {
		s.keysSeen.Store(true)
		s.log.Info("an API key exists now: local mode is over, every request needs a key")
	}
	return n > 0
}

// isLoopbackHost reports whether every address host names is a loopback address. The empty
// host (all interfaces) is not.
func isLoopbackHost(ctx context.Context, host string) bool {
	if host == "" {
		return false
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return ip.IsLoopback()
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil || len(addrs) == 0 {
		return false
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return false
		}
	}
	return true
}

func unwrapAll(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
