package annals

// ChatOwner is the exact owner of one chat: its tenant, user and agent. Every decision about who
// may read or change a chat is a function of these three and the caller, so a write that
// carries the owner its caller checked cannot land on a chat the caller was not allowed to touch,
// even when the chat was deleted and its id taken by someone else in between.
type ChatOwner struct {
	TenantID string
	UserID   string
	AgentID  string
}

// OwnedBy returns the chat's exact owner.
func (c *Chat) OwnedBy() ChatOwner {
	return ChatOwner{TenantID: c.TenantID, UserID: c.UserID, AgentID: c.AgentID}
}

// Owns reports whether a chat has exactly this owner.
func (o ChatOwner) Owns(c *Chat) bool {
	return c != nil && c.TenantID == o.TenantID && c.UserID == o.UserID && c.AgentID == o.AgentID
}

// ChatRef names the chat a by-id write is meant for, as its caller fetched and checked it: the
// id, the exact owner, and the incarnation (a value the store gives each chat at creation and
// never reuses for the same id). A store applies the write only if, in the same statement or
// transaction that changes the row, the chat with that id still has this owner and incarnation;
// otherwise it changes nothing and answers not_found.
type ChatRef struct {
	ID          string
	Owner       ChatOwner
	Incarnation int64
}

// Ref returns the reference a write to this chat, as fetched, carries.
func (c *Chat) Ref() ChatRef {
	return ChatRef{ID: c.ID, Owner: c.OwnedBy(), Incarnation: c.Incarnation}
}
