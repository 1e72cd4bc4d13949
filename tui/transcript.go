package tui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// The transcript pane pages: it holds a window of at most maxWindow entries of the chat, loaded
// pageEntries at a time (or pageContext on each side of the entry a search matched), and loads
// the next page when the selection comes near the window's edge. A 100,000-entry chat is never
// loaded whole.
const (
	pageEntries = 200
	pageContext = 100
	maxWindow   = 1000
	// nearEdge is how close to the window's edge the selection comes before the next page loads.
	nearEdge = 10
)

// transcript is the open chat: a contiguous window of its entries by seq.
type transcript struct {
	chat     *annals.Chat
	query    string      // the search that opened it, for next/previous hit
	terms    query.Terms // its words, highlighted where they occur
	hits     []int64     // seqs of the entries that query matched, ascending
	entries  []*annals.Entry
	sel, top int
	expanded map[int64]bool
	// gen numbers page requests; loading is the one in flight. pending is what to do once it
	// lands: select a seq, or look for the next or previous user prompt.
	gen     int
	loading bool
	pending pending
	cache   map[int64][]string
	// runs are the chat's runs by id, read once when it opens: an entry that starts a run (or
	// the window) is drawn under its run's line, with its model, tokens, cache and context.
	runs map[string]*annals.Run
}

// runsMsg is the open chat's runs.
type runsMsg struct {
	chatID string
	runs   []*annals.Run
}

type pending struct {
	seq    int64
	prompt int // +1 next, -1 previous user prompt
}

// pageMsg is a page of the open chat.
type pageMsg struct {
	chatID string
	gen    int
	how    pageHow
	view   *annals.ChatView
	err    error
}

type pageHow int

const (
	pageReplace pageHow = iota
	pageAfter
	pageBefore
)

// hitsMsg is the seqs of the open chat's entries the query matched.
type hitsMsg struct {
	chatID string
	seqs   []int64
}

func (t *transcript) invalidate() { t.cache = map[int64][]string{} }

func (t *transcript) first() int64 { return t.entries[0].Seq }
func (t *transcript) last() int64  { return t.entries[len(t.entries)-1].Seq }

// moreAfter reports whether the chat has entries after the window (seq is contiguous from 1,
// so the entry count is the last seq).
func (t *transcript) moreAfter() bool {
	return len(t.entries) > 0 && t.last() < t.chat.Totals.Entries
}
func (t *transcript) moreBefore() bool { return len(t.entries) > 0 && t.first() > 1 }

// open opens a chat in the transcript pane at the entry seq (0: the start) and, when it was
// found by a search, looks up its matching entries for next/previous hit.
func (m *Model) open(c *annals.Chat, seq int64) tea.Cmd {
	m.tr = &transcript{chat: c, query: m.s.query, terms: queryTerms(m.s.query), expanded: map[int64]bool{}, cache: map[int64][]string{}}
	m.setFocus(focusTranscript)
	cmds := []tea.Cmd{m.load(pageReplace, seq)}
	if c.Totals.Runs > 0 {
		cmds = append(cmds, m.loadRuns())
	}
	if m.tr.query != "" {
		cmds = append(cmds, m.loadHits())
	}
	return tea.Batch(cmds...)
}

// load asks for a page: the window around seq (the start when 0), or the page after or before
// the window.
// queryTerms are the words of a query that an entry matching it holds (not those it excludes),
// as query.Terms; none for a query that does not parse or has only filters.
func queryTerms(q string) query.Terms {
	if q == "" {
		return nil
	}
	pq, err := query.Parse(q)
	if err != nil || pq.Text == nil {
		return nil
	}
	return query.NewTerms(query.PositiveTerms(query.ToTextExpr(pq.Text), nil), query.Fold)
}

