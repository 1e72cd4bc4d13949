package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// The capture path as a caller. Whose chat is created comes from the caller's principal, never
// from the body:
//
//   - a non-admin's chats are created in the principal's tenant, whatever the op says;
//   - when the principal has a user (agent), the chat gets that user (agent); an op naming
//     another one is refused; a principal without a user (agent) may name one;
//   - an admin may name any tenant, user and agent; a chat without a tenant gets the admin's.
//
// A chat is created only if it falls inside the caller's widest allowed scope (so the caller
// can read back what it wrote) and the caller may then write to it (CanModify): a member key
// with neither user nor agent creates only chats with neither, and a runtime that writes for
// many users uses an operator key. Every append, truncation and run is checked for what it does,
// whatever came before it in the batch: its chat must be in scope (else the same opaque
// not-found as a missing chat) and the caller's to change (else forbidden). Each op that passes
// is bound to the owner it was checked against (annals.CaptureOp.Expect), so the store applies it
// only to that chat, inside the capture transaction: a chat deleted and created again under the
// same id by someone else in between is not found, never written.

// Capture checks, binds and redacts ops for the caller in ctx, then applies them in one
// transaction. An error names the failing op as an *annals.BatchError. A batch of one chat or
// run op answers what it stored (annals.CreateChat, annals.RecordRun) only while the chat is
// still the one the op was checked against: one deleted and created again by someone else
// since is not found.
func (s *Service) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	guarded, err := s.guard(ctx, ops)
	if err != nil {
		return nil, err
	}
	res, err := s.capture.Capture(ctx, guarded)
	if err != nil {
		return nil, err
	}
	s.changed(guarded)
	if s.onCapture != nil {
		s.onCapture()
	}
	if err := s.stillTheirs(ctx, guarded, res); err != nil {
		return nil, err
	}
	return res, nil
}

// stillTheirs checks what a one-op batch read back after its commit against the owner its op
// was bound to.
func (s *Service) stillTheirs(ctx context.Context, ops []annals.CaptureOp, res *annals.CaptureResult) error {
	switch {
	case res.Chat != nil && len(ops) == 1 && ops[0].Chat != nil:
		if !ops[0].Chat.OwnedBy().Owns(res.Chat) {
			return annals.NotFound(res.Chat.ID)
		}
	case res.Run != nil && len(ops) == 1 && ops[0].Run != nil:
		// Runs are read by chat id: they are the caller's only if the chat still has the owner
		// the op was bound to (checked after the read, so a chat replaced before it is caught).
		now, err := s.store.FindChatByID(ctx, ops[0].Run.ChatID)
		if err != nil || ops[0].Expect == nil || !ops[0].Expect.Owns(now) {
			return annals.NotFound(ops[0].Run.ChatID)
		}
	}
	return nil
}

// guard checks and binds ops for the caller in ctx. The returned slice is a copy; the caller's
// ops are not modified.
func (s *Service) guard(ctx context.Context, ops []annals.CaptureOp) ([]annals.CaptureOp, error) {
	res, err := Resolve(ctx, "")
	if err != nil {
		return nil, err
	}
	p := res.Principal
	out := make([]annals.CaptureOp, len(ops))
	// The owner each chat named so far has (as stored, or as a chat op of this batch creates
	// it): a chat is fetched once per batch, but every op on it is checked.
	owners := map[string]annals.ChatOwner{}
	for i, op := range ops {
		out[i] = op
		out[i].Expect = nil // only the guard binds an op
		if op.Chat != nil {
			c, err := s.ownChat(ctx, p, res.Owner, op.Chat)
			if err != nil {
				return nil, &annals.BatchError{Index: i, Err: err}
			}
			out[i].Chat = c
			owners[c.ID] = c.OwnedBy()
			continue
		}
		chatID := op.TargetID()
		if chatID == "" {
			continue // the store's validation reports the malformed op
		}
		owner, seen := owners[chatID]
		if !seen {
			chat, err := s.store.FindChatByID(ctx, chatID)
			if annals.ErrorCode(err) == annals.ENOTFOUND || (err == nil && !res.Owner.Matches(chat)) {
				return nil, &annals.BatchError{Index: i, Err: annals.NotFound(chatID)}
			}
			if err != nil {
				return nil, &annals.BatchError{Index: i, Err: err}
			}
			owner = chat.OwnedBy()
			owners[chatID] = owner
		}
		// Seeing a colleague's chat is not owning it: appending to it, rewinding it or
		// recording runs on it needs the same right as deleting it.
		if !CanModify(p, &annals.Chat{TenantID: owner.TenantID, UserID: owner.UserID, AgentID: owner.AgentID}) {
			return nil, &annals.BatchError{Index: i, Err: annals.Errorf(annals.EFORBIDDEN, "writing to chat %q needs an operator or admin, or the chat's own user or agent", chatID)}
		}
		bound := owner
		out[i].Expect = &bound
	}
	return out, nil
}

// ownChat gives a chat to be created the caller's identity and checks that it lands in scope
// and that the caller may write to it.
func (s *Service) ownChat(ctx context.Context, p *annals.Principal, owner annals.Owner, in *annals.Chat) (*annals.Chat, error) {
	c := *in
	if !p.IsAdmin() {
		c.TenantID = p.TenantID
		if p.UserID != "" {
			if c.UserID != "" && c.UserID != p.UserID {
				return nil, annals.Errorf(annals.EFORBIDDEN, "chat.user_id %q is not this key's user: a key with a user creates chats only for that user (leave user_id out)", c.UserID)
			}
			c.UserID = p.UserID
		}
		if p.AgentID != "" {
			if c.AgentID != "" && c.AgentID != p.AgentID {
				return nil, annals.Errorf(annals.EFORBIDDEN, "chat.agent_id %q is not this key's agent: a key with an agent creates chats only for that agent (leave agent_id out)", c.AgentID)
			}
			c.AgentID = p.AgentID
		}
	} else if c.TenantID == "" {
		c.TenantID = p.TenantID
	}
	if !owner.Matches(&c) {
		return nil, annals.Errorf(annals.EFORBIDDEN, "chat %q would be outside this caller's history scope (tenant %q, user %q, agent %q); give the chat this key's user or agent", c.ID, c.TenantID, c.UserID, c.AgentID)
	}
	if !CanModify(p, &c) {
		return nil, annals.Errorf(annals.EFORBIDDEN, "chat %q names user %q and agent %q: a member key without a user or agent creates only chats without them (use an operator key to write chats for other users or agents)", c.ID, c.UserID, c.AgentID)
	}
	// Chat ids are unique across tenants. A chat of someone else answers exactly like a chat of
	// the caller with different immutable data, without saying whose it is. (The store compares
	// the immutable data again inside the transaction, which is what makes this safe.)
	existing, err := s.store.FindChatByID(ctx, c.ID)
	if err == nil && !owner.Matches(existing) {
		return nil, errConflict(c.ID)
	}
	if err != nil && annals.ErrorCode(err) != annals.ENOTFOUND {
		return nil, err
	}
	return &c, nil
}

func errConflict(id string) error {
	return annals.Errorf(annals.ECONFLICT, "chat %q already exists with different immutable data (tenant, user, agent or attributes cannot change after creation)", id)
}

// errReadOnly is the refusal of a write on a read-only history (the door's, door.go).
func errReadOnly(what string) error {
	return annals.Errorf(annals.EFORBIDDEN, "this history is read-only (started with --read-only): %s writes and is refused; list, search, get, related and resume still work", what)
}
