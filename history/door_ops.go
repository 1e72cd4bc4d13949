package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// The operations behind the door: reads run as the bound principal, writes are refused first
// when the caller's mode does not allow them.

// FindChats lists chats in the caller's scope.
func (c *Caller) FindChats(ctx context.Context, p annals.ListParams) (*annals.ChatPage, error) {
	return c.svc.FindChats(c.as(ctx), p)
}

// SearchChats searches chats in the caller's scope.
func (c *Caller) SearchChats(ctx context.Context, p annals.SearchParams) (*annals.SearchPage, error) {
	return c.svc.SearchChats(c.as(ctx), p)
}

// FindRelated ranks chats close in meaning to a chat or a text.
func (c *Caller) FindRelated(ctx context.Context, p annals.RelatedParams) (*annals.RelatedPage, error) {
	return c.svc.FindRelated(c.as(ctx), p)
}

// GetChat returns a chat and a page, window or export of its transcript.
func (c *Caller) GetChat(ctx context.Context, p annals.GetParams) (*annals.ChatView, error) {
	return c.svc.GetChat(c.as(ctx), p)
}

// FindChatRuns returns a chat's runs.
func (c *Caller) FindChatRuns(ctx context.Context, sel annals.ChatSelector) ([]*annals.Run, error) {
	return c.svc.FindChatRuns(c.as(ctx), sel)
}

// Usage sums tokens and cost in the caller's scope.
func (c *Caller) Usage(ctx context.Context, p annals.UsageParams) (*annals.UsageReport, error) {
	return c.svc.Usage(c.as(ctx), p)
}

// ResumeChat returns the coordinates to continue a chat.
func (c *Caller) ResumeChat(ctx context.Context, sel annals.ChatSelector) (*annals.ResumeHandle, error) {
	return c.svc.ResumeChat(c.as(ctx), sel)
}

// RenameChat sets a chat's title, if the caller may write.
func (c *Caller) RenameChat(ctx context.Context, sel annals.ChatSelector, title string) (*annals.Chat, error) {
	if err := c.write("op "+OpRename, OpRename); err != nil {
		return nil, err
	}
	return c.svc.RenameChat(c.as(ctx), sel, title)
}

// AnnotateChat sets a chat's description and tags, if the caller may write.
func (c *Caller) AnnotateChat(ctx context.Context, sel annals.ChatSelector, a annals.Annotation) (*annals.Chat, error) {
	if err := c.write("op "+OpAnnotate, OpAnnotate); err != nil {
		return nil, err
	}
	return c.svc.AnnotateChat(c.as(ctx), sel, a)
}

// PinChat pins or unpins a chat, if the caller may write.
func (c *Caller) PinChat(ctx context.Context, sel annals.ChatSelector, pinned bool) (*annals.Chat, error) {
	if err := c.write("op "+OpPin, OpPin); err != nil {
		return nil, err
	}
	return c.svc.PinChat(c.as(ctx), sel, pinned)
}

// ArchiveChat archives or restores a chat, if the caller may write.
func (c *Caller) ArchiveChat(ctx context.Context, sel annals.ChatSelector, archived bool) (*annals.Chat, error) {
	if err := c.write("op "+OpArchive, OpArchive); err != nil {
		return nil, err
	}
	return c.svc.ArchiveChat(c.as(ctx), sel, archived)
}

// RecapChat summarises a chat and stores the summary, if the caller may write.
func (c *Caller) RecapChat(ctx context.Context, sel annals.ChatSelector) (*annals.Recap, error) {
	if err := c.write("op "+OpRecap, OpRecap); err != nil {
		return nil, err
	}
	return c.svc.RecapChat(c.as(ctx), sel)
}

// DeleteChat deletes a chat, if the caller may write.
func (c *Caller) DeleteChat(ctx context.Context, sel annals.ChatSelector) error {
	if err := c.write("op "+OpDelete, OpDelete); err != nil {
		return err
	}
	return c.svc.DeleteChat(c.as(ctx), sel)
}

// Capture applies capture ops as the caller, if the caller may write.
func (c *Caller) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	if err := c.write("capture", "capture"); err != nil {
		return nil, err
	}
	return c.svc.Capture(c.as(ctx), ops)
}