func (m *Model) load(how pageHow, seq int64) tea.Cmd {
	t := m.tr
	t.gen++
	t.loading = true
	if how == pageReplace {
		t.pending.seq = seq
	}
	p := annals.GetParams{Chat: annals.ChatSelector{Scope: m.opts.Scope, ID: t.chat.ID}}
	switch {
	case how == pageAfter:
		p.AfterSeq, p.Limit = t.last(), pageEntries
	case how == pageBefore:
		ctxN := pageContext
		p.AroundSeq, p.Context = max(1, t.first()-1-int64(ctxN)), &ctxN
	case seq > 0:
		ctxN := pageContext
		p.AroundSeq, p.Context = seq, &ctxN
	default:
		p.Limit = pageEntries
	}
	gen, id, svc, ctx := t.gen, t.chat.ID, m.opts.Service, m.opts.Context
	return func() tea.Msg {
		v, err := svc.GetChat(ctx, p)
		return pageMsg{chatID: id, gen: gen, how: how, view: v, err: err}
	}
}

func (m *Model) loadHits() tea.Cmd {
	id, q, svc, ctx, scope := m.tr.chat.ID, m.tr.query, m.opts.Service, m.opts.Context, m.opts.Scope
	return func() tea.Msg {
		res, err := svc.SearchChats(ctx, annals.SearchParams{Scope: scope, Query: q, Mode: annals.SearchEntriesMode,
			Filter: annals.ChatQuery{ChatID: id, IncludeArchived: true}, Page: annals.PageParams{Limit: 1000}})
		if err != nil {
			return hitsMsg{chatID: id}
		}
		// Exactly this chat: a chat whose id starts with this one's holds no hit here.
		var seqs []int64
		for _, h := range res.Entries {
			seqs = append(seqs, h.Entry.Seq)
		}
		slices.Sort(seqs)
		return hitsMsg{chatID: id, seqs: slices.Compact(seqs)}
	}
}

// loadRuns reads the open chat's runs; a chat whose runs cannot be read is shown without them.
func (m *Model) loadRuns() tea.Cmd {
	id, svc, ctx, scope := m.tr.chat.ID, m.opts.Service, m.opts.Context, m.opts.Scope
	return func() tea.Msg {
		runs, err := svc.FindChatRuns(ctx, annals.ChatSelector{Scope: scope, ID: id})
		if err != nil {
			return runsMsg{chatID: id}
		}
		return runsMsg{chatID: id, runs: runs}
	}
}

func (m *Model) gotRuns(msg runsMsg) {
	if m.tr != nil && m.tr.chat.ID == msg.chatID {
		m.tr.runs = map[string]*annals.Run{}
		for _, r := range msg.runs {
			m.tr.runs[r.ID] = r
		}
		m.tr.invalidate()
	}
}

// runAt is the run whose line is drawn above the window's entry i: its run, when it starts a
// run or the window.
func (t *transcript) runAt(i int) *annals.Run {
	e := t.entries[i]
	if e.RunID == "" || (i > 0 && t.entries[i-1].RunID == e.RunID) {
		return nil
	}
	return t.runs[e.RunID]
}

func (m *Model) gotHits(msg hitsMsg) {
	if m.tr != nil && m.tr.chat.ID == msg.chatID {
		m.tr.hits = msg.seqs
		m.tr.invalidate()
	}
}

// gotPage merges a page into the window, keeping it contiguous and bounded.
func (m *Model) gotPage(msg pageMsg) tea.Cmd {
	t := m.tr
	if t == nil || t.chat.ID != msg.chatID || t.gen != msg.gen {
		return nil
	}
	t.loading = false
	if msg.err != nil {
		m.say("open: "+oneLine(annals.ErrorMessage(msg.err)), true)
		return nil
	}
	t.chat = msg.view.Chat
	got := msg.view.Entries
	switch msg.how {
	case pageReplace:
		t.entries, t.sel, t.top = got, 0, 0
		t.invalidate()
	case pageAfter:
		t.entries = append(t.entries, got...)
		if drop := len(t.entries) - maxWindow; drop > 0 {
			t.entries = t.entries[drop:]
			delete(t.cache, t.first()) // now the window's first: it may start a run's line
			t.sel, t.top = max(0, t.sel-drop), max(0, t.top-drop)
		}
	case pageBefore:
		first := t.first()
		delete(t.cache, first) // no longer the window's first: it may lose its run's line
		var older []*annals.Entry
		for _, e := range got {
			if e.Seq < first {
				older = append(older, e)
			}
		}
		t.entries = append(older, t.entries...)
		t.sel, t.top = t.sel+len(older), t.top+len(older)
		if len(t.entries) > maxWindow {
			t.entries = t.entries[:maxWindow]
		}
	}
	if p := t.pending; p.seq > 0 {
		t.pending.seq = 0
		t.selectSeq(p.seq)
	}
	if p := t.pending; p.prompt != 0 {
		t.pending.prompt = 0
		return m.jumpPrompt(p.prompt)
	}
	return nil
}

