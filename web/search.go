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
	// Rank is how chats are ranked as the person chose it: annals.RankLexical, RankHybrid,
	// RankSemantic, or "" (no choice: the history's default, docs/QUERY.md).
	Rank  string
	Ranks []rankChoice
	Hits  []annals.ChatHit
	Total int
	// AtLeast: Total is a lower bound (the search stopped after its page).
	AtLeast bool
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
	page := searchPage{Query: q.Get("q"), Rank: q.Get("rank"), Ranks: rankChoices}
	if strings.TrimSpace(page.Query) != "" {
		res, err := c.SearchChats(r.Context(), annals.SearchParams{Query: page.Query, Mode: annals.SearchChatsMode, Rank: page.Rank,
			Page: annals.PageParams{Limit: searchPageSize, Cursor: q.Get("cursor")}})
		switch {
		case err == nil:
			page.Hits, page.Total, page.AtLeast, page.Partial = res.Chats, res.Total, res.TotalIsLowerBound, res.PartialReason
			if res.NextCursor != "" {
				next := url.Values{"q": {page.Query}, "cursor": {res.NextCursor}}
				if page.Rank != "" {
					next.Set("rank", page.Rank)
				}
				page.Next = "/search?" + next.Encode()
			}
		case annals.ErrorCode(err) == annals.EINVALID, annals.ErrorCode(err) == annals.EUNAVAILABLE && page.Rank != "" && page.Rank != annals.RankLexical:
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

// rankChoice is one ranking the search form offers.
type rankChoice struct{ Value, Label string }

// rankChoices are the rankings of docs/QUERY.md: the history's default (no choice sent), by the
// words (full text), by meaning (the configured embedder), or both fused.
var rankChoices = []rankChoice{
	{"", "default"},
	{annals.RankLexical, "words"},
	{annals.RankHybrid, "words and meaning"},
	{annals.RankSemantic, "meaning"},
}
