package httpapi

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// The by-id ops of POST /v1/_history: get, rename, annotate, pin, archive, recap, resume and
// related by chat.

// byID runs a by-id op with the chat as its client names it. A chat the loomcycle importer made
// answers to its own session id (s_x) as well as to annals's (loomcycle:s_x): the service
// resolves a source tool's own id, as it does on every transport. Not found, missing and
// outside scope are one refusal, in the tool's words, naming the id the client sent.
func byID[T any](in *lcRequest, op string, fn func(annals.ChatSelector) (T, error)) (T, error) {
	var zero T
	if in.SessionID == "" {
		return zero, refuse("history: %s requires session_id", op)
	}
	out, err := fn(annals.ChatSelector{Scope: annals.Scope(in.Scope), ID: in.SessionID})
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return zero, refuse("history: chat %q not found", in.SessionID)
	}
	return out, err
}

// lcGet serves get: the chat and its whole transcript (or, when the client pages with annals's
// cursor or after_seq, one page of it), or its Markdown.
func (s *Server) lcGet(ctx context.Context, in *lcRequest) (any, error) {
	return byID(in, "get", func(sel annals.ChatSelector) (*LoomcycleGet, error) {
		switch in.Format {
		case history.FormatMarkdown:
			v, err := s.historyFor(ctx).GetChat(ctx, annals.GetParams{Chat: sel, Format: annals.FormatMarkdown})
			if err != nil {
				return nil, err
			}
			return &LoomcycleGet{Scope: in.Scope, Chat: chatMeta(v.Chat), Format: history.FormatMarkdown, Markdown: &v.Markdown}, nil
		case history.FormatConversation:
			chat, entries, err := s.allEntries(ctx, sel)
			if err != nil {
				return nil, err
			}
			md := conversationMarkdown(entries)
			return &LoomcycleGet{Scope: in.Scope, Chat: chatMeta(chat), Format: history.FormatConversation, Markdown: &md}, nil
		}
		if in.Cursor != "" || in.AfterSeq > 0 {
			return s.getPage(ctx, in, sel)
		}
		chat, entries, err := s.allEntries(ctx, sel)
		if err != nil {
			return nil, err
		}
		return &LoomcycleGet{Scope: in.Scope, Chat: chatMeta(chat), Transcript: transcript(entries)}, nil
	})
}

// getPage is get with annals's paging, for a client that asks for it.
func (s *Server) getPage(ctx context.Context, in *lcRequest, sel annals.ChatSelector) (*LoomcycleGet, error) {
	v, err := s.historyFor(ctx).GetChat(ctx, annals.GetParams{Chat: sel, Limit: max(in.Limit, 0), AfterSeq: in.AfterSeq, Cursor: in.Cursor})
	if err != nil {
		return nil, err
	}
	more := v.HasMore
	return &LoomcycleGet{Scope: in.Scope, Chat: chatMeta(v.Chat), Transcript: transcript(v.Entries), HasMore: &more, NextCursor: v.NextCursor}, nil
}

