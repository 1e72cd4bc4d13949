package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// RenameChat sets the title (an empty title clears it); see annals.HistoryService.
func (s *Service) RenameChat(ctx context.Context, c annals.ChatSelector, title string) (*annals.Chat, error) {
	title = s.redactText(title)
	return s.update(ctx, OpRename, c, annals.ChatUpdate{Title: &title}, true)
}

// AnnotateChat sets the description and/or replaces the tags (an empty list clears them).
func (s *Service) AnnotateChat(ctx context.Context, c annals.ChatSelector, a annals.Annotation) (*annals.Chat, error) {
	if a.Description == nil && a.Tags == nil {
		return nil, annals.Errorf(annals.EINVALID, "annotate needs a description, tags, or both (an empty tags list clears the tags)")
	}
	upd := annals.ChatUpdate{}
	if a.Tags != nil {
		tags := []string{}
		if *a.Tags != nil {
			if err := annals.ValidateTags(*a.Tags); err != nil {
				return nil, err
			}
			tags = annals.RedactTags(s.redactor, *a.Tags)
		}
		upd.Tags = &tags
	}
	if a.Description != nil {
		d := s.redactText(*a.Description)
		upd.Description = &d
	}
	return s.update(ctx, OpAnnotate, c, upd, true)
}

// PinChat pins or unpins a chat.
func (s *Service) PinChat(ctx context.Context, c annals.ChatSelector, pinned bool) (*annals.Chat, error) {
	return s.update(ctx, OpPin, c, annals.ChatUpdate{Pinned: &pinned}, false)
}

// ArchiveChat hides a chat from lists, or restores it.
func (s *Service) ArchiveChat(ctx context.Context, c annals.ChatSelector, archived bool) (*annals.Chat, error) {
	return s.update(ctx, OpArchive, c, annals.ChatUpdate{Archived: &archived}, false)
}

// update applies a metadata change to a chat in scope and, when the embedded text changed,
// refreshes its embedding.
func (s *Service) update(ctx context.Context, op string, c annals.ChatSelector, upd annals.ChatUpdate, reembed bool) (*annals.Chat, error) {
	if err := upd.Validate(); err != nil {
		return nil, err
	}
	chat, _, err := s.fetch(ctx, op, c)
	if err != nil {
		return nil, err
	}
	updated, err := s.store.UpdateChat(ctx, chat.Ref(), upd)
	if err != nil {
		return nil, err
	}
	s.changes.publish(updated.ID, updated.OwnedBy())
	if reembed {
		s.embedChat(ctx, updated)
	}
	return updated, nil
}

// DeleteChat removes a chat with its entries, runs, index rows and embedding. It needs an
// operator or admin, or the chat's own user or agent; the chat must be in scope like any by-id op.
func (s *Service) DeleteChat(ctx context.Context, c annals.ChatSelector) error {
	chat, res, err := s.fetch(ctx, OpDelete, c)
	if err != nil {
		return err
	}
	if !CanModify(res.Principal, chat) {
		return annals.Errorf(annals.EFORBIDDEN, "delete needs an operator or admin, or the chat's own user or agent")
	}
	if err := s.store.DeleteChat(ctx, chat.Ref()); err != nil {
		return err
	}
	s.changes.publish(chat.ID, chat.OwnedBy())
	return nil
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

// ResumeChat returns the continuation handle of a chat in scope. It starts nothing.
func (s *Service) ResumeChat(ctx context.Context, c annals.ChatSelector) (*annals.ResumeHandle, error) {
	chat, _, err := s.fetch(ctx, OpResume, c)
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
	return &annals.ResumeHandle{
		SessionID:    chat.ID,
		Agent:        chat.AgentID,
		TenantID:     chat.TenantID,
		UserID:       chat.UserID,
		Status:       chat.Status,
		LastActivity: chat.LastActivity.Format("2006-01-02T15:04:05.999999999Z07:00"),
		Hint:         hint,
		Command:      chat.Attributes["resume_command"],
		Cwd:          chat.Attributes["cwd"],
	}, nil
}

func (s *Service) redactText(v string) string {
	if s.redactor == nil {
		return v
	}
	out, _ := s.redactor.RedactText(v)
	return out
}
