package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/mcp"
	"github.com/spf13/pflag"
)

// serveFlags are the flags of annals serve.
type serveFlags struct {
	c                          *common
	addr, portFile, logFormat  *string
	readOnly, local, mcpWrites *bool
	watch, noDigest            *bool
	maxBody                    *int64
	timeout, shutdown          *time.Duration
	mcpBudget                  *int
	limits                     serveLimits
}

func (m *Main) serveFlagSet() (*pflag.FlagSet, *serveFlags) {
	fs := m.flagSet("serve", "[flags]", "Serve the history API over HTTP (docs/HTTP.md): the op envelope, capture routes,\n"+
		"the query view, exports, metrics and MCP at /mcp (docs/MCP.md). Callers authenticate with\n"+
		"API keys ('annals keys'); with no keys the server runs in local mode, on loopback only, as\n"+
		"the local owner. It stops cleanly on SIGINT or SIGTERM, finishing requests in flight.\n"+
		"Clients: curl (see README), the CLI itself (annals --server URL --key KEY <command>), MCP\n"+
		"clients at URL/mcp. In the background it digests idle and changed chats with the configured\n"+
		"summarizer (offline by default; docs/CONFIG.md, Digests): --no-digest or digest.enabled:\n"+
		"false turns that off.")
	f := &serveFlags{c: commonFlags(fs)}
	f.c.local = true
	f.c.remoteReads = true
	f.c.longLived = true
	f.c.queryEmbed = queryEmbedFlag(fs)
	f.c.forceLocal = fs.Bool("local-history", false, "with a remote block, local-mode callers read this database, not the remote collection (remote query mode)")
	f.addr = fs.String("addr", httpapi.DefaultAddr, "address to listen on (host:port; port 0 picks a free port)")
	f.portFile = fs.String("port-file", "", "once listening, write {\"port\", \"bind\", \"pid\"} to this file (0600)")
	f.readOnly = fs.Bool("read-only", false, "open the database read-only and refuse every write with 403")
	f.local = fs.Bool("local", false, "serve in local mode (no key needed, loopback only) even though every API key of the database is revoked")
	f.maxBody = fs.Int64("max-body", httpapi.DefaultMaxBodyBytes, "largest request body in bytes")
	f.timeout = fs.Duration("request-timeout", httpapi.DefaultRequestTimeout, "longest time one request may work")
	f.shutdown = fs.Duration("shutdown-timeout", httpapi.DefaultShutdownTimeout, "how long a stop waits for requests in flight")
	f.logFormat = fs.String("log-format", "text", "access log format on standard error: text or json")
	f.mcpBudget = fs.Int("mcp-budget", mcp.DefaultBudgetTokens, "largest MCP tool result at /mcp, in tokens (about 4 bytes each)")
	f.watch = fs.Bool("watch", false, "keep importing the agent tools' folders it finds while serving, as 'import --watch' (import.watch: true in the config)")
	f.noDigest = fs.Bool("no-digest", false, "do not run the background digest worker (digest.enabled: false in the config does the same)")
	f.mcpWrites = fs.Bool("mcp-allow-writes", false, "offer MCP's curating tools at /mcp to every caller (default: operator and admin keys only, none in local mode)")
	f.limits = serveLimitFlags(fs)
	return fs, f
}

func (f *serveFlags) check(fs *pflag.FlagSet) error {
	if fs.NArg() > 0 {
		return usagef("serve takes no arguments, got %q", fs.Arg(0))
	}
	if *f.maxBody <= 0 || *f.timeout <= 0 || *f.shutdown <= 0 {
		return usagef("--max-body, --request-timeout and --shutdown-timeout must be positive")
	}
	if *f.mcpBudget < 1000 || *f.mcpBudget > 1000000 {
		return usagef("--mcp-budget %d is out of range (1000 to 1000000 tokens)", *f.mcpBudget)
	}
	return f.limits.check()
}

