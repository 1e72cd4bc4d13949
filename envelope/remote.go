package envelope

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// Remote is the envelope's operations of annals.HistoryService over any transport that carries
// one envelope to a server and decodes its JSON answer: each typed call is sent as the envelope
// that means it (ListRequest and the rest) and its answer decoded into the typed result. The
// HTTP client (POST /v1/history) and the Connect client (the History RPC) are each a Remote
// with their own Send; what a call means is written here once. FindChatRuns and Capture are
// not envelope operations: each client adds its own.
type Remote struct {
	// Send carries req and decodes the answer's JSON into out.
	Send func(ctx context.Context, req *Request, out any) error
}

// FindChats lists chats in scope.
func (r Remote) FindChats(ctx context.Context, p annals.ListParams) (*annals.ChatPage, error) {
	var out annals.ChatPage
	return &out, r.Send(ctx, ListRequest(p), &out)
}

// SearchChats searches chats in scope; snippets carry annals.SnippetMarkOpen and
// annals.SnippetMarkClose around matched terms, as the local service's do.
func (r Remote) SearchChats(ctx context.Context, p annals.SearchParams) (*annals.SearchPage, error) {
	var out annals.SearchPage
	return &out, r.Send(ctx, SearchRequest(p), &out)
}

// FindRelated ranks chats close in meaning to a chat or a text.
func (r Remote) FindRelated(ctx context.Context, p annals.RelatedParams) (*annals.RelatedPage, error) {
	var out annals.RelatedPage
	return &out, r.Send(ctx, RelatedRequest(p), &out)
}

// GetChat returns a chat and a page or window of its transcript, or its Markdown export.
func (r Remote) GetChat(ctx context.Context, p annals.GetParams) (*annals.ChatView, error) {
	var out annals.ChatView
	return &out, r.Send(ctx, GetRequest(p), &out)
}

// Usage sums tokens and cost in scope over a range.
func (r Remote) Usage(ctx context.Context, p annals.UsageParams) (*annals.UsageReport, error) {
	var out annals.UsageReport
	return &out, r.Send(ctx, UsageRequest(p), &out)
}

// RenameChat sets or clears a chat's title.
func (r Remote) RenameChat(ctx context.Context, sel annals.ChatSelector, title string) (*annals.Chat, error) {
	req := ByIDRequest(history.OpRename, sel)
	req.Title = &title
	return r.chatOp(ctx, req)
}

// AnnotateChat sets the description and/or the tags.
func (r Remote) AnnotateChat(ctx context.Context, sel annals.ChatSelector, a annals.Annotation) (*annals.Chat, error) {
	req := ByIDRequest(history.OpAnnotate, sel)
	req.Description, req.Tags = a.Description, a.Tags
	return r.chatOp(ctx, req)
}

// PinChat pins or unpins a chat.
func (r Remote) PinChat(ctx context.Context, sel annals.ChatSelector, pinned bool) (*annals.Chat, error) {
	req := ByIDRequest(history.OpPin, sel)
	req.Pinned = &pinned
	return r.chatOp(ctx, req)
}

// ArchiveChat archives or restores a chat.
func (r Remote) ArchiveChat(ctx context.Context, sel annals.ChatSelector, archived bool) (*annals.Chat, error) {
	req := ByIDRequest(history.OpArchive, sel)
	req.Archived = &archived
	return r.chatOp(ctx, req)
}

func (r Remote) chatOp(ctx context.Context, req *Request) (*annals.Chat, error) {
	var out ChatResponse
	if err := r.Send(ctx, req, &out); err != nil {
		return nil, err
	}
	return out.Chat, nil
}

// RecapChat summarises a chat and stores the summary.
func (r Remote) RecapChat(ctx context.Context, sel annals.ChatSelector) (*annals.Recap, error) {
	var out annals.Recap
	return &out, r.Send(ctx, ByIDRequest(history.OpRecap, sel), &out)
}

// ResumeChat returns a chat's continuation handle.
func (r Remote) ResumeChat(ctx context.Context, sel annals.ChatSelector) (*annals.ResumeHandle, error) {
	var out annals.ResumeHandle
	return &out, r.Send(ctx, ByIDRequest(history.OpResume, sel), &out)
}

// DeleteChat deletes a chat.
func (r Remote) DeleteChat(ctx context.Context, sel annals.ChatSelector) error {
	var out DeleteResponse
	return r.Send(ctx, ByIDRequest(history.OpDelete, sel), &out)
}
