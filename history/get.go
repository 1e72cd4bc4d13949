package history

import (
	"bytes"
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/markdown"
)

// Get limits.
const (
	DefaultGetLimit  = 100
	MaxGetLimit      = 1000
	DefaultContext   = 5
	MaxContext       = 100
	maxExportEntries = 1_000_000
)

var formats = []string{FormatJSON, FormatMarkdown, FormatConversation}

// GetResponse is the answer of get.
type GetResponse struct {
	Chat   *annals.Chat `json:"chat"`
	Format string       `json:"format"`
	// Entries is the page (json and conversation formats).
	Entries []*annals.Entry `json:"entries,omitempty"`
	// Limit is the effective page size.
	Limit int `json:"limit,omitempty"`
	// Context is the effective number of entries on each side of around_seq (a window answer).
	Context    int    `json:"context,omitempty"`
	HasMore    bool   `json:"has_more"`
	NextCursor string `json:"next_cursor,omitempty"`
	// Markdown is the whole chat rendered as a portable Markdown export (markdown format).
	Markdown string `json:"markdown,omitempty"`
}

// Get returns one chat's metadata and transcript: a page (limit, cursor or after_seq), a window
// around a seq, or the whole chat as Markdown.
func (s *Service) Get(ctx context.Context, req *Request) (*GetResponse, error) {
	format := req.Format
	if format == "" {
		format = FormatJSON
	}
	if !containsString(formats, format) {
		return nil, annals.Errorf(annals.EINVALID, "unknown format %q (want one of: json, markdown, conversation)", format)
	}
	chat, _, err := s.fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	out := &GetResponse{Chat: chat, Format: format}
	if format == FormatMarkdown {
		md, err := s.renderMarkdown(ctx, chat)
		if err != nil {
			return nil, err
		}
		out.Markdown = md
		return out, nil
	}

	ref := chat.Ref()
	f := annals.EntryFilter{ChatID: chat.ID, Ref: &ref}
	if format == FormatConversation {
		f.Kinds = []annals.EntryKind{annals.KindUser, annals.KindAssistant}
	}
	if req.Limit < 0 || (req.Context != nil && *req.Context < 0) || req.AfterSeq < 0 || req.AroundSeq < 0 {
		return nil, annals.Errorf(annals.EINVALID, "limit, context, after_seq and around_seq must not be negative")
	}
	if req.AroundSeq > 0 {
		if req.Cursor != "" || req.AfterSeq != 0 {
			return nil, annals.Errorf(annals.EINVALID, "around_seq cannot be combined with cursor or after_seq")
		}
		ctxN := DefaultContext
		if req.Context != nil {
			ctxN = min(*req.Context, MaxContext)
		}
		f.FromSeq = max(1, req.AroundSeq-int64(ctxN))
		// Saturating: around_seq near the int64 limit plus the context must not wrap negative.
		f.ToSeq = annals.SaturatingAdd(req.AroundSeq, int64(ctxN))
		out.Context = ctxN
		if out.Entries, err = s.store.FindEntries(ctx, f); err != nil {
			return nil, err
		}
		// seq is contiguous from 1, so the entry count is the last seq.
		out.HasMore = f.ToSeq < chat.Totals.Entries
		return out, nil
	}

	limit := annals.EffectiveLimit(req.Limit, DefaultGetLimit, MaxGetLimit)
	f.AfterSeq = req.AfterSeq
	if req.Cursor != "" {
		if req.AfterSeq != 0 {
			return nil, annals.Errorf(annals.EINVALID, "give either cursor or after_seq, not both")
		}
		c, err := decodeCursor(req.Cursor)
		if err != nil {
			return nil, err
		}
		f.AfterSeq = c.Seq
	}
	// One extra row tells whether another page exists without a count query.
	f.Limit = limit + 1
	entries, err := s.store.FindEntries(ctx, f)
	if err != nil {
		return nil, err
	}
	if len(entries) > limit {
		entries = entries[:limit]
		out.HasMore = true
		out.NextCursor = encodeCursor(cursor{Seq: entries[len(entries)-1].Seq})
	}
	out.Entries, out.Limit = entries, limit
	return out, nil
}

func (s *Service) renderMarkdown(ctx context.Context, chat *annals.Chat) (string, error) {
	runs, err := s.runsOf(ctx, chat)
	if err != nil {
		return "", err
	}
	entries, err := s.store.FindEntries(ctx, annals.EntryFilter{ChatID: chat.ID, Ref: ptrRef(chat), Limit: maxExportEntries})
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := markdown.Render(&buf, chat, runs, entries); err != nil {
		return "", annals.Internal("render markdown", err)
	}
	return buf.String(), nil
}
