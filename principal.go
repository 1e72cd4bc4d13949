package annals

import (
	"context"
	"fmt"
	"strings"
)

// Role is what a principal may do beyond reading its own chats.
type Role string

// Roles, from least to most privileged.
const (
	RoleMember   Role = "member"
	RoleOperator Role = "operator"
	RoleAdmin    Role = "admin"
)

// Roles lists every valid role, in order.
var Roles = []Role{RoleMember, RoleOperator, RoleAdmin}

// ParseRole validates s as a role.
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if string(r) == s {
			return r, nil
		}
	}
	return "", Errorf(EINVALID, "unknown role %q (want one of: %s)", s, joinStrings(Roles))
}

// Principal is who is calling. It is always derived from authentication (an API key, the local
// owner of the database, an agent runtime's own identity), never from a request body.
type Principal struct {
	TenantID string `json:"tenant_id"`
	UserID   string `json:"user_id,omitempty"`
	AgentID  string `json:"agent_id,omitempty"`
	Role     Role   `json:"role"`
	// Scopes are the history scopes this caller may use, from configuration (an agent's
	// history_scope) or from its API key. Empty means history is denied (default deny).
	Scopes []Scope `json:"scopes,omitempty"`
}

// IsAdmin reports whether p is an admin. A nil principal is never an admin: the gate fails closed.
func (p *Principal) IsAdmin() bool { return p != nil && p.Role == RoleAdmin }

// Scope is whose chats a call reaches.
type Scope string

// Scopes, from narrowest to widest.
const (
	ScopeSelf   Scope = "self"   // the caller's tenant and agent
	ScopeUser   Scope = "user"   // the caller's tenant and user
	ScopeTenant Scope = "tenant" // the caller's whole tenant
	ScopeGlobal Scope = "global" // every tenant; honoured for admins only
)

// Scopes lists every valid scope, narrowest first.
var Scopes = []Scope{ScopeSelf, ScopeUser, ScopeTenant, ScopeGlobal}

// ParseScope validates s as a scope. "any" is accepted as the historical alias of global.
func ParseScope(s string) (Scope, error) {
	if s == "any" {
		return ScopeGlobal, nil
	}
	for _, sc := range Scopes {
		if string(sc) == s {
			return sc, nil
		}
	}
	return "", Errorf(EINVALID, "unknown scope %q (want one of: %s)", s, joinStrings(Scopes))
}

// Owner is the owner constraint a store applies inside SQL WHERE. The history service derives
// it from the principal and the resolved scope; a store never derives it from a request.
// The zero Owner matches nothing unless AllTenants is set, so a forgotten owner fails closed.
type Owner struct {
	// AllTenants lifts the tenant constraint (admin global scope only).
	AllTenants bool
	TenantID   string
	// UserID and AgentID, when non-empty, further restrict to that user or agent.
	UserID  string
	AgentID string
}

// String describes the owner constraint for logs.
func (o Owner) String() string {
	if o.AllTenants {
		return "global"
	}
	return fmt.Sprintf("tenant=%q user=%q agent=%q", o.TenantID, o.UserID, o.AgentID)
}

// Matches reports whether a chat falls inside the owner constraint. Stores apply the same rule
// in SQL; this is for by-id checks after a fetch.
func (o Owner) Matches(c *Chat) bool {
	if c == nil {
		return false
	}
	if o.AllTenants {
		return true
	}
	if o.TenantID == "" || c.TenantID != o.TenantID {
		return false
	}
	if o.UserID != "" && c.UserID != o.UserID {
		return false
	}
	if o.AgentID != "" && c.AgentID != o.AgentID {
		return false
	}
	return true
}

type principalKey struct{}

// NewContextWithPrincipal returns a copy of ctx carrying p.
func NewContextWithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFromContext returns the principal carried by ctx, or nil.
func PrincipalFromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

func joinStrings[T ~string](vs []T) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}
