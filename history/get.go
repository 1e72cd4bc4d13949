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

// GetChat returns one chat's metadata and transcript: a page (limit, cursor or after_seq), a
// window around a seq, or the whole chat as Markdown.
func (s *Service) GetChat(ctx context.Context, p annals.GetParams) (*annals.ChatView, error) {
	format := p.Format
	if format == "" {
		format = annals.FormatJSON
	}
	switch format {
	case annals.FormatJSON, annals.FormatMarkdown, annals.FormatConversation:
	default:
		return nil, annals.Errorf(annals.EINVALID, "unknown format %q (want one of: json, markdown, conversation)", format)
	}
	chat, _, err := s.fetch(ctx, OpGet, p.Chat)
	if err != nil {
		return nil, err
	}
	out := &annals.ChatView{Chat: chat, Format: string(format)}
	if format == annals.FormatMarkdown {
		md, err := s.renderMarkdown(ctx, chat)
		if err != nil {
			return nil, err
		}
		out.Markdown = md
		return out, nil
	}
	ref := chat.Ref()
	f := annals.EntryFilter{ChatID: chat.ID, Ref: &ref}
	if format == annals.FormatConversation {
		f.Kinds = []annals.EntryKind{annals.KindUser, annals.KindAssistant}
	}
	if p.Limit < 0 || (p.Context != nil && *p.Context < 0) || p.AfterSeq < 0 || p.AroundSeq < 0 {
		return nil, annals.Errorf(annals.EINVALID, "limit, context, after_seq and around_seq must not be negative")
	}
	if p.AroundSeq > 0 {
		out, err = s.window(ctx, p, chat, f, out)
	} else {
		out, err = s.entryPage(ctx, p, f, out)
	}
	if err != nil || !p.Runs {
		return out, err
	}
	if out.Runs, err = s.pageRuns(ctx, chat, out.Entries); err != nil {
		return nil, err
	}
	return out, nil
}

// entryPage answers a get of a page: limit entries after a cursor or after_seq.
func (s *Service) entryPage(ctx context.Context, p annals.GetParams, f annals.EntryFilter, out *annals.ChatView) (*annals.ChatView, error) {
	limit := annals.EffectiveLimit(p.Limit, DefaultGetLimit, MaxGetLimit)
	f.AfterSeq = p.AfterSeq
	if p.Cursor != "" {
		if p.AfterSeq != 0 {
			return nil, annals.Errorf(annals.EINVALID, "give either cursor or after_seq, not both")
		}
		c, err := decodeCursor(p.Cursor)
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

// window answers a get around a seq: Context entries on each side, the effective value reported.
func (s *Service) window(ctx context.Context, p annals.GetParams, chat *annals.Chat, f annals.EntryFilter, out *annals.ChatView) (*annals.ChatView, error) {
	if p.Cursor != "" || p.AfterSeq != 0 {
		return nil, annals.Errorf(annals.EINVALID, "around_seq cannot be combined with cursor or after_seq")
	}
	ctxN := DefaultContext
	if p.Context != nil {
		ctxN = min(*p.Context, MaxContext)
	}
	f.FromSeq = max(1, p.AroundSeq-int64(ctxN))
	// Saturating: around_seq near the int64 limit plus the context must not wrap negative.
	f.ToSeq = annals.SaturatingAdd(p.AroundSeq, int64(ctxN))
	out.Context = ctxN
	var err error
	if out.Entries, err = s.store.FindEntries(ctx, f); err != nil {
		return nil, err
	}
	// seq is contiguous from 1, so the entry count is the last seq.
	out.HasMore = f.ToSeq < chat.Totals.Entries
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
