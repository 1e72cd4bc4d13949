package history

import (
	"context"
	"time"

	"github.com/annals-dev/annals"
)

// The op envelope {op, ...} (Request) is the wire form every transport shares. This file is the
// one place that turns it into the typed calls of annals.HistoryService and their answers back
// into the envelope's answers, and the typed parameters back into an envelope for clients. The
// typed service decides everything; the envelope only parses strings, names fields and renders
// snippet marks.

// Dispatch runs one envelope against any history service: the op's typed call, answered in the
// envelope's shape (one of the *Response types of this package).
func Dispatch(ctx context.Context, svc annals.HistoryService, req *Request) (any, error) {
	if req == nil {
		return nil, annals.Errorf(annals.EINVALID, "the request is empty")
	}
	switch req.Op {
	case OpList:
		return List(ctx, svc, req)
	case OpSearch:
		return Search(ctx, svc, req)
	case OpRelated:
		p, err := req.RelatedParams()
		if err != nil {
			return nil, err
		}
		return svc.FindRelated(ctx, p)
	case OpGet:
		p, err := req.GetParams()
		if err != nil {
			return nil, err
		}
		return svc.GetChat(ctx, p)
	case OpRename, OpAnnotate, OpPin, OpArchive:
		return curate(ctx, svc, req)
	case OpRecap:
		return svc.RecapChat(ctx, req.Selector())
	case OpResume:
		return svc.ResumeChat(ctx, req.Selector())
	case OpDelete:
		if err := svc.DeleteChat(ctx, req.Selector()); err != nil {
			return nil, err
		}
		return &DeleteResponse{Deleted: req.SessionID}, nil
	}
	return nil, unknownOp(req.Op)
}

// List is the list op of the envelope against svc.
func List(ctx context.Context, svc annals.HistoryService, req *Request) (*ListResponse, error) {
	p, err := req.ListParams()
	if err != nil {
		return nil, err
	}
	return svc.FindChats(ctx, p)
}

// Search is the search op of the envelope against svc: the typed search, with its snippets
// rendered for the envelope's mark_open and mark_close.
func Search(ctx context.Context, svc annals.HistoryService, req *Request) (*SearchResponse, error) {
	if len(req.MarkOpen) > maxMarkBytes || len(req.MarkClose) > maxMarkBytes {
		return nil, annals.Errorf(annals.EINVALID, "mark_open and mark_close are at most %d bytes", maxMarkBytes)
	}
	p, err := req.SearchParams()
	if err != nil {
		return nil, err
	}
	out, err := svc.SearchChats(ctx, p)
	if err != nil {
		return nil, err
	}
	RenderSnippets(out, req.MarkOpen, req.MarkClose)
	return out, nil
}

// RenderSnippets replaces the store's sentinel marks (annals.SnippetMarkOpen/Close) in every
// snippet of a search page with open and shut ("[" and "]" when both are empty), HTML-escaping
// the text around them when either mark is HTML. It is how the envelope answers, for callers
// of SearchChats that print or send the page themselves.
func RenderSnippets(page *annals.SearchPage, open, shut string) {
	m := newMarks(open, shut)
	for i := range page.Chats {
		for j := range page.Chats[i].Snippets {
			page.Chats[i].Snippets[j].Text = m.render(page.Chats[i].Snippets[j].Text)
		}
	}
	for i := range page.Entries {
		page.Entries[i].Snippet = m.render(page.Entries[i].Snippet)
	}
}

// curate runs rename, annotate, pin or archive from the envelope.
func curate(ctx context.Context, svc annals.HistoryService, req *Request) (*ChatResponse, error) {
	sel := req.Selector()
	var chat *annals.Chat
	var err error
	switch req.Op {
	case OpRename:
		if req.Title == nil {
			return nil, annals.Errorf(annals.EINVALID, "rename needs a title (an empty string clears it)")
		}
		chat, err = svc.RenameChat(ctx, sel, *req.Title)
	case OpAnnotate:
		chat, err = svc.AnnotateChat(ctx, sel, annals.Annotation{Description: req.Description, Tags: req.Tags})
	case OpPin:
		chat, err = svc.PinChat(ctx, sel, req.Pinned == nil || *req.Pinned)
	default:
		chat, err = svc.ArchiveChat(ctx, sel, req.Archived == nil || *req.Archived)
	}
	if err != nil {
		return nil, err
	}
	return &ChatResponse{Chat: chat}, nil
}

