package tui

import (
	"context"
	"errors"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/annals-dev/annals"
)

// pageSize is how many results one search asks for; m loads more.
const pageSize = 50

// searchState is the results pane: the newest search started (gen) and its cancel, and the
// rows of the newest search answered.
type searchState struct {
	gen    int
	cancel context.CancelFunc
	busy   bool

	filter      annals.ChatQuery
	filterText  string // what the header says
	filterInput string // what the filter prompt last took
	rank        string // annals.RankLexical, RankHybrid or RankSemantic; "" is the history's default

	query   string // the query the rows answer ("" lists recent chats)
	rows    []row
	total   int
	atLeast bool   // total is a lower bound: the search stopped after its page
	cursor  string // the next page's cursor
	partial string
	sel     int
	top     int
}

// row is one result: a chat and, for a search, its best snippet.
type row struct {
	chat    *annals.Chat
	snippet string // marked with annals.SnippetMarkOpen/Close
	seq     int64  // the snippet's entry, where the transcript opens
	matches int
}

// searchMsg is a search's answer. gen says which search it answers: an older one's answer
// (cancelled, or merely slower) is dropped.
type searchMsg struct {
	gen     int
	more    bool // a next page, appended
	query   string
	rows    []row
	total   int
	atLeast bool
	cursor  string
	partial string
	err     error
}

// search starts a search for the box's text, cancelling the one before: its context is
// cancelled now, so the service stops working on it, and its answer, if any, is dropped. It
// waits Debounce first, on that context, so fast typing starts no search per key.
// more > 0 fetches the next page of the current results instead.
func (m *Model) search(more int) tea.Cmd {
	m.stopSearch()
	ctx, cancel := context.WithCancel(m.opts.Context)
	m.s.gen++
	m.s.cancel, m.s.busy = cancel, true
	gen, q, f, svc, scope, rank := m.s.gen, strings.TrimSpace(m.input.Value()), m.s.filter, m.opts.Service, m.opts.Scope, m.s.rank
	page := annals.PageParams{Limit: pageSize}
	wait := m.opts.Debounce
	if more > 0 {
		q, page.Cursor, page.Offset, wait = m.s.query, m.s.cursor, 0, 0
		if page.Cursor == "" {
			page.Offset = more
		}
	}
	return func() tea.Msg {
		out := searchMsg{gen: gen, more: more > 0, query: q}
		if wait > 0 {
			select {
			case <-ctx.Done():
				out.err = ctx.Err()
				return out
			case <-time.After(wait):
			}
		}
		if q == "" {
			res, err := svc.FindChats(ctx, annals.ListParams{Scope: scope, Filter: f, Page: page})
			if err != nil {
				out.err = err
				return out
			}
			for _, c := range res.Chats {
				out.rows = append(out.rows, row{chat: c})
			}
			out.total, out.cursor = res.Total, res.NextCursor
			return out
		}
		res, err := svc.SearchChats(ctx, annals.SearchParams{Scope: scope, Query: q, Filter: f, Page: page, Rank: rank})
		if err != nil {
			out.err = err
			return out
		}
		for _, h := range res.Chats {
			r := row{chat: h.Chat, matches: h.Matches}
			if len(h.Snippets) > 0 {
				r.snippet, r.seq = h.Snippets[0].Text, h.Snippets[0].Seq
			}
			out.rows = append(out.rows, r)
		}
		out.total, out.atLeast, out.cursor = res.Total, res.TotalIsLowerBound, res.NextCursor
		if res.Partial {
			out.partial = res.PartialReason
		}
		return out
	}
}

// rankSays is what each ranking does, for the status line.
var rankSays = map[string]string{
	annals.RankLexical:  "by the words",
	annals.RankHybrid:   "words and meaning fused",
	annals.RankSemantic: "by meaning alone",
}

// stopSearch cancels the search in flight, if any.
func (m *Model) stopSearch() {
	if m.s.cancel != nil {
		m.s.cancel()
		m.s.cancel = nil
	}
}

// gotResults shows a search's answer unless a newer search has started since.
func (m *Model) gotResults(msg searchMsg) tea.Cmd {
	if msg.gen != m.s.gen {
		return nil // stale: a newer keystroke cancelled it
	}
	m.s.busy = false
	m.stopSearch()
	if msg.err != nil {
		if !errors.Is(msg.err, context.Canceled) {
			m.say("search: "+oneLine(annals.ErrorMessage(msg.err)), true)
		}
		return nil
	}
	if m.statusBad && strings.HasPrefix(m.status, "search: ") {
		m.say("", false)
	}
	if msg.more {
		m.s.rows = append(m.s.rows, msg.rows...)
	} else {
		m.s.rows, m.s.sel, m.s.top = msg.rows, 0, 0
	}
	m.s.query, m.s.total, m.s.atLeast, m.s.cursor, m.s.partial = msg.query, msg.total, msg.atLeast, msg.cursor, msg.partial
	return nil
}

// hasMore reports whether a next page exists: fewer rows than the total, or a total that is a
// lower bound with a cursor to go on from.
func (s *searchState) hasMore() bool {
	return len(s.rows) < s.total || (s.atLeast && s.cursor != "")
}

// resultsKey moves in the results pane and opens a chat.
func (m *Model) resultsKey(k tea.KeyPressMsg) tea.Cmd {
	n := len(m.s.rows)
	page := max(1, m.resultsHeight()/rowLines)
	switch {
	case key.Matches(k, m.keys.Up):
		m.s.sel--
	case key.Matches(k, m.keys.Down):
		m.s.sel++
		if m.s.sel >= n && m.s.hasMore() && !m.s.busy {
			return m.search(len(m.s.rows))
		}
	case key.Matches(k, m.keys.PageUp):
		m.s.sel -= page
	case key.Matches(k, m.keys.PageDown):
		m.s.sel += page
	case key.Matches(k, m.keys.Top):
		m.s.sel = 0
	case key.Matches(k, m.keys.Bottom):
		m.s.sel = n - 1
	case key.Matches(k, m.keys.More):
		if m.s.hasMore() && !m.s.busy {
			return m.search(len(m.s.rows))
		}
	case key.Matches(k, m.keys.Open):
		if r := m.selected(); r != nil {
			return m.open(r.chat, r.seq)
		}
	case key.Matches(k, m.keys.Back):
		if m.tr != nil {
			m.tr = nil
			return nil
		}
		m.setFocus(focusSearch)
	}
	m.s.sel = max(0, min(m.s.sel, n-1))
	return nil
}

// selected is the selected result, or nil.
func (m *Model) selected() *row {
	if m.s.sel < 0 || m.s.sel >= len(m.s.rows) {
		return nil
	}
	return &m.s.rows[m.s.sel]
}
