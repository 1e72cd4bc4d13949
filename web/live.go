package web

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// Live updates of an open chat: GET /chats/{id}/events is a server-sent event stream (sse.go)
// that reads the chat's entries after the last one it sent when the history's change feed says
// the chat changed (a write through this process), and every livePoll besides (a write by
// another process or server), and sends each new batch as the HTML the page appends.
const (
	livePoll  = 500 * time.Millisecond
	liveBatch = 200
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
	id := r.PathValue("id")
	// Watched before the first read, so a write between the two is not missed.
	watch, err := h.watch(r, c, id)
	if err != nil {
		return err
	}
	defer watch.Close()
	// The run of the entry the page ends on, so a new run's boundary is drawn and the current
	// one's is not drawn again.
	prevRun := ""
	if after > 0 {
		v, err := c.GetChat(r.Context(), annals.GetParams{Chat: annals.ChatSelector{ID: id}, AfterSeq: after - 1, Limit: 1})
		if err != nil {
			return err
		}
		if len(v.Entries) > 0 {
			prevRun = v.Entries[0].RunID
		}
	}
	read := func() (*sseEvent, error) {
		tr, err := h.transcript(r, c, id, after, liveBatch, prevRun)
		if err != nil || len(tr.items) == 0 {
			return nil, err
		}
		var buf bytes.Buffer
		if err := h.pages["chat"].ExecuteTemplate(&buf, "entries", chatPage{Chat: tr.chat, Items: tr.items}); err != nil {
			return nil, annals.Internal("render live entries", err)
		}
		id = tr.chat.ID
		last := tr.items[len(tr.items)-1]
		after = lastSeq(last)
		if last.RunID != "" {
			prevRun = last.RunID
		}
		return &sseEvent{name: "entries", id: strconv.FormatInt(after, 10), data: buf.String()}, nil
	}
	first, err := read()
	if err != nil {
		return err
	}
	return stream(w, r, h.poll(livePoll), watch.Wake(), first, read)
}

// lastSeq is the position of the last entry an item shows (a group's last call).
func lastSeq(it item) int64 {
	if it.Group != nil {
		return it.Group.Calls[len(it.Group.Calls)-1].Seq
	}
	return it.Seq
}

// watch opens the caller's watch on the change feed (chatID "" any chat in scope). A feed that
// holds all the watches it may answers unavailable: that page is followed by polling alone.
func (h *Handler) watch(r *http.Request, c *history.Caller, chatID string) (*history.Watch, error) {
	w, err := c.Watch(r.Context(), chatID)
	if annals.ErrorCode(err) == annals.EUNAVAILABLE {
		h.log.Warn("web: live page followed by polling", "err", annals.ErrorMessage(err))
		return nil, nil
	}
	return w, err
}

// poll is a live stream's period for writes the change feed does not see: Config.LivePoll
// when set, else def.
func (h *Handler) poll(def time.Duration) time.Duration {
	if h.livePoll > 0 {
		return h.livePoll
	}
	return def
}
