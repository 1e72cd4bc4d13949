package web

import (
	"bytes"
	"net/http"
	"time"

	"github.com/annals-dev/annals"
)

// listPoll is how often the list's stream looks for new and changed chats written elsewhere
// (another process or server); a write through this process wakes it at once.
const listPoll = time.Second

// listEvents is the chat list's live stream (GET /events with the list's filters and since,
// the newest last activity the page shows; sse.go): when a chat in the caller's scope changed,
// and every listPoll besides, it sends the rows of the chats whose last activity is after
// since, which the page puts on top in place of their old rows.
func (h *Handler) listEvents(w http.ResponseWriter, r *http.Request) error {
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	form := readListForm(r.URL.Query())
	q, err := form.query()
	if err != nil {
		return err
	}
	since, err := time.Parse(time.RFC3339Nano, r.URL.Query().Get("since"))
	if err != nil {
		return annals.Errorf(annals.EINVALID, "since=%q is not a time (RFC 3339)", r.URL.Query().Get("since"))
	}
	watch, err := h.watch(r, c, "")
	if err != nil {
		return err
	}
	defer watch.Close()
	read := func() (*sseEvent, error) {
		f := q
		from := since.Add(time.Nanosecond)
		if f.From == nil || f.From.Before(from) {
			f.From = &from
		}
		res, err := c.FindChats(r.Context(), annals.ListParams{Filter: f, Page: annals.PageParams{Limit: listPageSize}})
		if err != nil || len(res.Chats) == 0 {
			return nil, err
		}
		for _, ch := range res.Chats {
			if ch.LastActivity.After(since) {
				since = ch.LastActivity
			}
		}
		// The rows carry the same costs as the page they replace rows of: recorded plus estimated.
		est, err := chatEstimates(r.Context(), c, res.Chats)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := h.pages["list"].ExecuteTemplate(&buf, "rows", listPage{Chats: res.Chats, Estimates: est}); err != nil {
			return nil, annals.Internal("render live rows", err)
		}
		return &sseEvent{name: "rows", data: buf.String()}, nil
	}
	first, err := read()
	if err != nil {
		return err
	}
	return stream(w, r, h.poll(listPoll), watch.Wake(), first, read)
}
