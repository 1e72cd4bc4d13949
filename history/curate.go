package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// Rename sets the title (an empty title clears it).
func (s *Service) Rename(ctx context.Context, req *Request) (*ChatResponse, error) {
	if req.Title == nil {
		return nil, annals.Errorf(annals.EINVALID, "rename needs a title (an empty string clears it)")
	}
	title := s.redactText(*req.Title)
	return s.update(ctx, OpRename, req, annals.ChatUpdate{Title: &title}, true)
}

// Annotate sets the description and/or replaces the tags (an empty list clears them).
func (s *Service) Annotate(ctx context.Context, req *Request) (*ChatResponse, error) {
	if req.Description == nil && req.Tags == nil {
		return nil, annals.Errorf(annals.EINVALID, "annotate needs a description, tags, or both (an empty tags list clears the tags)")
	}
	upd := annals.ChatUpdate{}
	if req.Tags != nil {
		tags := []string{}
		if *req.Tags != nil {
			if err := annals.ValidateTags(*req.Tags); err != nil {
				return nil, err
			}
			tags = annals.RedactTags(s.redactor, *req.Tags)
		}
		upd.Tags = &tags
	}
	if req.Description != nil {
		d := s.redactText(*req.Description)
		upd.Description = &d
	}
	return s.update(ctx, OpAnnotate, req, upd, true)
}

// Pin pins a chat (the default) or unpins it with pinned: false.
func (s *Service) Pin(ctx context.Context, req *Request) (*ChatResponse, error) {
	pinned := true
	if req.Pinned != nil {
		pinned = *req.Pinned
	}
	return s.update(ctx, OpPin, req, annals.ChatUpdate{Pinned: &pinned}, false)
}

// Archive hides a chat from lists (the default) or restores it with archived: false.
func (s *Service) Archive(ctx context.Context, req *Request) (*ChatResponse, error) {
	archived := true
	if req.Archived != nil {
		archived = *req.Archived
	}
	return s.update(ctx, OpArchive, req, annals.ChatUpdate{Archived: &archived}, false)
}

// update applies a metadata change to a chat in scope and, when the embedded text changed,
// refreshes its embedding.
func (s *Service) update(ctx context.Context, op string, req *Request, upd annals.ChatUpdate, reembed bool) (*ChatResponse, error) {
	if err := s.writable(op); err != nil {
		return nil, err
	}
	if err := upd.Validate(); err != nil {
		return nil, err
	}
	chat, _, err := s.fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	updated, err := s.store.UpdateChat(ctx, chat.Ref(), upd)
	if err != nil {
		return nil, err
	}
	if reembed {
		s.embedChat(ctx, updated)
	}
	return &ChatResponse{Chat: updated}, nil
}

// DeleteResponse is the answer of delete.
type DeleteResponse struct {
	Deleted string `json:"deleted"`
}

// Delete removes a chat with its entries, runs, index rows and embedding. It needs an operator
// or admin, or the chat's own user or agent; the chat must be in scope like any by-id op.
func (s *Service) Delete(ctx context.Context, req *Request) (*DeleteResponse, error) {
	if err := s.writable(OpDelete); err != nil {
		return nil, err
	}
	chat, res, err := s.fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	if !CanModify(res.Principal, chat) {
		return nil, annals.Errorf(annals.EFORBIDDEN, "delete needs an operator or admin, or the chat's own user or agent")
	}
	if err := s.store.DeleteChat(ctx, chat.Ref()); err != nil {
		return nil, err
	}
	return &DeleteResponse{Deleted: chat.ID}, nil
}

// CanModify reports whether a principal may change a chat's transcript or remove it (delete,
// and the capture writes append, truncate and record run), beyond reading it: an operator or
// admin may; a member only when the chat is its own, by user or by agent. A member key with
// neither identity (a tenant-level service key) owns the chats that have neither. Being in
// scope is checked before this: CanModify never widens what a caller can see.
func CanModify(p *annals.Principal, chat *annals.Chat) bool {
	if p == nil || chat == nil {
		return false
	}
	switch {
	case p.Role == annals.RoleOperator || p.Role == annals.RoleAdmin:
		return true
	case p.UserID != "" && p.UserID == chat.UserID:
		return true
	case p.AgentID != "" && p.AgentID == chat.AgentID:
		return true
	case p.UserID == "" && p.AgentID == "" && chat.UserID == "" && chat.AgentID == "":
		return true
	}
	return false
}

// ResumeResponse is a continuation handle: the coordinates to continue a chat with the agent
// runtime's own run trigger. Resume starts nothing.
type ResumeResponse struct {
	SessionID    string           `json:"session_id"`
	Agent        string           `json:"agent"`
	TenantID     string           `json:"tenant_id"`
	UserID       string           `json:"user_id"`
	Status       annals.RunStatus `json:"status"`
	LastActivity string           `json:"last_activity"`
	Hint         string           `json:"hint"`
}

// Resume returns the continuation handle of a chat in scope.
func (s *Service) Resume(ctx context.Context, req *Request) (*ResumeResponse, error) {
	chat, _, err := s.fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	hint := "continue this chat by starting a new run with this session_id through your agent runtime; resume itself starts nothing"
	switch chat.Status {
	case annals.StatusRunning:
		hint = "a run is still in progress in this chat; wait for it to finish, or attach to it, before starting another"
	case annals.StatusAwaitingInput:
		hint = "the chat is waiting for input; answer it by starting a run with this session_id"
	}
	return &ResumeResponse{
		SessionID:    chat.ID,
		Agent:        chat.AgentID,
		TenantID:     chat.TenantID,
		UserID:       chat.UserID,
		Status:       chat.Status,
		LastActivity: chat.LastActivity.Format("2006-01-02T15:04:05.999999999Z07:00"),
		Hint:         hint,
	}, nil
}

func (s *Service) redactText(v string) string {
	if s.redactor == nil {
		return v
	}
	out, _ := s.redactor.RedactText(v)
	return out
}
