package annals

import "context"

// AgentAdopter is the optional store capability that gives a chat its agent after the fact: a
// chat imported before imported chats had agents (docs/IMPORT.md, Agent). The agent is part of
// a chat's owner and is otherwise immutable, so this is the one change of it, and a narrow one:
// only from no agent to one, only on the chat exactly as its caller read it.
//
// No transport offers it and the history service does not call it for a caller: cmd/ hands it
// to the importer alone, which calls it for chats of its own tool's sources (importer.Options.
// Agents), and replication's remote apply for an `agent` operation a host recorded.
type AgentAdopter interface {
	// AdoptAgent sets the agent of the chat ref names, only while that chat still has ref's
	// owner and incarnation and its agent is empty (ref.Owner.AgentID must be ""), and returns
	// the chat as stored. In the same transaction it re-derives everything that carries the
	// owner (the search documents' owner tokens, the embedding's owner columns) and, while the
	// replication outbox is on, records an `agent` operation (AgentChange) in the chat's lane.
	// Errors: invalid (ref names an agent, or agent is not a valid id), not_found (no chat
	// matches ref: deleted, created again, or given an agent since), forbidden (read-only),
	// unavailable, internal.
	AdoptAgent(ctx context.Context, ref ChatRef, agent string) (*Chat, error)
}

// ValidateAdoptedAgent checks an AdoptAgent call's arguments: the chat has no agent, the new
// one is a valid, non-empty id.
func ValidateAdoptedAgent(ref ChatRef, agent string) error {
	if ref.Owner.AgentID != "" {
		return Errorf(EINVALID, "chat %q already has agent %q: only a chat without an agent is given one", ref.ID, ref.Owner.AgentID)
	}
	return ValidateID("agent_id", agent)
}
