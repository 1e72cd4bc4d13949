package history

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// Search modes.
const (
	ModeChats   = "chats"
	ModeEntries = "entries"
)

// maxMarkBytes bounds a highlight marker: it is repeated around every matched term.
const maxMarkBytes = 32

// SearchResponse is the answer of search. Chats is set in chats mode, Entries in entries mode.
type SearchResponse struct {
	Chats   []annals.ChatHit  `json:"chats,omitempty"`
	Entries []annals.EntryHit `json:"entries,omitempty"`
	// Total counts every match in scope, ignoring paging.
	Total int `json:"total"`
	// Limit is the effective limit.
	Limit      int    `json:"limit"`
	Offset     int    `json:"offset"`
	NextCursor string `json:"next_cursor,omitempty"`
	Scope      string `json:"scope"`
	Mode       string `json:"mode"`
	// Query is the query as annals understood it, in the search language.
	Query string `json:"query"`
	// Unreadable names chats of this page that could not be read; see ListResponse.
	Unreadable []string `json:"unreadable,omitempty"`
}

// Search finds chats (or, in entries mode, entries) in scope matching a query in the search
// language, across titles, descriptions, summaries, tags and transcript bodies, with every list
// filter available. Chats are ranked by relevance blended with recency (or by recency alone with
// sort: recent) and carry up to three highlighted snippets that point at their entry seq.
func (s *Service) Search(ctx context.Context, req *Request) (*SearchResponse, error) {
	res, err := Resolve(ctx, req.Scope)
	if err != nil {
		return nil, err
	}
	mode := req.Mode
	if mode == "" {
		mode = ModeChats
	}
	if mode != ModeChats && mode != ModeEntries {
		return nil, annals.Errorf(annals.EINVALID, "unknown search mode %q (want chats or entries)", mode)
	}
	if strings.TrimSpace(req.Query) == "" {
		return nil, annals.Errorf(annals.EINVALID, "search needs a query (words, \"phrases\", prefix*, -exclusions, OR, or filters such as tool:Bash; see docs/QUERY.md)")
	}
	q, err := query.Parse(req.Query)
	if err != nil {
		return nil, err
	}
	for _, in := range req.In {
		if !containsString(annals.SearchFields, in) {
			return nil, annals.Errorf(annals.EINVALID, "unknown search field %q in \"in\" (want any of: %s)", in, strings.Join(annals.SearchFields, ", "))
		}
	}
	if len(req.MarkOpen) > maxMarkBytes || len(req.MarkClose) > maxMarkBytes {
		return nil, annals.Errorf(annals.EINVALID, "mark_open and mark_close are at most %d bytes", maxMarkBytes)
	}
	chat, err := listFilter(req, res.Owner)
	if err != nil {
		return nil, err
	}
	chat.Agents = q.Filters.Agents
	chat.Tags = q.Filters.Tags
	for k, v := range q.Filters.Attrs {
		if chat.Attributes == nil {
			chat.Attributes = map[string]annals.AttrMatch{}
		}
		if _, dup := chat.Attributes[k]; dup {
			return nil, annals.Errorf(annals.EINVALID, "attribute %q is filtered both in the query and in attributes; give it once", k)
		}
		chat.Attributes[k] = annals.AttrMatch{Value: v}
	}
	f := annals.SearchFilter{
		Chat:      chat,
		Text:      query.ToTextExpr(q.Text),
		Fields:    q.Fields,
		Roles:     q.Filters.Roles,
		Tools:     q.Filters.Tools,
		After:     q.Filters.After,
		Before:    q.Filters.Before,
		Sort:      req.Sort,
		Limit:     chat.Limit,
		Offset:    chat.Offset,
		Snippets:  3,
		MarkOpen:  sentinelOpen,
		MarkClose: sentinelClose,
	}
	if len(req.In) > 0 {
		f.Fields = req.In
	}
	out := &SearchResponse{Limit: f.Limit, Offset: f.Offset, Scope: string(res.Scope), Mode: mode, Query: q.String()}
	var n int
	if mode == ModeEntries {
		out.Entries, out.Total, err = s.store.SearchEntries(ctx, f)
		n = len(out.Entries)
	} else {
		out.Chats, out.Total, err = s.store.SearchChats(ctx, f)
		n = len(out.Chats)
	}
	if skipped, partial := annals.Unreadable(err); partial {
		s.log.Warn("search: chats that cannot be read were left out of the page", "chats", skipped, "err", annals.ErrorDetail(err))
		out.Unreadable, err = skipped, nil
		n += len(skipped)
	}
	if err != nil {
		return nil, err
	}
	m := newMarks(req.MarkOpen, req.MarkClose)
	for i := range out.Chats {
		for j := range out.Chats[i].Snippets {
			out.Chats[i].Snippets[j].Text = m.render(out.Chats[i].Snippets[j].Text)
		}
	}
	for i := range out.Entries {
		out.Entries[i].Snippet = m.render(out.Entries[i].Snippet)
	}
	// Relevance scores come from full-text statistics over the whole index, every tenant's rows
	// included, so an absolute score would tell a member how common a word is in other tenants'
	// chats. Only a global (admin) search sees scores; everyone else gets the order alone.
	if res.Scope != annals.ScopeGlobal {
		for i := range out.Chats {
			out.Chats[i].Score = 0
		}
		for i := range out.Entries {
			out.Entries[i].Score = 0
		}
	}
	if next := f.Offset + n; next < out.Total && n > 0 {
		out.NextCursor = encodeCursor(cursor{Offset: next})
	}
	return out, nil
}
