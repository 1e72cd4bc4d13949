package mcp

import "github.com/annals-dev/annals"

// sessionRef is how a tool names one session: id, or session_id (the op envelope's name for the
// same thing, which agents that know the envelope write). The service resolves what it holds:
// the full id, a unique prefix, the source tool's own session id or a pasted transcript path.
type sessionRef struct {
	ID        string `json:"id,omitempty" jsonschema:"the session: its id (from history_search or history_list), a unique prefix of it, or the source tool's own session id (a Claude Code or Codex session UUID)"`
	SessionID string `json:"session_id,omitempty" jsonschema:"the same as id, under the op envelope's name; give one of the two"`
}

// given is the id the caller gave under either name; "" when neither. Two different values are
// refused rather than one silently chosen.
func (r sessionRef) given() (string, error) {
	switch {
	case r.ID == "":
		return r.SessionID, nil
	case r.SessionID != "" && r.SessionID != r.ID:
		return "", annals.Errorf(annals.EINVALID, "id and session_id name different sessions; give the session once, as id or session_id")
	}
	return r.ID, nil
}

// chat is the selector of the session the caller named, which it must have named.
func (r sessionRef) chat() (annals.ChatSelector, error) {
	id, err := r.given()
	if err == nil && id == "" {
		err = annals.Errorf(annals.EINVALID, "id is required: the session's id (from history_search or history_list), a unique prefix of it, or the source tool's own session id (session_id is accepted as the same)")
	}
	return annals.ChatSelector{ID: id}, err
}

// withSession bounds a by-id tool's id and session_id arguments, as the tool's other tweaks.
func withSession(tweaks map[string]tweak) map[string]tweak {
	tweaks["id"], tweaks["session_id"] = longest(maxIDArg), longest(maxIDArg)
	return tweaks
}
