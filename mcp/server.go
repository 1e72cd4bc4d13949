// Package mcp is the annals MCP server: history as tools, resources and a usage guide for the
// agents that call it, over stdio (annals mcp) and streamable HTTP (/mcp inside annals serve).
//
// It is an adapter over annals.HistoryService and decides no policy: each session is handed the
// history already bound to its caller by the door (history.For), which decides who the session
// acts as and whether it writes; what the caller may reach is the history service's answer. It
// bounds every answer to a budget and hands transcript text to the model as labelled,
// untrusted data. docs/MCP.md is the reference.
package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// DefaultBudgetTokens bounds one tool result: about 8k tokens of text.
const DefaultBudgetTokens = 8000

// bytesPerToken converts the token budget into bytes; four bytes a token is the usual estimate
// for English and code, and it errs on the generous side for the model's context.
const bytesPerToken = 4

// Config wires a Server.
type Config struct {
	// BudgetTokens bounds each tool result; 0 means DefaultBudgetTokens.
	BudgetTokens int
	// Version is reported to clients as the server's version.
	Version string
	Logger  *slog.Logger
}

// Server builds MCP sessions over the history service.
type Server struct {
	cfg    Config
	budget int // bytes
	log    *slog.Logger
	schema *sdk.SchemaCache
}

// New returns a Server.
func New(cfg Config) *Server {
	if cfg.BudgetTokens <= 0 {
		cfg.BudgetTokens = DefaultBudgetTokens
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{cfg: cfg, budget: cfg.BudgetTokens * bytesPerToken, log: log, schema: sdk.NewSchemaCache()}
}

// Session is what one MCP session serves and how.
type Session struct {
	// Service is the history as the session's caller may reach it, bound by the door
	// (history.For) to the caller's principal and mode. Whether the session offers the
	// curating tools, and lets recap and the meta-tool store what they compute, is the door's
	// answer (Caller.Writes), never this package's.
	Service *history.Caller
	// ID, when set, is the session's id on streamable HTTP: the handler picks it, to count the
	// session before the SDK opens it. Empty lets the SDK pick.
	ID string
	// CallTimeout bounds each request's work (a tool call, a resource read); 0 means no bound.
	CallTimeout time.Duration
}

// session is one connected client's view: the principal every call runs as and the service.
type session struct {
	*Server
	principal *annals.Principal
	writes    bool
	svc       annals.HistoryService
}

// NewMCPServer returns the SDK server of one session: its tools, resources and guide. An error
// means a tool definition of this package is wrong; the tests build every variant.
func (s *Server) NewMCPServer(opts Session) (*sdk.Server, error) {
	if opts.Service == nil {
		return nil, errors.New("mcp: a session needs the caller's history (history.For)")
	}
	ss := &session{Server: s, principal: opts.Service.Principal(), writes: opts.Service.Writes(), svc: opts.Service}
	sopts := &sdk.ServerOptions{
		Instructions:      instructions,
		Logger:            s.log,
		CompletionHandler: ss.complete,
		SchemaCache:       s.schema,
	}
	if opts.ID != "" {
		sopts.GetSessionID = func() string { return opts.ID }
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "annals", Title: "annals history", Version: s.cfg.Version}, sopts)
	srv.AddReceivingMiddleware(shortErrors, s.recovered, deadline(opts.CallTimeout))
	var errs []error
	ss.addReadTools(srv, &errs)
	if ss.writes {
		ss.addWriteTools(srv, &errs)
	}
	ss.addMetaTool(srv)
	ss.addResources(srv)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return srv, nil
}

// as is the context a call runs in: the session's principal, whatever the transport's context
// carries (a streamable HTTP session's calls do not run in the request's context).
func (ss *session) as(ctx context.Context) context.Context {
	return annals.NewContextWithPrincipal(ctx, ss.principal)
}

// ServeStdio runs one session over the process's standard input and output until the client
// closes it or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, opts Session) error {
	return s.Serve(ctx, opts, &sdk.StdioTransport{})
}

// Serve runs one session over any SDK transport (stdio, in-memory in tests).
func (s *Server) Serve(ctx context.Context, opts Session, t sdk.Transport) error {
	srv, err := s.NewMCPServer(opts)
	if err != nil {
		return err
	}
	return srv.Run(ctx, t)
}

