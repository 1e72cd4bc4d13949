package history

import (
	"slices"

	"github.com/annals-dev/annals"
)

// AgentPolicy is the per-agent history policy of the configuration's agents: block: an agent
// name and the scopes that agent may use. A principal that names an agent gets at most those
// scopes; an agent with no entry gets none (default deny), as in the reference History tool.
// A nil policy (no agents: block) leaves principals as their credentials made them.
type AgentPolicy map[string][]annals.Scope

// ParseAgentPolicy validates the agents: block, agent by agent (the same history_scope rules as
// everywhere: the retired values are refused, "any" is global).
func ParseAgentPolicy(agents map[string][]string) (AgentPolicy, error) {
	if agents == nil {
		return nil, nil
	}
	out := make(AgentPolicy, len(agents))
	for name, values := range agents {
		scopes, err := ParseScopeList(values)
		if err != nil {
			return nil, annals.Errorf(annals.EINVALID, "agents.%s.%s", name, annals.ErrorMessage(err))
		}
		out[name] = scopes
	}
	return out, nil
}

// Narrow returns the principal an agent session acts as: p itself when the policy is nil or p
// names no agent, otherwise a copy whose scopes are those p's credentials allow and the policy
// grants its agent — never wider than either. Global stays reserved for admins (Resolve strips it
// from everybody else). The door (For) calls it for every caller: the API key of a request, the
// identity of `annals mcp --agent NAME`, the CLI's configured principal.
func (pol AgentPolicy) Narrow(p *annals.Principal) *annals.Principal {
	if pol == nil || p == nil || p.AgentID == "" {
		return p
	}
	out := *p
	out.Scopes = nil
	for _, raw := range p.Scopes {
		sc, err := annals.ParseScope(string(raw)) // a key may still say "any"
		if err != nil {
			continue
		}
		if slices.Contains(pol[p.AgentID], sc) && !slices.Contains(out.Scopes, sc) {
			out.Scopes = append(out.Scopes, sc)
		}
	}
	return &out
}

// AgentWritesAllowed reports whether an agent surface (the MCP server over HTTP) offers the
// curating writes — rename, annotate, pin, archive, a recap that stores a summary — to a caller
// by its role alone: operators and admins. The door (For) asks it for key-authenticated callers. Members read; a person who wants their own agent to
// curate starts `annals mcp --allow-writes` or gives it an operator key.
func AgentWritesAllowed(p *annals.Principal) bool {
	return p != nil && (p.Role == annals.RoleOperator || p.Role == annals.RoleAdmin)
}
