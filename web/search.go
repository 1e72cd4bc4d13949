package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/annals-dev/annals"
)

// searchPageSize is how many chats a search page shows.
const searchPageSize = 20

type searchPage struct {
	Query string
	Hits  []annals.ChatHit
	Total int
	// Error is the history's refusal of the query (a syntax error of docs/QUERY.md), shown
	// under the box.
	Error   string
	Partial string
	Next    string
}

// search runs the query language of docs/QUERY.md over the caller's chats; each snippet links
// to its entry. The page's script asks for the results alone (X-Fragment) as the person types.
func (h *Handler) search(w http.ResponseWriter, r *http.Request) error {
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	page := searchPage{Query: q.Get("q")}
	if strings.TrimSpace(page.Query) != "" {
		res, err := c.SearchChats(r.Context(), annals.SearchParams{Query: page.Query, Mode: annals.SearchChatsMode,
			Page: annals.PageParams{Limit: searchPageSize, Cursor: q.Get("cursor")}})
		switch {
		case err == nil:
			page.Hits, page.Total, page.Partial = res.Chats, res.Total, res.PartialReason
			if res.NextCursor != "" {
				page.Next = "/search?" + url.Values{"q": {page.Query}, "cursor": {res.NextCursor}}.Encode()
			}
		case annals.ErrorCode(err) == annals.EINVALID:
			page.Error = annals.ErrorMessage(err)
		default:
			return err
		}
	}
	if r.Header.Get("X-Fragment") != "" {
		part := "results"
		if q.Get("cursor") != "" {
			part = "hits"
		}
		h.fragment(w, "search", part, page)
		return nil
	}
	title := "Search"
	if page.Query != "" {
		title = page.Query + " · Search"
	}
	h.render(w, r, http.StatusOK, "search", title, page)
	return nil
}
