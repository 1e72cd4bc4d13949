package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
)

// Find in chat: GET /chats/{id}/find?q=QUERY answers the positions of the open chat's entries
// that match QUERY (the search language of docs/QUERY.md, the whole query within one entry),
// in transcript order, as JSON; the page's script moves between them and loads the page around
// a match that is not on the page yet. It is the history's entry search, narrowed to the chat.
const (
	// findPage is how many matches one search call returns (the history's most).
	findPage = annals.MaxListLimit
	// findMost is how many matches a find returns: beyond it, the newest findMost, said so.
	findMost = 2000
)

// findAnswer is what the page's script receives. Seqs are numbers and Error is text the script
// shows with textContent: nothing in it becomes markup.
type findAnswer struct {
	Seqs []int64 `json:"seqs"`
	// Total counts every match; more than len(Seqs) when the find stopped at findMost.
	Total int `json:"total"`
	// Error is the history's refusal of the query (a syntax error), shown beside the box.
	Error string `json:"error,omitempty"`
}

func (h *Handler) find(w http.ResponseWriter, r *http.Request) error {
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	id, q := r.PathValue("id"), r.URL.Query().Get("q")
	ans := findAnswer{Seqs: []int64{}}
	if strings.TrimSpace(q) != "" {
		ans, err = h.findSeqs(r, c, id, q)
		if annals.ErrorCode(err) == annals.EINVALID {
			ans, err = findAnswer{Seqs: []int64{}, Error: annals.ErrorMessage(err)}, nil
		}
		if err != nil {
			return err
		}
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(ans)
}

// findSeqs pages through the chat's matching entries, newest first (no ranking to pay for),
// up to findMost. The search is narrowed to exactly this chat (ChatQuery.ChatID), so a chat
// whose id merely starts with this one's adds nothing to the matches or the count.
func (h *Handler) findSeqs(r *http.Request, c annals.HistoryService, id, q string) (findAnswer, error) {
	// The chat itself first: a chat outside the caller's scope is the usual not-found, and the
	// id the reader gave (a prefix, the source tool's id) becomes the chat's own.
	v, err := c.GetChat(r.Context(), annals.GetParams{Chat: annals.ChatSelector{ID: id}, Limit: 1})
	if err != nil {
		return findAnswer{}, err
	}
	ans := findAnswer{Seqs: []int64{}}
	for cursor := ""; len(ans.Seqs) < findMost; {
		res, err := c.SearchChats(r.Context(), annals.SearchParams{Query: q, Mode: annals.SearchEntriesMode, Sort: annals.SortRecent,
			Filter: annals.ChatQuery{ChatID: v.Chat.ID, IncludeArchived: true}, Page: annals.PageParams{Limit: findPage, Cursor: cursor}})
		if err != nil {
			return findAnswer{}, err
		}
		for _, hit := range res.Entries {
			ans.Seqs = append(ans.Seqs, hit.Entry.Seq)
		}
		ans.Total = res.Total
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	slices.Sort(ans.Seqs)
	ans.Seqs = slices.Compact(ans.Seqs)
	if len(ans.Seqs) > findMost {
		ans.Seqs = ans.Seqs[len(ans.Seqs)-findMost:]
	}
	ans.Total = max(ans.Total, len(ans.Seqs))
	return ans, nil
}
