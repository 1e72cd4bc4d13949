package history

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
)

// retiredScopes were accepted by older History tools and never implemented; config that names
// them is refused at load so nobody believes they grant something.
var retiredScopes = []string{"siblings", "descendants", "named:<name>"}

// ParseScopeList validates a history_scope list from configuration. "any" is accepted as the
// historical alias of global; the retired values siblings, descendants and named:<n> are refused
// with the valid set. Duplicates collapse.
func ParseScopeList(values []string) ([]annals.Scope, error) {
	out := make([]annals.Scope, 0, len(values))
	seen := map[annals.Scope]bool{}
	for _, v := range values {
		if v == "siblings" || v == "descendants" || strings.HasPrefix(v, "named:") {
			return nil, annals.Errorf(annals.EINVALID, "history_scope %q is retired and grants nothing (retired: %s); use the valid set: self, user, tenant, global (any is an alias of global)", v, strings.Join(retiredScopes, ", "))
		}
		sc, err := annals.ParseScope(v)
		if err != nil {
			return nil, annals.Errorf(annals.EINVALID, "history_scope: %s", annals.ErrorMessage(err))
		}
		if !seen[sc] {
			seen[sc] = true
			out = append(out, sc)
		}
	}
	return out, nil
}

// Resolved is the outcome of scope resolution: the scope in force and the owner constraint the
// store applies.
type Resolved struct {
	Scope     annals.Scope
	Owner     annals.Owner
	Principal *annals.Principal
}

// allowedScopes is the principal's configured scopes with global stripped for non-admins: the
// gate fails closed, so a missing principal or a non-admin never keeps global.
func allowedScopes(p *annals.Principal) []annals.Scope {
	if p == nil {
		return nil
	}
	out := make([]annals.Scope, 0, len(p.Scopes))
	for _, raw := range p.Scopes {
		// Normalise here too ("any" is global), and drop what is not a scope at all: a principal
		// built by hand or from an old key must never reach a scope the switch below lacks.
		s, err := annals.ParseScope(string(raw))
		if err != nil || (s == annals.ScopeGlobal && !p.IsAdmin()) || contains(out, s) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// Resolve decides whose chats a call reaches from the caller's principal (carried by ctx) and
// the requested scope. It never widens: self without an agent identity and user without a user
// identity are refused. With no requested scope, the widest allowed scope the caller's identity
// supports is used.
func Resolve(ctx context.Context, requested string) (*Resolved, error) {
	p := annals.PrincipalFromContext(ctx)
	allowed := allowedScopes(p)
	if len(allowed) == 0 {
		return nil, annals.Errorf(annals.EFORBIDDEN, "history is not enabled for this caller: no history scope is allowed (grant one with history_scope, e.g. [self, user])")
	}
	var sc annals.Scope
	if requested == "" {
		for i := len(annals.Scopes) - 1; i >= 0; i-- {
			cand := annals.Scopes[i]
			if contains(allowed, cand) && identityFor(p, cand) == nil {
				sc = cand
				break
			}
		}
		if sc == "" {
			return nil, identityFor(p, allowed[0])
		}
	} else {
		var err error
		if sc, err = annals.ParseScope(requested); err != nil {
			return nil, err
		}
		if sc == annals.ScopeGlobal && !p.IsAdmin() {
			return nil, annals.Errorf(annals.EFORBIDDEN, "scope global reaches every tenant and is reserved for admin callers")
		}
		if !contains(allowed, sc) {
			return nil, annals.Errorf(annals.EFORBIDDEN, "scope %q is not allowed for this caller (allowed: %s)", sc, joinScopes(allowed))
		}
		if err := identityFor(p, sc); err != nil {
			return nil, err
		}
	}
	r := &Resolved{Scope: sc, Principal: p}
	switch sc {
	case annals.ScopeGlobal:
		r.Owner = annals.Owner{AllTenants: true}
	case annals.ScopeTenant:
		r.Owner = annals.Owner{TenantID: p.TenantID}
	case annals.ScopeUser:
		r.Owner = annals.Owner{TenantID: p.TenantID, UserID: p.UserID}
	case annals.ScopeSelf:
		r.Owner = annals.Owner{TenantID: p.TenantID, AgentID: p.AgentID}
	default:
		return nil, annals.Errorf(annals.EFORBIDDEN, "scope %q is not one this caller may use", sc)
	}
	return r, nil
}

// identityFor checks that the principal carries the identity a scope is anchored on. An empty
// owner axis would otherwise drop out of the filter and silently widen the scope.
func identityFor(p *annals.Principal, sc annals.Scope) error {
	if sc != annals.ScopeGlobal && p.TenantID == "" {
		return annals.Errorf(annals.EFORBIDDEN, "scope %s needs a tenant identity; this caller has none", sc)
	}
	switch sc {
	case annals.ScopeSelf:
		if p.AgentID == "" {
			return annals.Errorf(annals.EFORBIDDEN, "scope self needs an agent identity; this caller has none (it is refused, never widened)")
		}
	case annals.ScopeUser:
		if p.UserID == "" {
			return annals.Errorf(annals.EFORBIDDEN, "scope user needs a user identity; this caller has none (it is refused, never widened)")
		}
	}
	return nil
}

func contains(list []annals.Scope, s annals.Scope) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func joinScopes(list []annals.Scope) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

// LocalOwner is the principal of whoever runs annals on their own database file: an admin of the
// local tenant allowed every scope, because reading the file already gives them every chat in it.
func LocalOwner() *annals.Principal {
	return &annals.Principal{TenantID: "local", UserID: "local", Role: annals.RoleAdmin, Scopes: annals.Scopes}
}
