package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/mcp"
)

func runServe(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("serve", "[flags]", "Serve the history API over HTTP (docs/HTTP.md): the op envelope, capture routes,\n"+
		"the query view, exports, metrics and MCP at /mcp (docs/MCP.md). Callers authenticate with API keys ('annals keys');\n"+
		"with no keys the server runs in local mode, on loopback only, as the local owner.\n"+
		"It stops cleanly on SIGINT or SIGTERM, finishing requests in flight.\n"+
		"Clients: curl (see README), or the CLI itself: annals --server URL --key KEY <command>.")
	c := commonFlags(fs)
	c.local = true
	addr := fs.String("addr", httpapi.DefaultAddr, "address to listen on (host:port; port 0 picks a free port)")
	portFile := fs.String("port-file", "", "once listening, write {\"port\", \"bind\", \"pid\"} to this file (0600)")
	readOnly := fs.Bool("read-only", false, "open the database read-only and refuse every write with 403")
	local := fs.Bool("local", false, "serve in local mode (no key needed, loopback only) even though every API key of the database is revoked")
	maxBody := fs.Int64("max-body", httpapi.DefaultMaxBodyBytes, "largest request body in bytes")
	timeout := fs.Duration("request-timeout", httpapi.DefaultRequestTimeout, "longest time one request may work")
	shutdown := fs.Duration("shutdown-timeout", httpapi.DefaultShutdownTimeout, "how long a stop waits for requests in flight")
	logFormat := fs.String("log-format", "text", "access log format on standard error: text or json")
	mcpWrites := fs.Bool("mcp-allow-writes", false, "offer MCP's curating tools at /mcp to every caller (default: operator and admin keys only, none in local mode)")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("serve takes no arguments, got %q", fs.Arg(0))
	}
	if *maxBody <= 0 || *timeout <= 0 || *shutdown <= 0 {
		return usagef("--max-body, --request-timeout and --shutdown-timeout must be positive")
	}
	logger, err := serveLogger(m.Stderr, *logFormat)
	if err != nil {
		return err
	}

	a, err := m.open(ctx, c, *readOnly)
	if err != nil {
		return err
	}
	svc, ok := a.svc.(*history.Service)
	if !ok {
		return annals.Errorf(annals.EINTERNAL, "serve needs the local history service")
	}
	keys, _ := a.store.(annals.KeyStore)
	policy, err := a.cfg.agentPolicy()
	if err != nil {
		return err
	}
	var srv *httpapi.Server
	mcpServer := mcp.New(mcp.Config{Service: svc, ReadOnly: svc.ReadOnly(), Version: buildVersion().Version, Logger: logger})
	mcpHandler := mcpServer.HTTPHandler(mcp.HTTPOptions{AllowWrites: func(p *annals.Principal) bool {
		// Local mode has no keys to tell callers apart: writes only when the flag says so.
		return *mcpWrites || (!srv.LocalMode() && history.AgentWritesAllowed(p))
	}})
	srv = httpapi.New(httpapi.Config{
		Addr:            *addr,
		Store:           a.store,
		Service:         svc,
		Keys:            keys,
		ReadOnly:        *readOnly,
		AllowLocal:      *local,
		Agents:          policy,
		MCP:             mcpHandler,
		MaxBodyBytes:    *maxBody,
		RequestTimeout:  *timeout,
		ShutdownTimeout: *shutdown,
		Logger:          logger,
	})
	if err := srv.Open(ctx); err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			srv.Close()
		}
	}()
	if !*readOnly {
		defer m.serveImportWatch(ctx, a, logger)()
	}
	if *portFile != "" {
		if err := writePortFile(*portFile, srv.Addr()); err != nil {
			return err
		}
		defer removePortFile(*portFile)
	}
	mode := "API keys required"
	if srv.LocalMode() {
		mode = "local mode: no API keys, every request acts as the local owner (create one with 'annals keys create')"
	}
	if *readOnly {
		mode += "; read-only"
	}
	fmt.Fprintf(m.Stdout, "annals serving %s (%s)\n", srv.URL(), mode)
	closed = true
	return serveUntilStopped(ctx, srv, logger, *shutdown)
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

// portFile is the lanius discovery file: where a running server listens.
type portFile struct {
	Port int    `json:"port"`
	Bind string `json:"bind"`
	PID  int    `json:"pid"`
}

// writePortFile writes the port file atomically (a reader never sees half a file), mode 0600.
func writePortFile(path string, addr net.Addr) error {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return annals.Internal("port file", err)
	}
	n, _ := strconv.Atoi(port)
	b, _ := json.Marshal(portFile{Port: n, Bind: host, PID: os.Getpid()})
	tmp, err := os.CreateTemp(filepath.Dir(path), ".annals-port-*")
	if err != nil {
		return fmt.Errorf("cannot write the port file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err == nil {
		_, err = tmp.Write(append(b, '\n'))
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err == nil {
			return nil
		}
	}
	tmp.Close()
	return fmt.Errorf("cannot write the port file %s: %w", path, err)
}

// removePortFile removes the port file on a clean stop, unless another process has rewritten it.
func removePortFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var pf portFile
	if json.Unmarshal(b, &pf) == nil && pf.PID == os.Getpid() {
		os.Remove(path)
	}
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
