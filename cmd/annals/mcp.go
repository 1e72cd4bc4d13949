package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/mcp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

func runMCP(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("mcp", "[flags]", "Serve the history to an agent over MCP on standard input and output (docs/MCP.md):\n"+
		"search, list, read, related, recap and resume tools, the annals://docs guide and\n"+
		"annals://chat/{id} resources. Add it to a client with, for example,\n"+
		"  claude mcp add annals -- annals mcp\n"+
		"It acts as the configured principal (the local owner by default). History is read-only\n"+
		"unless --allow-writes. With --agent NAME it acts as that agent, with exactly the scopes\n"+
		"the config's agents: block grants it (none without an entry). With a remote block in the\n"+
		"config its reads ask the remote collection, never this database (--local: this one).")
	c := commonFlags(fs)
	c.remoteReads, c.forceLocal = true, localFlag(fs, "local")
	writes := fs.Bool("allow-writes", false, "offer the curating tools (rename, annotate, pin, archive) and let recap store summaries")
	agent := fs.String("agent", "", "act as this agent, under the config's agents: policy")
	budget := fs.Int("budget", mcp.DefaultBudgetTokens, "largest tool result, in tokens (about 4 bytes each)")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("mcp takes no arguments, got %q", fs.Arg(0))
	}
	if *budget < 1000 || *budget > 1000000 {
		return usagef("--budget %d is out of range (1000 to 1000000 tokens)", *budget)
	}
	if *agent != "" && m.Getenv("ANNALS_SERVER") != "" {
		return usagef("--agent acts under the local config's agents: policy; against a server (--server) the API key decides who the session is: create a key with 'annals keys create --agent NAME'")
	}
	a, err := m.open(ctx, c, false)
	if err != nil {
		return err
	}
	if *agent != "" && a.remote != "" {
		return usagef("--agent acts under the local config's agents: policy, but in remote query mode the remote's key decides what the session reads (%s); give --local to serve this database, or create a key for the agent on the remote", a.remote)
	}
	policy, err := a.cfg.agentPolicy()
	if err != nil {
		return err
	}
	srv := mcp.New(mcp.Config{
		BudgetTokens: *budget, Version: buildVersion().Version,
		Logger: slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	// The door decides who the session acts as (--agent under the agents: policy) and whether
	// it writes (--allow-writes).
	caller := history.For(a.reads, a.cfg.cliPrincipal(), history.Access{
		Surface: history.SurfaceAgent, AllowWrites: *writes, Local: true, Agents: policy, Agent: *agent,
	})
	err = srv.Serve(ctx, mcp.Session{Service: caller}, mcpStdio(m))
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil // the client closed the session, or Ctrl-C
	}
	return err
}

// mcpStdio is the session's transport: the command's standard input and output, newline-
// delimited JSON-RPC. Nothing else may write to standard output while it runs.
func mcpStdio(m *Main) *sdkmcp.IOTransport {
	return &sdkmcp.IOTransport{Reader: io.NopCloser(m.Stdin), Writer: nopWriteCloser{m.Stdout}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
