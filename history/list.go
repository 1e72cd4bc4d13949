package history

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/annals-dev/annals"
)

// FindChats returns chats in scope, pinned first, then most recent activity; see
// annals.HistoryService.
func (s *Service) FindChats(ctx context.Context, p annals.ListParams) (*annals.ChatPage, error) {
	res, err := Resolve(ctx, string(p.Scope))
	if err != nil {
		return nil, err
	}
	f, err := chatFilter(p.Filter, p.Page, res.Owner)
	if err != nil {
		return nil, err
	}
	return s.page(ctx, f, res)
}

func (s *Service) page(ctx context.Context, f annals.ChatFilter, res *Resolved) (*annals.ChatPage, error) {
	chats, total, err := s.store.FindChats(ctx, f)
	skipped, partial := annals.Unreadable(err)
	if partial {
		s.log.Warn("list: chats that cannot be read were left out of the page", "chats", skipped, "err", annals.ErrorDetail(err))
	} else if err != nil {
		return nil, err
	}
	out := &annals.ChatPage{Chats: chats, Total: total, Limit: f.Limit, Offset: f.Offset, Scope: string(res.Scope), Unreadable: skipped}
	if n := len(chats) + len(skipped); f.Offset+n < total && n > 0 {
		out.NextCursor = encodeCursor(cursor{Offset: f.Offset + n})
	}
	return out, nil
}

// chatFilter turns typed list filters and paging into a store filter, refusing bad values.
func chatFilter(q annals.ChatQuery, pg annals.PageParams, owner annals.Owner) (annals.ChatFilter, error) {
	f := annals.ChatFilter{
		Owner:           owner,
		PinnedOnly:      q.PinnedOnly,
		IncludeArchived: q.IncludeArchived,
		Limit:           annals.EffectiveLimit(pg.Limit, annals.DefaultListLimit, annals.MaxListLimit),
		Offset:          pg.Offset,
		Status:          q.Status,
		From:            q.From,
		To:              q.To,
		IDPrefix:        q.IDPrefix,
	}
	if pg.Limit < 0 {
		return f, annals.Errorf(annals.EINVALID, "limit must not be negative (default %d, at most %d)", annals.DefaultListLimit, annals.MaxListLimit)
	}
	if pg.Offset < 0 {
		return f, annals.Errorf(annals.EINVALID, "offset must not be negative")
	}
	if pg.Cursor != "" {
		if pg.Offset != 0 {
			return f, annals.Errorf(annals.EINVALID, "give either offset or cursor, not both")
		}
		c, err := decodeCursor(pg.Cursor)
		if err != nil {
			return f, err
		}
		f.Offset = c.Offset
	}
	if q.Status != nil {
		if _, err := annals.ParseRunStatus(string(*q.Status)); err != nil {
			return f, err
		}
	}
	// A time outside the stored range would wrap into a nonsense bound that matches everything.
	if err := annals.ValidateBoundPtr("from", q.From); err != nil {
		return f, err
	}
	if err := annals.ValidateBoundPtr("to", q.To); err != nil {
		return f, err
	}
	if q.Tag != "" {
		f.Tag = &q.Tag
	}
	if q.IDPrefix != "" {
		if err := annals.ValidateID("id_prefix", q.IDPrefix); err != nil {
			return f, err
		}
	}
	if q.ChatID != "" {
		if err := annals.ValidateID("chat_id", q.ChatID); err != nil {
			return f, err
		}
		f.ID = &q.ChatID
	}
	if q.TitleContains != "" {
		f.TitleContains = &q.TitleContains
	}
	if q.Agent != "" {
		f.Agent = &q.Agent
	}
	if len(q.Attributes) > 0 {
		f.Attributes = make(map[string]annals.AttrMatch, len(q.Attributes))
		for k, v := range q.Attributes {
			f.Attributes[k] = v
		}
	}
	return f, nil
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
