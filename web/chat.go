package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/annals-dev/annals"
)

// Transcript paging: the chat page shows one page of entries and its script asks for the next
// (or, above a permalink's window, the previous) page as the reader nears it, so a chat of any
// length opens as fast as a short one.
const (
	entryPageSize = 100
	// windowBefore is how many entries a permalink's page shows above the entry.
	windowBefore = 40
)

type chatPage struct {
	Chat *annals.Chat
	// Head is the header with the curation controls (the whole page only).
	Head headData
	// Items are the page's entries, ready to render.
	Items []item
	// Earlier and Later are the URLs of the pages above and below ("" when there is none).
	Earlier, Later string
	// At is the permalink's entry (0: none).
	At int64
}

// chat is a chat's page: its header and the first page of its transcript, or, with ?at=SEQ,
// the page around that entry.
func (h *Handler) chat(w http.ResponseWriter, r *http.Request) error {
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	var at int64
	if s := r.URL.Query().Get("at"); s != "" {
		if at, err = strconv.ParseInt(s, 10, 64); err != nil || at < 1 {
			return annals.Errorf(annals.EINVALID, "at=%q is not an entry's position (a whole number from 1)", s)
		}
	}
	after := max(at-1-windowBefore, 0)
	tr, err := h.page(r, c, id, after, entryPageSize, "", spill{forward: true, back: true})
	if err != nil {
		return err
	}
	page := chatPage{Chat: tr.chat, Head: h.head(r, c, tr.chat), Items: tr.items, Later: tr.later, Earlier: tr.earlier, At: at}
	h.render(w, r, http.StatusOK, "chat", chatTitle(tr.chat), page)
	return nil
}

// entries is a page of a transcript for the chat page's script: ?after=SEQ (the page below),
// ?before=SEQ (the page above) or ?at=SEQ (the page around an entry), and ?run= the run of the entry just above, so a run's
// boundary is drawn once.
func (h *Handler) entries(w http.ResponseWriter, r *http.Request) error {
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	after, limit := int64(0), int64(entryPageSize)
	// A page below ends on a group's end; a page above starts on a group's start (pagegroup.go).
	sp := spill{forward: true}
	switch {
	case q.Get("at") != "":
		// The page around an entry, as the chat page with ?at= shows it (find in chat).
		at, err := strconv.ParseInt(q.Get("at"), 10, 64)
		if err != nil || at < 1 {
			return annals.Errorf(annals.EINVALID, "at=%q is not an entry's position (a whole number from 1)", q.Get("at"))
		}
		after = max(at-1-windowBefore, 0)
		sp.back = true
	case q.Get("before") != "":
		before, err := strconv.ParseInt(q.Get("before"), 10, 64)
		if err != nil || before < 1 {
			return annals.Errorf(annals.EINVALID, "before=%q is not an entry's position (a whole number from 1)", q.Get("before"))
		}
		after = max(before-1-entryPageSize, 0)
		limit = before - 1 - after
		// The page below started on its group's first call: this one must not reach into it.
		sp = spill{back: true}
	case q.Get("after") != "":
		if after, err = strconv.ParseInt(q.Get("after"), 10, 64); err != nil || after < 0 {
			return annals.Errorf(annals.EINVALID, "after=%q is not an entry's position (a whole number from 0)", q.Get("after"))
		}
	}
	if limit <= 0 {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	tr, err := h.page(r, c, r.PathValue("id"), after, int(limit), q.Get("run"), sp)
	if err != nil {
		return err
	}
	page := chatPage{Chat: tr.chat, Items: tr.items, Later: tr.later, Earlier: tr.earlier}
	// A page inserted above or below what the reader has carries a link only on its outer side:
	// the other side is already on the page, and a link there (a page above ends where the
	// reader's first page begins) would load it a second time when it came into view.
	switch {
	case q.Get("at") != "":
	case q.Get("before") != "":
		page.Later = ""
	default:
		page.Earlier = ""
	}
	h.fragment(w, "chat", "entries", page)
	return nil
}

type transcriptPage struct {
	chat           *annals.Chat
	items          []item
	earlier, later string
}

// transcript reads limit entries after seq after, with the chat's runs for their boundaries,
// read on to the end of a group of tool calls the last entry is in (the live stream's batches).
func (h *Handler) transcript(r *http.Request, c annals.HistoryService, id string, after int64, limit int, prevRun string) (*transcriptPage, error) {
	return h.page(r, c, id, after, limit, prevRun, spill{forward: true})
}

// spill says which ends of a page move to keep a group of tool calls whole (pagegroup.go).
type spill struct{ forward, back bool }

// page reads limit entries after seq after, moved by sp so that no group of tool calls is cut
// by the page's ends, with the chat's runs for their boundaries.
func (h *Handler) page(r *http.Request, c annals.HistoryService, id string, after int64, limit int, prevRun string, sp spill) (*transcriptPage, error) {
	ctx := r.Context()
	// The runs of the page's own entries (a group spilled in below or above is in a run of the
	// page's ends), not every run of the chat: a chat of thousands of runs opens as fast as one.
	v, err := c.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: id}, Limit: limit, AfterSeq: after, Runs: true})
	if err != nil {
		return nil, err
	}
	pageRuns := v.Runs
	if sp.forward {
		if v.Entries, v.HasMore, err = spillForward(ctx, c, v.Chat.ID, v.Entries, v.HasMore); err != nil {
			return nil, err
		}
	}
	if sp.back && len(v.Entries) > 0 {
		before, err := spillBack(ctx, c, v.Chat.ID, after, v.Entries[0])
		if err != nil {
			return nil, err
		}
		v.Entries = append(before, v.Entries...)
		after -= int64(len(before))
	}
	runs, err := runsOf(ctx, c, v, pageRuns, prevRun)
	if err != nil {
		return nil, err
	}
	tp := &transcriptPage{chat: v.Chat, items: items(v.Entries, runs, prevRun)}
	base := chatURL(v.Chat.ID) + "/entries?"
	if v.HasMore && len(v.Entries) > 0 {
		last := v.Entries[len(v.Entries)-1]
		p := url.Values{"after": {strconv.FormatInt(last.Seq, 10)}}
		if last.RunID != "" {
			p.Set("run", last.RunID)
		}
		tp.later = base + p.Encode()
	}
	if after > 0 {
		tp.earlier = base + url.Values{"before": {strconv.FormatInt(after+1, 10)}}.Encode()
	}
	return tp, nil
}

// runsOf maps the runs of the page's entries by id for their boundaries: pageRuns as GetChat
// answered them, or, from a transport that does not carry GetParams.Runs (none came back while
// a boundary is drawn), every run of the chat as FindChatRuns reads them.
func runsOf(ctx context.Context, c annals.HistoryService, v *annals.ChatView, pageRuns []*annals.Run, prevRun string) (map[string]*annals.Run, error) {
	runs := map[string]*annals.Run{}
	if pageRuns == nil && v.Chat.Totals.Runs > 0 && slices.ContainsFunc(v.Entries, func(e *annals.Entry) bool { return e.RunID != "" && e.RunID != prevRun }) {
		var err error
		if pageRuns, err = c.FindChatRuns(ctx, annals.ChatSelector{ID: v.Chat.ID}); err != nil {
			return nil, err
		}
	}
	for _, run := range pageRuns {
		runs[run.ID] = run
	}
	return runs, nil
}
