package history

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/annals-dev/annals"
)

// ListResponse is the answer of list and search.
type ListResponse struct {
	Chats []*annals.Chat `json:"chats"`
	// Total counts every match, ignoring paging.
	Total int `json:"total"`
	// Limit is the effective limit after the default and the cap were applied.
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
	// NextCursor, when set, fetches the next page.
	NextCursor string `json:"next_cursor,omitempty"`
	Scope      string `json:"scope"`
	// Unreadable names chats of this page that could not be read (a value an older version
	// stored, a hand-edited database): they are left out, the rest of the page is served, and
	// the cause is logged.
	Unreadable []string `json:"unreadable,omitempty"`
}

// List returns chats in scope, pinned first, then most recent activity.
func (s *Service) List(ctx context.Context, req *Request) (*ListResponse, error) {
	res, err := Resolve(ctx, req.Scope)
	if err != nil {
		return nil, err
	}
	f, err := listFilter(req, res.Owner)
	if err != nil {
		return nil, err
	}
	return s.page(ctx, f, res)
}

func (s *Service) page(ctx context.Context, f annals.ChatFilter, res *Resolved) (*ListResponse, error) {
	chats, total, err := s.store.FindChats(ctx, f)
	skipped, partial := annals.Unreadable(err)
	if partial {
		s.log.Warn("list: chats that cannot be read were left out of the page", "chats", skipped, "err", annals.ErrorDetail(err))
	} else if err != nil {
		return nil, err
	}
	out := &ListResponse{Chats: chats, Total: total, Limit: f.Limit, Offset: f.Offset, Scope: string(res.Scope), Unreadable: skipped}
	if n := len(chats) + len(skipped); f.Offset+n < total && n > 0 {
		next := f.Offset + n
		out.NextCursor = encodeCursor(cursor{Offset: next})
	}
	return out, nil
}

// listFilter turns the request's list filters into a store filter, refusing unknown values.
func listFilter(req *Request, owner annals.Owner) (annals.ChatFilter, error) {
	f := annals.ChatFilter{
		Owner:           owner,
		PinnedOnly:      req.PinnedOnly,
		IncludeArchived: req.IncludeArchived,
		Limit:           annals.EffectiveLimit(req.Limit, annals.DefaultListLimit, annals.MaxListLimit),
		Offset:          req.Offset,
	}
	if req.Limit < 0 {
		return f, annals.Errorf(annals.EINVALID, "limit must not be negative (default %d, at most %d)", annals.DefaultListLimit, annals.MaxListLimit)
	}
	if req.Offset < 0 {
		return f, annals.Errorf(annals.EINVALID, "offset must not be negative")
	}
	if req.Cursor != "" {
		if req.Offset != 0 {
			return f, annals.Errorf(annals.EINVALID, "give either offset or cursor, not both")
		}
		c, err := decodeCursor(req.Cursor)
		if err != nil {
			return f, err
		}
		f.Offset = c.Offset
	}
	if req.Status != "" {
		st, err := annals.ParseRunStatus(req.Status)
		if err != nil {
			return f, err
		}
		f.Status = &st
	}
	var err error
	if f.From, err = parseTime("from", req.From); err != nil {
		return f, err
	}
	if f.To, err = parseTime("to", req.To); err != nil {
		return f, err
	}
	if req.Tag != "" {
		f.Tag = &req.Tag
	}
	if req.IDPrefix != "" {
		if err := annals.ValidateID("id_prefix", req.IDPrefix); err != nil {
			return f, err
		}
		f.IDPrefix = req.IDPrefix
	}
	if req.TitleContains != "" {
		f.TitleContains = &req.TitleContains
	}
	if req.Agent != "" {
		f.Agent = &req.Agent
	}
	if len(req.Attributes) > 0 {
		f.Attributes = make(map[string]annals.AttrMatch, len(req.Attributes))
		for k, v := range req.Attributes {
			f.Attributes[k] = annals.AttrMatch{Value: v.Value, Contains: v.Contains}
		}
	}
	return f, nil
}

func parseTime(field, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, annals.Errorf(annals.EINVALID, "%s %q is not an RFC3339 time (for example 2026-01-02T15:04:05Z)", field, v)
	}
	// A time outside the stored range would wrap into a nonsense bound that matches everything.
	if err := annals.ValidateTime(field, t); err != nil {
		return nil, err
	}
	return &t, nil
}

// cursor is the opaque paging token: today an offset, versioned so its shape can change.
type cursor struct {
	V      int   `json:"v"`
	Offset int   `json:"o,omitempty"`
	Seq    int64 `json:"s,omitempty"`
}

func encodeCursor(c cursor) string {
	c.V = 1
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	// Exactly what encodeCursor writes, or nothing: a hand-edited cursor that still happens to
	// decode is refused too.
	if err != nil || json.Unmarshal(b, &c) != nil || c.V != 1 || c.Offset < 0 || c.Seq < 0 || encodeCursor(c) != s {
		return cursor{}, annals.Errorf(annals.EINVALID, "cursor %.40q is not one this server issued (pass back next_cursor unchanged)", s)
	}
	return c, nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