func runServe(ctx context.Context, m *Main, args []string) error {
	fs, f := m.serveFlagSet()
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if err := f.check(fs); err != nil {
		return err
	}
	logger, err := serveLogger(m.Stderr, *f.logFormat)
	if err != nil {
		return err
	}
	a, err := m.open(ctx, f.c, *f.readOnly)
	if err != nil {
		return err
	}
	rep, err := m.startReplication(ctx, a, logger, *f.readOnly)
	if err != nil {
		return err
	}
	defer rep.stop()
	srv, err := newHTTPServer(a, f, logger, rep.gauges)
	if err != nil {
		return err
	}
	if err := srv.Open(ctx); err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			srv.Close()
		}
	}()
	if *f.watch && *f.readOnly {
		return usagef("--watch imports and --read-only refuses writes: give one of them")
	}
	a.cfg.Import.Watch = a.cfg.Import.Watch || *f.watch
	if !*f.readOnly {
		defer m.serveImportWatch(ctx, a, logger)()
		defer m.serveEmbedding(ctx, a, logger)()
		if *f.noDigest {
			off := false
			a.cfg.Digest.Enabled = &off
		}
		stopDigest, err := m.serveDigest(ctx, a, logger)
		if err != nil {
			return err
		}
		defer stopDigest()
	}
	if *f.portFile != "" {
		if err := writePortFile(*f.portFile, srv.Addr()); err != nil {
			return err
		}
		defer removePortFile(*f.portFile)
	}
	mode := "API keys required"
	if srv.LocalMode() {
		mode = "local mode: no API keys, every request acts as the local owner (create one with 'annals keys create')"
	}
	if *f.readOnly {
		mode += "; read-only"
	}
	fmt.Fprintf(m.Stdout, "annals serving %s (%s)\n", srv.URL(), mode)
	closed = true
	return serveUntilStopped(ctx, srv, logger, *f.shutdown)
}

// newHTTPServer wires the HTTP server over the local history service, with MCP at /mcp.
func newHTTPServer(a *app, f *serveFlags, logger *slog.Logger, replication httpapi.ReplicationGauges) (*httpapi.Server, error) {
	svc, ok := a.base.(*history.Service)
	if !ok {
		return nil, annals.Errorf(annals.EINTERNAL, "serve needs the local history service")
	}
	keys, _ := a.store.(annals.KeyStore)
	// Browser sessions live in the database, unless it was opened read-only (then in memory).
	var sessions annals.WebSessionStore
	if !*f.readOnly {
		sessions, _ = a.store.(annals.WebSessionStore)
	}
	policy, err := a.cfg.agentPolicy()
	if err != nil {
		return nil, err
	}
	ui, err := newWebUI(logger)
	if err != nil {
		return nil, err
	}
	// Remote query mode: the machine's own user (local mode) reads the remote collection;
	// callers with this server's keys read this database (docs/REPLICATION.md).
	var localReads annals.HistoryService
	if a.remote != "" {
		localReads = a.reads
	}
	mcpServer := mcp.New(mcp.Config{BudgetTokens: *f.mcpBudget, Version: buildVersion().Version, Logger: logger})
	srv := httpapi.New(httpapi.Config{
		Addr: *f.addr, Service: svc, View: svc, Stats: svc, Embeddings: svc, Replica: svc, Keys: keys, WebSessions: sessions,
		LocalReads: localReads, LocalReadsFrom: a.remote,
		ReadOnly: *f.readOnly, MCPAllowWrites: *f.mcpWrites, AllowLocal: *f.local, Agents: policy,
		MCP: mcpServer.HTTPHandler(f.limits.mcp(*f.timeout)), Web: ui,
		MaxBodyBytes: *f.maxBody, RequestTimeout: *f.timeout, ShutdownTimeout: *f.shutdown, Logger: logger,
		AuthFailures: f.limits.authFailures(), RPC: rpcHandler(), Replication: replication,
	})
	return srv, nil
}

// serveUntilStopped waits for a stop signal (or the server failing), then closes the server,
// letting requests in flight finish within the shutdown timeout.
func serveUntilStopped(ctx context.Context, srv *httpapi.Server, logger *slog.Logger, shutdown time.Duration) error {
	select {
	case <-ctx.Done():
		logger.Info("stopping: finishing requests in flight", "timeout", shutdown.String())
	case err := <-srv.Done():
		if err != nil {
			srv.Close()
			return annals.Errorf(annals.EUNAVAILABLE, "the server stopped: %v", err)
		}
	}
	start := time.Now()
	if err := srv.Close(); err != nil {
		return fmt.Errorf("stopping the server: %w", err)
	}
	logger.Info("stopped", "after", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// serveImportWatch runs import.watch from the config while the server runs, and returns the
// function that stops it and waits: the watch stops before the store closes, so it never
// writes to a closed database.
func (m *Main) serveImportWatch(ctx context.Context, a *app, logger *slog.Logger) (stop func()) {
	watchCtx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		if err := m.startImportWatch(watchCtx, a, logger); err != nil && watchCtx.Err() == nil {
			logger.Error("import watch stopped", "err", annals.ErrorDetail(err))
		}
	}()
	return func() {
		stopWatch()
		<-watchDone
	}
}

// serveLogger is the access and error log on standard error, in text or JSON.
func serveLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, usagef("--log-format %q: want text or json", format)
}
