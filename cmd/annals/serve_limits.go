package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/mcp"
)

// serveLimits are the flags of annals serve that bound what one caller can make the server hold
// (docs/SECURITY.md, "Resource bounds").
type serveLimits struct {
	authFailuresPerMin  *int
	mcpPerKey, mcpTotal *int
	mcpPressureIdle     *time.Duration
}

func serveLimitFlags(fs *pflag.FlagSet) serveLimits {
	return serveLimits{
		authFailuresPerMin: fs.Int("auth-failures", httpapi.DefaultAuthFailures, "failed authentications one address may make per minute before it is answered 429 (valid keys still work; 0: no limit)"),
		mcpPerKey:          fs.Int("mcp-sessions-per-key", mcp.DefaultSessionsPerKey, "most MCP sessions one API key may hold open at /mcp"),
		mcpTotal:           fs.Int("mcp-sessions", mcp.DefaultSessions, "most MCP sessions the server holds open at /mcp"),
		mcpPressureIdle:    fs.Duration("mcp-idle-under-pressure", mcp.DefaultIdleUnderPressure, "at a session cap, close the session idle longest once it has been idle this long"),
	}
}

func (l serveLimits) check() error {
	if *l.authFailuresPerMin < 0 {
		return usagef("--auth-failures %d is negative (0 turns the limit off)", *l.authFailuresPerMin)
	}
	if *l.mcpPerKey < 1 || *l.mcpTotal < 1 || *l.mcpPerKey > *l.mcpTotal {
		return usagef("--mcp-sessions-per-key %d and --mcp-sessions %d must be at least 1, the first no more than the second", *l.mcpPerKey, *l.mcpTotal)
	}
	if *l.mcpPressureIdle <= 0 {
		return usagef("--mcp-idle-under-pressure must be positive")
	}
	return nil
}

// authFailures is the server's AuthFailures: the flag's 0 (no limit) is the config's negative.
func (l serveLimits) authFailures() int {
	if *l.authFailuresPerMin == 0 {
		return -1
	}
	return *l.authFailuresPerMin
}

// mcp is the session bounds of /mcp; each call of a session works at most the request timeout.
func (l serveLimits) mcp(requestTimeout time.Duration) mcp.HTTPOptions {
	return mcp.HTTPOptions{SessionsPerKey: *l.mcpPerKey, Sessions: *l.mcpTotal, IdleUnderPressure: *l.mcpPressureIdle, CallTimeout: requestTimeout}
}