// Selector is the chat of a by-id op.
func (r *Request) Selector() annals.ChatSelector {
	return annals.ChatSelector{Scope: annals.Scope(r.Scope), ID: r.SessionID}
}

// ChatQuery parses the envelope's list filters.
func (r *Request) ChatQuery() (annals.ChatQuery, error) {
	q := annals.ChatQuery{
		Tag: r.Tag, TitleContains: r.TitleContains, IDPrefix: r.IDPrefix, Agent: r.Agent,
		PinnedOnly: r.PinnedOnly, IncludeArchived: r.IncludeArchived,
	}
	if r.Status != "" {
		st, err := annals.ParseRunStatus(r.Status)
		if err != nil {
			return q, err
		}
		q.Status = &st
	}
	var err error
	if q.From, err = annals.ParseTimeBound("from", r.From, false); err != nil {
		return q, err
	}
	if q.To, err = annals.ParseTimeBound("to", r.To, true); err != nil {
		return q, err
	}
	if len(r.Attributes) > 0 {
		q.Attributes = make(map[string]annals.AttrMatch, len(r.Attributes))
		for k, v := range r.Attributes {
			q.Attributes[k] = annals.AttrMatch{Value: v.Value, Contains: v.Contains}
		}
	}
	return q, nil
}

func (r *Request) page() annals.PageParams {
	return annals.PageParams{Limit: r.Limit, Offset: r.Offset, Cursor: r.Cursor}
}

// ListParams parses the envelope of list.
func (r *Request) ListParams() (annals.ListParams, error) {
	q, err := r.ChatQuery()
	return annals.ListParams{Scope: annals.Scope(r.Scope), Filter: q, Page: r.page()}, err
}

// SearchParams parses the envelope of search.
func (r *Request) SearchParams() (annals.SearchParams, error) {
	q, err := r.ChatQuery()
	return annals.SearchParams{
		Scope: annals.Scope(r.Scope), Query: r.Query, In: r.In, Sort: r.Sort,
		Mode: annals.SearchMode(r.Mode), Filter: q, Page: r.page(),
	}, err
}

// RelatedParams parses the envelope of related.
func (r *Request) RelatedParams() (annals.RelatedParams, error) {
	return annals.RelatedParams{Scope: annals.Scope(r.Scope), ChatID: r.SessionID, Query: r.Query, Limit: r.Limit, IncludeArchived: r.IncludeArchived}, nil
}

// GetParams parses the envelope of get.
func (r *Request) GetParams() (annals.GetParams, error) {
	return annals.GetParams{
		Chat: r.Selector(), Format: annals.ChatFormat(r.Format), Limit: r.Limit,
		AfterSeq: r.AfterSeq, Cursor: r.Cursor, AroundSeq: r.AroundSeq, Context: r.Context,
	}, nil
}

// The other way, for clients that speak the envelope (httpapi.Client): typed parameters as
// the envelope that means them.

// ListRequest is the envelope of FindChats.
func ListRequest(p annals.ListParams) *Request {
	r := &Request{Op: OpList, Scope: string(p.Scope)}
	r.setQuery(p.Filter)
	r.setPage(p.Page)
	return r
}

// SearchRequest is the envelope of SearchChats, asking for the typed marks so that the answer
// is what SearchChats itself returns.
func SearchRequest(p annals.SearchParams) *Request {
	r := &Request{Op: OpSearch, Scope: string(p.Scope), Query: p.Query, In: p.In, Sort: p.Sort, Mode: string(p.Mode),
		MarkOpen: annals.SnippetMarkOpen, MarkClose: annals.SnippetMarkClose}
	r.setQuery(p.Filter)
	r.setPage(p.Page)
	return r
}

// RelatedRequest is the envelope of FindRelated.
func RelatedRequest(p annals.RelatedParams) *Request {
	return &Request{Op: OpRelated, Scope: string(p.Scope), SessionID: p.ChatID, Query: p.Query, Limit: p.Limit, IncludeArchived: p.IncludeArchived}
}

// GetRequest is the envelope of GetChat.
func GetRequest(p annals.GetParams) *Request {
	return &Request{Op: OpGet, Scope: string(p.Chat.Scope), SessionID: p.Chat.ID, Format: string(p.Format), Limit: p.Limit,
		AfterSeq: p.AfterSeq, Cursor: p.Cursor, AroundSeq: p.AroundSeq, Context: p.Context}
}