// HTTPOptions configure the streamable HTTP handler.
type HTTPOptions struct {
	// SessionTimeout closes sessions idle this long; 0 means 30 minutes.
	SessionTimeout time.Duration
	// SessionsPerKey and Sessions cap the open sessions of one principal (its API key) and of
	// the whole handler; 0 means DefaultSessionsPerKey and DefaultSessions. At a cap, the session
	// idle longest is closed to make room once it has been idle for IdleUnderPressure (0:
	// DefaultIdleUnderPressure); with none idle that long, the new session is refused (429 at
	// the key's cap, 503 at the total) with a JSON-RPC error naming the cap, and Retry-After.
	SessionsPerKey, Sessions int
	IdleUnderPressure        time.Duration
	// CallTimeout bounds the work of each request of a session (a tool call, a resource read),
	// which runs in the session's context rather than the HTTP request's; 0 means no bound.
	CallTimeout time.Duration
}

// HTTPHandler serves MCP over streamable HTTP. It must sit behind the transport's
// authentication, which puts the door's answer for the caller in each request's context
// (history.NewContextWithCaller); a request without one is refused. A session is bound to the
// principal that opened it: a later request of the same session under another principal is
// refused by the SDK (403), so a session id is no credential.
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	table := newSessionTable(opts)
	streams := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		c := history.CallerFromContext(r.Context())
		if c == nil || c.Principal() == nil {
			return nil
		}
		id, _ := r.Context().Value(newSessionIDKey{}).(string)
		srv, err := s.NewMCPServer(Session{Service: c, ID: id, CallTimeout: opts.CallTimeout})
		if err != nil {
			s.log.Error("mcp session", "err", err)
			return nil
		}
		table.created(id, srv)
		return srv
	}, &sdk.StreamableHTTPOptions{SessionTimeout: opts.SessionTimeout, Logger: s.log})
	// The SDK binds a session to TokenInfo.UserID, which only its bearer middleware can set; the
	// principal was authenticated already, so the verifier names it rather than checking again.
	bound := auth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		c := history.CallerFromContext(ctx)
		if c == nil || c.Principal() == nil {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: principalID(c.Principal()), Expiration: time.Now().Add(24 * time.Hour)}, nil
	}, nil)(streams)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := history.CallerFromContext(r.Context())
		if c == nil || c.Principal() == nil {
			http.Error(w, "unauthenticated", http.StatusUnauthorized)
			return
		}
		p := c.Principal()
		// Local mode authenticates requests without a header; the middleware wants one.
		if r.Header.Get("Authorization") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer annals-local")
		}
		table.serveCounted(w, r, principalID(p), bound)
	})
}

// principalID names a principal for session binding: two principals with the same id have the
// same rights, so a session may move between their requests and no further.
func principalID(p *annals.Principal) string {
	scopes := make([]string, len(p.Scopes))
	for i, sc := range p.Scopes {
		scopes[i] = string(sc)
	}
	slices.Sort(scopes)
	h := sha256.Sum256([]byte(strings.Join([]string{p.TenantID, p.UserID, p.AgentID, string(p.Role), strings.Join(scopes, ",")}, "\x00")))
	return hex.EncodeToString(h[:16])
}

// errorBytes bounds the text of a tool error. The SDK's own argument validation quotes the
// offending value, which may be as long as the call allowed; the model needs what was wrong.
const errorBytes = 1000

// shortErrors cuts the text of every tool error to errorBytes.
func shortErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		// A failed call hands back a typed nil result: look before touching it. (A panic here
		// would run on the SDK's goroutine, past every recover, and stop the server.)
		if r, ok := res.(*sdk.CallToolResult); ok && r != nil && r.IsError {
			for _, c := range r.Content {
				if t, ok := c.(*sdk.TextContent); ok {
					t.Text = middle(t.Text, errorBytes, "the value was too long")
				}
			}
		}
		return res, err
	}
}

// recovered turns a panic in a handler into an internal error for that one request. Handlers
// run on the SDK's own goroutines, where the HTTP server's recovery does not reach: without
// this, one bad request would stop the whole server.
func (s *Server) recovered(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("mcp handler panicked", "method", method, "panic", fmt.Sprint(v))
				res, err = nil, annals.Internal("mcp "+method, fmt.Errorf("panic: %v", v))
			}
		}()
		return next(ctx, method, req)
	}
}