// allEntries reads a chat's whole transcript, page by page, as the reference returns it.
func (s *Server) allEntries(ctx context.Context, sel annals.ChatSelector) (*annals.Chat, []*annals.Entry, error) {
	var chat *annals.Chat
	var all []*annals.Entry
	p := annals.GetParams{Chat: sel, Limit: history.MaxGetLimit}
	for {
		v, err := s.historyFor(ctx).GetChat(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		if chat == nil {
			chat = v.Chat
		}
		all = append(all, v.Entries...)
		if !v.HasMore {
			return chat, all, nil
		}
		p.Cursor = v.NextCursor
	}
}

func transcript(entries []*annals.Entry) []LoomcycleEvent {
	out := make([]LoomcycleEvent, 0, len(entries))
	for _, e := range entries {
		out = append(out, transcriptEvent(e))
	}
	return out
}

// lcCurate serves rename, annotate, pin and archive, checking the op's own fields first as the
// tool does.
func (s *Server) lcCurate(ctx context.Context, in *lcRequest) (any, error) {
	switch {
	case in.Op == "rename" && in.Title == nil:
		return nil, refuse("history: rename requires title")
	case in.Op == "annotate" && in.Description == nil && in.Tags == nil:
		return nil, refuse("history: annotate requires description and/or tags")
	}
	chat, err := byID(in, in.Op, func(sel annals.ChatSelector) (*annals.Chat, error) {
		switch in.Op {
		case "rename":
			return s.historyFor(ctx).RenameChat(ctx, sel, *in.Title)
		case "annotate":
			return s.historyFor(ctx).AnnotateChat(ctx, sel, annals.Annotation{Description: in.Description, Tags: in.Tags})
		case "pin":
			return s.historyFor(ctx).PinChat(ctx, sel, in.Pinned == nil || *in.Pinned)
		}
		return s.historyFor(ctx).ArchiveChat(ctx, sel, in.Archived == nil || *in.Archived)
	})
	if err != nil {
		return nil, err
	}
	return &LoomcycleChat{Scope: in.Scope, Chat: chatMeta(chat)}, nil
}

// lcRecap serves recap.
func (s *Server) lcRecap(ctx context.Context, in *lcRequest) (any, error) {
	rc, err := byID(in, "recap", func(sel annals.ChatSelector) (*annals.Recap, error) { return s.historyFor(ctx).RecapChat(ctx, sel) })
	if err != nil {
		return nil, err
	}
	return &LoomcycleRecap{Scope: in.Scope, Summary: rc.Summary, Chat: chatMeta(rc.Chat)}, nil
}

// lcResume serves resume: the continuation handle, nested under resume.
func (s *Server) lcResume(ctx context.Context, in *lcRequest) (any, error) {
	h, err := byID(in, "resume", func(sel annals.ChatSelector) (*annals.ResumeHandle, error) {
		return s.historyFor(ctx).ResumeChat(ctx, sel)
	})
	if err != nil {
		return nil, err
	}
	return &LoomcycleResume{Scope: in.Scope, Resume: lcResumeHandle{
		SessionID: clientID(h.SessionID), Agent: h.Agent, TenantID: h.TenantID, UserID: h.UserID,
		Status: string(h.Status), LastActivity: h.LastActivity, Hint: h.Hint,
	}}, nil
}

// lcRelated serves related: by chat when session_id is given (as the tool prefers it), else by
// the free-text query.
func (s *Server) lcRelated(ctx context.Context, in *lcRequest) (any, error) {
	p := annals.RelatedParams{Scope: annals.Scope(in.Scope), Limit: effectiveLimit(in.Limit, lcRelatedDefault, lcRelatedMax),
		IncludeArchived: in.IncludeArchived}
	out := &LoomcycleRelated{Scope: in.Scope}
	var page *annals.RelatedPage
	var err error
	switch {
	case in.SessionID != "":
		// The reference echoes the chat's own id: the bare session id, however the client named it.
		out.SourceSessionID = clientID(in.SessionID)
		page, err = byID(in, "related", func(sel annals.ChatSelector) (*annals.RelatedPage, error) {
			q := p
			q.ChatID = sel.ID
			return s.historyFor(ctx).FindRelated(ctx, q)
		})
	case strings.TrimSpace(in.Query) != "":
		p.Query = strings.TrimSpace(in.Query)
		out.Query = p.Query
		page, err = s.historyFor(ctx).FindRelated(ctx, p)
	default:
		// The service says first whether related works here at all (an embedder), as the tool does.
		if _, err = s.historyFor(ctx).FindRelated(ctx, p); annals.ErrorCode(err) == annals.EINVALID || err == nil {
			err = refuse("history: related requires session_id or query")
		}
	}
	if err != nil {
		return nil, err
	}
	out.Related = make([]lcRelatedRow, 0, len(page.Results))
	for _, r := range page.Results {
		out.Related = append(out.Related, lcRelatedRow{lcChatRow: chatRow(r.Chat), Score: float64(r.Score)})
	}
	out.Count = len(out.Related)
	return out, nil
}
