package web

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/annals-dev/annals"
)

// listPoll is how often the list's stream looks for new and changed chats.
const listPoll = time.Second

// listEvents is the chat list's live stream (GET /events with the list's filters and since,
// the newest last activity the page shows): every listPoll it sends the rows of the chats
// whose last activity is at or after since, which the page puts on top in place of their old
// rows.
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
	ctx := r.Context()
	read := func() ([]*annals.Chat, error) {
		f := q
		from := since.Add(time.Nanosecond)
		if f.From == nil || f.From.Before(from) {
			f.From = &from
		}
		res, err := c.FindChats(ctx, annals.ListParams{Filter: f, Page: annals.PageParams{Limit: listPageSize}})
		if err != nil {
			return nil, err
		}
		return res.Chats, nil
	}
	chats, err := read()
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	tick := time.NewTicker(listPoll)
	defer tick.Stop()
	quiet := time.Now()
	for {
		if len(chats) > 0 {
			for _, ch := range chats {
				if ch.LastActivity.After(since) {
					since = ch.LastActivity
				}
			}
			var buf bytes.Buffer
			if err := h.pages["list"].ExecuteTemplate(&buf, "rows", listPage{Chats: chats}); err != nil {
				return annals.Internal("render live rows", err)
			}
			if _, err := fmt.Fprintf(w, "event: rows\n%s\n", sseData(buf.String())); err != nil {
				return nil
			}
			_ = rc.Flush()
			quiet = time.Now()
		} else if time.Since(quiet) > liveKeepAlive {
			if _, err := fmt.Fprint(w, ": still here\n\n"); err != nil {
				return nil
			}
			_ = rc.Flush()
			quiet = time.Now()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if chats, err = read(); err != nil {
			return nil
		}
	}
}
