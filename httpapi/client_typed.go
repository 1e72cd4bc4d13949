package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

// The Client as an annals.HistoryService: each typed call is sent as the op envelope that means
// it (envelope.ListRequest and the rest), so a program written against the root interface runs
// unchanged against a local service or a server.

var _ annals.HistoryService = (*Client)(nil)

// FindChats lists chats in scope.
func (c *Client) FindChats(ctx context.Context, p annals.ListParams) (*annals.ChatPage, error) {
	var out annals.ChatPage
	return &out, c.postJSON(ctx, "/v1/history", envelope.ListRequest(p), &out)
}

// SearchChats searches chats in scope; snippets carry annals.SnippetMarkOpen and
// annals.SnippetMarkClose around matched terms, as the local service's do.
func (c *Client) SearchChats(ctx context.Context, p annals.SearchParams) (*annals.SearchPage, error) {
	var out annals.SearchPage
	return &out, c.postJSON(ctx, "/v1/history", envelope.SearchRequest(p), &out)
}

// FindRelated ranks chats close in meaning to a chat or a text.
func (c *Client) FindRelated(ctx context.Context, p annals.RelatedParams) (*annals.RelatedPage, error) {
	var out annals.RelatedPage
	return &out, c.postJSON(ctx, "/v1/history", envelope.RelatedRequest(p), &out)
}

// GetChat returns a chat and a page or window of its transcript, or its Markdown export.
func (c *Client) GetChat(ctx context.Context, p annals.GetParams) (*annals.ChatView, error) {
	var out annals.ChatView
	return &out, c.postJSON(ctx, "/v1/history", envelope.GetRequest(p), &out)
}

// Usage sums tokens and cost in scope over a range.
func (c *Client) Usage(ctx context.Context, p annals.UsageParams) (*annals.UsageReport, error) {
	var out annals.UsageReport
	return &out, c.postJSON(ctx, "/v1/history", envelope.UsageRequest(p), &out)
}

// FindChatRuns returns a chat's runs, oldest first (GET /v1/sessions/{id}/runs).
func (c *Client) FindChatRuns(ctx context.Context, sel annals.ChatSelector) ([]*annals.Run, error) {
	q := url.Values{}
	if sel.Scope != "" {
		q.Set("scope", string(sel.Scope))
	}
	var out RunsAnswer
	if err := c.call(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(sel.ID)+"/runs"+encodeQuery(q), nil, "", &out); err != nil {
		return nil, err
	}
	return out.Runs, nil
}

// RenameChat sets or clears a chat's title.
func (c *Client) RenameChat(ctx context.Context, sel annals.ChatSelector, title string) (*annals.Chat, error) {
	r := envelope.ByIDRequest(history.OpRename, sel)
	r.Title = &title
	return c.chatOp(ctx, r)
}

// AnnotateChat sets the description and/or the tags.
func (c *Client) AnnotateChat(ctx context.Context, sel annals.ChatSelector, a annals.Annotation) (*annals.Chat, error) {
	r := envelope.ByIDRequest(history.OpAnnotate, sel)
	r.Description, r.Tags = a.Description, a.Tags
	return c.chatOp(ctx, r)
}

// PinChat pins or unpins a chat.
func (c *Client) PinChat(ctx context.Context, sel annals.ChatSelector, pinned bool) (*annals.Chat, error) {
	r := envelope.ByIDRequest(history.OpPin, sel)
	r.Pinned = &pinned
	return c.chatOp(ctx, r)
}

// ArchiveChat archives or restores a chat.
func (c *Client) ArchiveChat(ctx context.Context, sel annals.ChatSelector, archived bool) (*annals.Chat, error) {
	r := envelope.ByIDRequest(history.OpArchive, sel)
	r.Archived = &archived
	return c.chatOp(ctx, r)
}

func (c *Client) chatOp(ctx context.Context, r *envelope.Request) (*annals.Chat, error) {
	var out envelope.ChatResponse
	if err := c.postJSON(ctx, "/v1/history", r, &out); err != nil {
		return nil, err
	}
	return out.Chat, nil
}

// RecapChat summarises a chat and stores the summary.
func (c *Client) RecapChat(ctx context.Context, sel annals.ChatSelector) (*annals.Recap, error) {
	var out annals.Recap
	return &out, c.postJSON(ctx, "/v1/history", envelope.ByIDRequest(history.OpRecap, sel), &out)
}

// ResumeChat returns a chat's continuation handle.
func (c *Client) ResumeChat(ctx context.Context, sel annals.ChatSelector) (*annals.ResumeHandle, error) {
	var out annals.ResumeHandle
	return &out, c.postJSON(ctx, "/v1/history", envelope.ByIDRequest(history.OpResume, sel), &out)
}

// DeleteChat deletes a chat.
func (c *Client) DeleteChat(ctx context.Context, sel annals.ChatSelector) error {
	var out envelope.DeleteResponse
	return c.postJSON(ctx, "/v1/history", envelope.ByIDRequest(history.OpDelete, sel), &out)
}
