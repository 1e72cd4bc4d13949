package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// The caller's door. Every transport — the CLI, the HTTP API, the loomcycle envelope, the query
// view, MCP on stdio and at /mcp — gets the history through For, already bound to its caller and
// mode, and calls nothing else. Who the call runs as, whether it may write at all, and which
// operations are an admin's are decided here, once; the service behind the door decides whose
// chats a call reaches (Resolve) and what the caller may change (CanModify). The store's own
// read-only open stays as a second line of defence.

// Surface is the kind of client a caller reaches the history through.
type Surface int

const (
	// SurfaceAPI is a program or a person acting directly — the CLI, the HTTP API: every write
	// the caller's rights allow is offered.
	SurfaceAPI Surface = iota
	// SurfaceAgent is an agent's tool surface — MCP: the curating writes are offered only when
	// Access.AllowWrites says so, or to an operator or admin authenticated by an API key.
	SurfaceAgent
)

// Access is the mode a caller reaches the history in: the server's configuration and the facts
// the transport knows about how the caller arrived. It carries no decision; For makes them.
type Access struct {
	// ReadOnly: the whole history refuses writes (annals serve --read-only), whoever asks.
	ReadOnly bool
	// Surface is the kind of client (SurfaceAPI unless set).
	Surface Surface
	// AllowWrites offers an agent surface's writes to every caller (annals mcp --allow-writes,
	// annals serve --mcp-allow-writes). Ignored on SurfaceAPI.
	AllowWrites bool
	// Local says the caller is the machine's own user, not an API key: local mode of a server,
	// stdio, the CLI. No key tells such callers apart, so their role alone never offers an
	// agent surface's writes.
	Local bool
	// Agents is the configuration's agents: policy (nil: there is no agents: block). A principal
	// that names an agent keeps only the scopes the policy grants that agent.
	Agents AgentPolicy
	// Agent is the agent the caller says it acts as (annals mcp --agent NAME). Without an
	// agents: block such a caller keeps no scope at all: naming an agent must never keep the
	// owner's every scope.
	Agent string
}

// Caller is the history bound to one caller and mode: every call runs as its principal,
// whatever the context carries, and every write is refused here when the mode does not allow
// it, before anything reaches the service (a recap never spends a summarizer call first).
type Caller struct {
	svc       annals.HistoryService
	principal *annals.Principal
	access    Access
	writes    bool
}

var _ annals.HistoryService = (*Caller)(nil)

// For returns svc bound to principal p (nil: an unauthenticated caller, whom every scope check
// refuses) in mode a.
func For(svc annals.HistoryService, p *annals.Principal, a Access) *Caller {
	p = a.Agents.Narrow(p)
	if a.Agent != "" && p != nil {
		cp := *p
		cp.AgentID = a.Agent
		if a.Agents == nil {
			cp.Scopes = nil
		}
		p = a.Agents.Narrow(&cp)
	}
	c := &Caller{svc: svc, principal: p, access: a}
	switch {
	case a.Surface == SurfaceAPI:
		c.writes = !a.ReadOnly
	case a.ReadOnly:
		c.writes = false
	default:
		c.writes = a.AllowWrites || (!a.Local && AgentWritesAllowed(p))
	}
	return c
}

// Principal is who the calls run as: the caller's principal, narrowed by the agents: policy.
func (c *Caller) Principal() *annals.Principal { return c.principal }

// Writes reports whether this caller may write at all; a surface offers its writing tools
// only when it does.
func (c *Caller) Writes() bool { return c.writes }

// CheckWrite refuses a write before the request carrying it is read: what names it (an HTTP
// route). Nil when the caller may write.
func (c *Caller) CheckWrite(what string) error {
	if c.writes {
		return nil
	}
	if c.access.Surface == SurfaceAPI {
		return annals.Errorf(annals.EFORBIDDEN, "this server is read-only (started with --read-only): %s writes and is refused; reads (list, search, get, resume, related, /query, export) still work", what)
	}
	return errReadOnlyView(what)
}

// CheckAdmin refuses an operation reserved for admins (what names it, why says what it
// reveals): counting every tenant's chats (/metrics) is no tenant's operator's business. Local
// callers are the machine's own user and count as admin.
func (c *Caller) CheckAdmin(what, why string) error {
	if c.principal.IsAdmin() {
		return nil
	}
	return annals.Errorf(annals.EFORBIDDEN, "%s %s and needs an admin key", what, why)
}

func errReadOnlyView(op string) error {
	return annals.Errorf(annals.EFORBIDDEN, "this session is read-only: %s writes and is refused (writes need annals mcp --allow-writes, or an operator key); list, search, get, related, resume and stored recaps still work", op)
}

// as is the context every call runs in: the bound principal, whatever ctx carried.
func (c *Caller) as(ctx context.Context) context.Context {
	return annals.NewContextWithPrincipal(ctx, c.principal)
}

// write refuses a write the mode does not allow: with the history's refusal when it is
// read-only for everyone (apiName: "op rename", "capture"), the session's when only this
// caller's surface withholds writes (viewName: "rename", "capture").
func (c *Caller) write(apiName, viewName string) error {
	if c.writes {
		return nil
	}
	if c.access.Surface == SurfaceAPI {
		return errReadOnly(apiName)
	}
	return errReadOnlyView(viewName)
}

// callerKey carries a *Caller in a context.
type callerKey struct{}

// NewContextWithCaller returns ctx carrying c: a transport that authenticates in one layer and
// serves in another (the HTTP server in front of MCP at /mcp) hands the door's answer on.
func NewContextWithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFromContext returns the Caller ctx carries, or nil.
func CallerFromContext(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}
