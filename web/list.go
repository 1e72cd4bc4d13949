package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/annals-dev/annals"
)

// listPageSize is how many chats a page of the list shows; the next page is appended to it.
const listPageSize = 50

// listForm is the list's filters as the form sends them.
type listForm struct {
	Agent, Tool, Folder, Tag, Status, From, To string
	Archived                                   bool
}

func readListForm(q url.Values) listForm {
	return listForm{
		Agent: q.Get("agent"), Tool: q.Get("tool"), Folder: q.Get("folder"), Tag: q.Get("tag"),
		Status: q.Get("status"), From: q.Get("from"), To: q.Get("to"), Archived: q.Get("archived") == "on",
	}
}

// query is the form as the history's filter: the source tool is the chat's source attribute,
// the folder a part of its cwd attribute.
func (f listForm) query() (annals.ChatQuery, error) {
	q := annals.ChatQuery{Agent: f.Agent, Tag: f.Tag, IncludeArchived: f.Archived}
	if f.Tool != "" || f.Folder != "" {
		q.Attributes = map[string]annals.AttrMatch{}
		if f.Tool != "" {
			q.Attributes["source"] = annals.AttrMatch{Value: f.Tool}
		}
		if f.Folder != "" {
			q.Attributes["cwd"] = annals.AttrMatch{Value: f.Folder, Contains: true}
		}
	}
	err := q.ParseBounds(f.Status, f.From, f.To)
	return q, err
}

// values is the form as query parameters (the next page's link keeps the filters).
func (f listForm) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"agent": f.Agent, "tool": f.Tool, "folder": f.Folder, "tag": f.Tag, "status": f.Status, "from": f.From, "to": f.To} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Archived {
		v.Set("archived", "on")
	}
	return v
}

type listPage struct {
	Form     listForm
	Statuses []annals.RunStatus
	Chats    []*annals.Chat
	// Estimates is the estimated part of each chat's cost, by id (cost.go).
	Estimates map[string]float64
	Total     int
	// Next is the URL of the next page of rows ("" on the last).
	Next string
	// Error is a filter the history refused, shown beside the form.
	Error string
	// Live is the list's live stream ("" when the list cannot be followed).
	Live string
}

// list is the chat list: pinned first, then by last activity, filtered, one page at a time; a
// request for the next page (X-Fragment) gets only its rows.
func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	form := readListForm(r.URL.Query())
	page := listPage{Form: form, Statuses: annals.RunStatuses}
	q, err := form.query()
	if err == nil {
		var res *annals.ChatPage
		res, err = c.FindChats(r.Context(), annals.ListParams{Filter: q, Page: annals.PageParams{Limit: listPageSize, Cursor: r.URL.Query().Get("cursor")}})
		if err == nil {
			page.Chats, page.Total = res.Chats, res.Total
			if page.Estimates, err = chatEstimates(r.Context(), c, res.Chats); err != nil {
				return err
			}
			if res.NextCursor != "" {
				v := form.values()
				v.Set("cursor", res.NextCursor)
				page.Next = "/?" + v.Encode()
			}
		}
	}
	if err != nil {
		if annals.ErrorCode(err) != annals.EINVALID {
			return err
		}
		page.Error = annals.ErrorMessage(err)
	}
	if page.Error == "" {
		since := time.Unix(0, 0).UTC()
		for _, c := range page.Chats {
			if c.LastActivity.After(since) {
				since = c.LastActivity
			}
		}
		v := form.values()
		v.Set("since", since.Format(time.RFC3339Nano))
		page.Live = "/events?" + v.Encode()
	}
	if r.Header.Get("X-Fragment") != "" {
		h.fragment(w, "list", "rows", page)
		return nil
	}
	h.render(w, r, http.StatusOK, "list", "Chats", page)
	return nil
}
