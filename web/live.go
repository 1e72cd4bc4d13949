package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// Live updates of an open chat: GET /chats/{id}/events is a server-sent event stream. It reads
// the chat's entries after the last one it sent, every livePoll, and sends each new batch as
// the HTML the page appends. It reads the store, not a signal inside this process, so entries
// captured by any writer show up: this server's API, annals import --watch in another process,
// another server on the same PostgreSQL database.
const (
	livePoll      = 250 * time.Millisecond
	liveKeepAlive = 15 * time.Second
	liveBatch     = 200
)

func (h *Handler) events(w http.ResponseWriter, r *http.Request) error {
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	after, err := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	if err != nil || after < 0 {
		return annals.Errorf(annals.EINVALID, "after=%q is not an entry's position (a whole number from 0)", r.URL.Query().Get("after"))
	}
	ctx := r.Context()
	// The run of the entry the page ends on, so a new run's boundary is drawn and the current
	// one's is not drawn again.
	prevRun := ""
	if after > 0 {
		v, err := c.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: r.PathValue("id")}, AfterSeq: after - 1, Limit: 1})
		if err != nil {
			return err
		}
		if len(v.Entries) > 0 {
			prevRun = v.Entries[0].RunID
		}
	}
	// The first read answers a chat outside the caller's scope with the usual not-found, before
	// the stream starts.
	tr, err := h.transcript(r, c, r.PathValue("id"), after, liveBatch, prevRun)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // the stream lives as long as the page
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	id := tr.chat.ID
	tick := time.NewTicker(livePoll)
	defer tick.Stop()
	quiet := time.Now()
	for {
		if len(tr.items) > 0 {
			var buf bytes.Buffer
			if err := h.pages["chat"].ExecuteTemplate(&buf, "entries", chatPage{Chat: tr.chat, Items: tr.items}); err != nil {
				return annals.Internal("render live entries", err)
			}
			last := tr.items[len(tr.items)-1]
			after = last.Seq
			if last.RunID != "" {
				prevRun = last.RunID
			}
			if _, err := fmt.Fprintf(w, "event: entries\nid: %d\n%s\n", after, sseData(buf.String())); err != nil {
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
		if tr, err = h.transcript(r, c, id, after, liveBatch, prevRun); err != nil {
			// The chat was deleted, or the caller's key revoked: the page keeps what it has.
			fmt.Fprintf(w, "event: gone\ndata: %s\n\n", strings.ReplaceAll(annals.ErrorMessage(err), "\n", " "))
			_ = rc.Flush()
			return nil
		}
	}
}

// sseData is s as the data lines of one event.
func sseData(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteString("\n")
	}
	return b.String()
}
