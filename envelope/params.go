package envelope

import (
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// An envelope's fields as the typed parameters of annals.HistoryService, and back.

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
	if err := q.ParseBounds(r.Status, r.From, r.To); err != nil {
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
		Scope: annals.Scope(r.Scope), Query: r.Query, In: r.In, Sort: r.Sort, Rank: r.Rank,
		Mode: annals.SearchMode(r.Mode), Filter: q, Page: r.page(), Explain: r.Explain,
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

// UsageParams parses the envelope of usage (a date alone in from and to is a day in zone).
func (r *Request) UsageParams() (annals.UsageParams, error) {
	p, err := history.UsageRange(r.Zone, "from", r.From, "to", r.To)
	p.Scope, p.Top = annals.Scope(r.Scope), r.Top
	return p, err
}

// The other way, for clients that speak the envelope (httpapi.Client): typed parameters as
// the envelope that means them.

// ListRequest is the envelope of FindChats.
func ListRequest(p annals.ListParams) *Request {
	r := &Request{Op: history.OpList, Scope: string(p.Scope)}
	r.setQuery(p.Filter)
	r.setPage(p.Page)
	return r
}

// SearchRequest is the envelope of SearchChats, asking for the typed marks so that the answer
// is what SearchChats itself returns.
func SearchRequest(p annals.SearchParams) *Request {
	r := &Request{Op: history.OpSearch, Scope: string(p.Scope), Query: p.Query, In: p.In, Sort: p.Sort, Rank: p.Rank, Mode: string(p.Mode),
		MarkOpen: annals.SnippetMarkOpen, MarkClose: annals.SnippetMarkClose, Explain: p.Explain}
	r.setQuery(p.Filter)
	r.setPage(p.Page)
	return r
}

// RelatedRequest is the envelope of FindRelated.
func RelatedRequest(p annals.RelatedParams) *Request {
	return &Request{Op: history.OpRelated, Scope: string(p.Scope), SessionID: p.ChatID, Query: p.Query, Limit: p.Limit, IncludeArchived: p.IncludeArchived}
}

// GetRequest is the envelope of GetChat.
func GetRequest(p annals.GetParams) *Request {
	return &Request{Op: history.OpGet, Scope: string(p.Chat.Scope), SessionID: p.Chat.ID, Format: string(p.Format), Limit: p.Limit,
		AfterSeq: p.AfterSeq, Cursor: p.Cursor, AroundSeq: p.AroundSeq, Context: p.Context}
}

// UsageRequest is the envelope of Usage.
func UsageRequest(p annals.UsageParams) *Request {
	r := &Request{Op: history.OpUsage, Scope: string(p.Scope), Zone: p.Zone, Top: p.Top}
	if p.From != nil {
		r.From = p.From.UTC().Format(time.RFC3339Nano)
	}
	if p.To != nil {
		r.To = p.To.UTC().Format(time.RFC3339Nano)
	}
	return r
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