// ByIDRequest is the envelope of a by-id op.
func ByIDRequest(op string, c annals.ChatSelector) *Request {
	return &Request{Op: op, Scope: string(c.Scope), SessionID: c.ID}
}

func (r *Request) setQuery(q annals.ChatQuery) {
	if q.Status != nil {
		r.Status = string(*q.Status)
	}
	if q.From != nil {
		r.From = q.From.UTC().Format(time.RFC3339Nano)
	}
	if q.To != nil {
		r.To = q.To.UTC().Format(time.RFC3339Nano)
	}
	r.Tag, r.TitleContains, r.IDPrefix, r.Agent = q.Tag, q.TitleContains, q.IDPrefix, q.Agent
	r.PinnedOnly, r.IncludeArchived = q.PinnedOnly, q.IncludeArchived
	if len(q.Attributes) > 0 {
		r.Attributes = make(map[string]AttrValue, len(q.Attributes))
		for k, v := range q.Attributes {
			r.Attributes[k] = AttrValue{Value: v.Value, Contains: v.Contains}
		}
	}
}

func (r *Request) setPage(p annals.PageParams) {
	r.Limit, r.Offset, r.Cursor = p.Limit, p.Offset, p.Cursor
}

// The envelope methods of Service: each op of the envelope on this service, as transports and
// tests that hold a Request call them.

// List is the list op.
func (s *Service) List(ctx context.Context, req *Request) (*ListResponse, error) {
	return List(ctx, s, req)
}

// Search is the search op.
func (s *Service) Search(ctx context.Context, req *Request) (*SearchResponse, error) {
	return Search(ctx, s, req)
}

// Related is the related op.
func (s *Service) Related(ctx context.Context, req *Request) (*RelatedResponse, error) {
	p, _ := req.RelatedParams()
	return s.FindRelated(ctx, p)
}

// Get is the get op.
func (s *Service) Get(ctx context.Context, req *Request) (*GetResponse, error) {
	p, _ := req.GetParams()
	return s.GetChat(ctx, p)
}

// Rename is the rename op.
func (s *Service) Rename(ctx context.Context, req *Request) (*ChatResponse, error) {
	return s.curateOp(ctx, OpRename, req)
}

// Annotate is the annotate op.
func (s *Service) Annotate(ctx context.Context, req *Request) (*ChatResponse, error) {
	return s.curateOp(ctx, OpAnnotate, req)
}

// Pin is the pin op (pinned: false unpins).
func (s *Service) Pin(ctx context.Context, req *Request) (*ChatResponse, error) {
	return s.curateOp(ctx, OpPin, req)
}

// Archive is the archive op (archived: false restores).
func (s *Service) Archive(ctx context.Context, req *Request) (*ChatResponse, error) {
	return s.curateOp(ctx, OpArchive, req)
}

func (s *Service) curateOp(ctx context.Context, op string, req *Request) (*ChatResponse, error) {
	r := *req
	r.Op = op
	return curate(ctx, s, &r)
}

// Recap is the recap op.
func (s *Service) Recap(ctx context.Context, req *Request) (*RecapResponse, error) {
	return s.RecapChat(ctx, req.Selector())
}

// Resume is the resume op.
func (s *Service) Resume(ctx context.Context, req *Request) (*ResumeResponse, error) {
	return s.ResumeChat(ctx, req.Selector())
}

// Delete is the delete op.
func (s *Service) Delete(ctx context.Context, req *Request) (*DeleteResponse, error) {
	if err := s.DeleteChat(ctx, req.Selector()); err != nil {
		return nil, err
	}
	return &DeleteResponse{Deleted: req.SessionID}, nil
}

// Runs returns the runs of a chat in scope, oldest first (GET /v1/sessions/{id}/runs).
func (s *Service) Runs(ctx context.Context, req *Request) (*RunsResponse, error) {
	runs, err := s.FindChatRuns(ctx, req.Selector())
	if err != nil {
		return nil, err
	}
	return &RunsResponse{Runs: runs}, nil
}

// Do dispatches an envelope to its op on this service.
func (s *Service) Do(ctx context.Context, req *Request) (any, error) { return Dispatch(ctx, s, req) }
