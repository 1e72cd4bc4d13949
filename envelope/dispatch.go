package envelope

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// The answers of the envelope's ops. Most are the typed service's own results under their
// envelope names; rename, annotate, pin, archive and delete answer a small object of their own.
type (
	// ListResponse is the answer of list.
	ListResponse = annals.ChatPage
	// SearchResponse is the answer of search, its snippets rendered with the request's marks.
	SearchResponse = annals.SearchPage
	// RelatedResponse is the answer of related.
	RelatedResponse = annals.RelatedPage
	// GetResponse is the answer of get.
	GetResponse = annals.ChatView
	// RecapResponse is the answer of recap.
	RecapResponse = annals.Recap
	// ResumeResponse is the answer of resume.
	ResumeResponse = annals.ResumeHandle
	// UsageResponse is the answer of usage.
	UsageResponse = annals.UsageReport
)

// ChatResponse is the answer of rename, annotate, pin and archive: the updated chat.
type ChatResponse struct {
	Chat *annals.Chat `json:"chat"`
}

// DeleteResponse is the answer of delete.
type DeleteResponse struct {
	Deleted string `json:"deleted"`
}

// Dispatch runs one envelope against any history service (the local one or the HTTP client of a
// server): the op's typed call, answered in the envelope's shape (one of the *Response types of
// this package).
func Dispatch(ctx context.Context, svc annals.HistoryService, req *Request) (any, error) {
	if req == nil {
		return nil, annals.Errorf(annals.EINVALID, "the request is empty")
	}
	switch req.Op {
	case history.OpList:
		p, err := req.ListParams()
		if err != nil {
			return nil, err
		}
		return svc.FindChats(ctx, p)
	case history.OpSearch:
		return search(ctx, svc, req)
	case history.OpRelated:
		p, err := req.RelatedParams()
		if err != nil {
			return nil, err
		}
		return svc.FindRelated(ctx, p)
	case history.OpGet:
		p, err := req.GetParams()
		if err != nil {
			return nil, err
		}
		return svc.GetChat(ctx, p)
	case history.OpRename, history.OpAnnotate, history.OpPin, history.OpArchive:
		return curate(ctx, svc, req)
	case history.OpRecap:
		return svc.RecapChat(ctx, req.Selector())
	case history.OpResume:
		return svc.ResumeChat(ctx, req.Selector())
	case history.OpUsage:
		p, err := req.UsageParams()
		if err != nil {
			return nil, err
		}
		return svc.Usage(ctx, p)
	case history.OpDelete:
		if err := svc.DeleteChat(ctx, req.Selector()); err != nil {
			return nil, err
		}
		return &DeleteResponse{Deleted: req.SessionID}, nil
	}
	return nil, unknownOp(req.Op)
}

// search is the search op: the typed search, with its snippets rendered for the envelope's
// mark_open and mark_close.
func search(ctx context.Context, svc annals.HistoryService, req *Request) (*SearchResponse, error) {
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

// curate runs rename, annotate, pin or archive.
func curate(ctx context.Context, svc annals.HistoryService, req *Request) (*ChatResponse, error) {
	sel := req.Selector()
	var chat *annals.Chat
	var err error
	switch req.Op {
	case history.OpRename:
		if req.Title == nil {
			return nil, annals.Errorf(annals.EINVALID, "rename needs a title (an empty string clears it)")
		}
		chat, err = svc.RenameChat(ctx, sel, *req.Title)
	case history.OpAnnotate:
		chat, err = svc.AnnotateChat(ctx, sel, annals.Annotation{Description: req.Description, Tags: req.Tags})
	case history.OpPin:
		chat, err = svc.PinChat(ctx, sel, req.Pinned == nil || *req.Pinned)
	default:
		chat, err = svc.ArchiveChat(ctx, sel, req.Archived == nil || *req.Archived)
	}
	if err != nil {
		return nil, err
	}
	return &ChatResponse{Chat: chat}, nil
}
