package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// The live streams (an open chat's new entries, the list's new and changed chats) are
// server-sent event streams that read the store when the history's change feed wakes them (a
// write through this process: its API, its import --watch) and on a period besides, so what
// any other writer captured shows up too: annals import --watch in another process, another
// server on the same PostgreSQL database.

// liveKeepAlive is how long a stream stays quiet before it sends a comment, so proxies and the
// browser keep it open.
const liveKeepAlive = 15 * time.Second

// sseEvent is one event of a stream: its name, id ("" none) and data (the HTML the page inserts).
type sseEvent struct {
	name, id, data string
}

// stream serves a stream: it sends first, then on each wake-up and every poll calls read and
// sends what it returns (nil: nothing new), until the page goes away or the server stops.
// first was read before the stream started, so a chat outside the caller's scope got the
// usual not-found. A read that
// fails (the chat was deleted, the caller's key revoked) ends the stream with a "gone" event,
// and the page keeps what it has.
func stream(w http.ResponseWriter, r *http.Request, poll time.Duration, wake <-chan struct{}, first *sseEvent, read func() (*sseEvent, error)) error {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // the stream lives as long as the page
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	quiet := time.Now()
	ev := first
	for {
		var err error
		switch {
		case ev != nil:
			_, err = fmt.Fprint(w, ev.encode())
			quiet = time.Now()
		case time.Since(quiet) > liveKeepAlive:
			_, err = fmt.Fprint(w, ": still here\n\n")
			quiet = time.Now()
		}
		if err != nil {
			return nil // the page went away
		}
		_ = rc.Flush()
		select {
		case <-r.Context().Done():
			return nil
		case <-tick.C:
		case <-wake:
		}
		if ev, err = read(); err != nil {
			fmt.Fprint(w, (&sseEvent{name: "gone", data: annals.ErrorMessage(err)}).encode())
			_ = rc.Flush()
			return nil
		}
	}
}

// encode is the event on the wire: each line of the data as a data line.
func (e *sseEvent) encode() string {
	var b strings.Builder
	b.WriteString("event: " + e.name + "\n")
	if e.id != "" {
		b.WriteString("id: " + e.id + "\n")
	}
	for _, line := range strings.Split(e.data, "\n") {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
	return b.String()
}