// selectSeq selects the entry seq if the window holds it.
func (t *transcript) selectSeq(seq int64) bool {
	for i, e := range t.entries {
		if e.Seq == seq {
			t.sel = i
			return true
		}
	}
	return false
}

// transcriptKey moves in the open chat.
func (m *Model) transcriptKey(k tea.KeyPressMsg) tea.Cmd {
	t := m.tr
	if key.Matches(k, m.keys.Back) {
		m.setFocus(focusResults)
		return nil
	}
	if len(t.entries) == 0 {
		return nil
	}
	page := max(1, m.bodyHeight()/4)
	switch {
	case key.Matches(k, m.keys.Up):
		t.sel--
	case key.Matches(k, m.keys.Down):
		t.sel++
	case key.Matches(k, m.keys.PageUp):
		t.sel -= page
	case key.Matches(k, m.keys.PageDown):
		t.sel += page
	case key.Matches(k, m.keys.Top):
		if t.moreBefore() {
			return m.load(pageReplace, 0)
		}
		t.sel = 0
	case key.Matches(k, m.keys.Bottom):
		if t.moreAfter() {
			return m.load(pageReplace, t.chat.Totals.Entries)
		}
		t.sel = len(t.entries) - 1
	case key.Matches(k, m.keys.Open, m.keys.Expand):
		e := t.entries[t.sel]
		t.expanded[e.Seq] = !t.expanded[e.Seq]
		delete(t.cache, e.Seq)
	case key.Matches(k, m.keys.NextHit):
		return m.jumpHit(+1)
	case key.Matches(k, m.keys.PrevHit):
		return m.jumpHit(-1)
	case key.Matches(k, m.keys.NextPrompt):
		return m.jumpPrompt(+1)
	case key.Matches(k, m.keys.PrevPrompt):
		return m.jumpPrompt(-1)
	}
	t.sel = max(0, min(t.sel, len(t.entries)-1))
	return m.loadNearEdge()
}

// loadNearEdge loads the next page when the selection is near the window's edge.
func (m *Model) loadNearEdge() tea.Cmd {
	t := m.tr
	switch {
	case t.loading:
	case t.sel >= len(t.entries)-nearEdge && t.moreAfter():
		return m.load(pageAfter, 0)
	case t.sel < nearEdge && t.moreBefore():
		return m.load(pageBefore, 0)
	}
	return nil
}

// jumpHit selects the next (dir +1) or previous (-1) entry the query matched, loading the
// window around it when it is outside.
func (m *Model) jumpHit(dir int) tea.Cmd {
	t := m.tr
	if len(t.hits) == 0 {
		m.say("no matching entries in this chat", false)
		return nil
	}
	cur := t.entries[t.sel].Seq
	var target int64
	for i := range t.hits {
		h := t.hits[i]
		if dir < 0 {
			h = t.hits[len(t.hits)-1-i]
		}
		if (dir > 0 && h > cur) || (dir < 0 && h < cur) {
			target = h
			break
		}
	}
	if target == 0 {
		m.say("no more matching entries this way", false)
		return nil
	}
	if t.selectSeq(target) {
		return m.loadNearEdge()
	}
	return m.load(pageReplace, target)
}

// jumpPrompt selects the next or previous user prompt, paging on until one is found.
func (m *Model) jumpPrompt(dir int) tea.Cmd {
	t := m.tr
	for i := t.sel + dir; i >= 0 && i < len(t.entries); i += dir {
		if t.entries[i].Kind == annals.KindUser {
			t.sel = i
			return m.loadNearEdge()
		}
	}
	if t.loading {
		return nil
	}
	if dir > 0 && t.moreAfter() {
		t.sel = len(t.entries) - 1
		t.pending.prompt = dir
		return m.load(pageAfter, 0)
	}
	if dir < 0 && t.moreBefore() {
		t.sel = 0
		t.pending.prompt = dir
		return m.load(pageBefore, 0)
	}
	m.say("no more user prompts this way", false)
	return nil
}
