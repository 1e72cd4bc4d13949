package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
)

// Search limits: small pages, because every result goes into the model's context.
const (
	defaultSearchLimit = 10
	maxSearchLimit     = 75
	defaultListLimit   = 20
	maxListLimit       = 100
	// snippetBytes bounds one snippet; the store's are shorter, a hostile one is not.
	snippetBytes = 600
	lineBytes    = 160
)

// Snippet marks the model sees around matched terms: the service's default marks.
const (
	markOpen  = envelope.DefaultMarkOpen
	markClose = envelope.DefaultMarkClose
)

// filters are the list filters history_search and history_list share.
type filters struct {
	Scope           string `json:"scope,omitempty" jsonschema:"whose sessions: self, user, tenant or global (admins); default the widest allowed"`
	Tag             string `json:"tag,omitempty" jsonschema:"only sessions with this exact tag"`
	Agent           string `json:"agent,omitempty" jsonschema:"only sessions of this agent"`
	Status          string `json:"status,omitempty" jsonschema:"only sessions whose last run has this status"`
	From            string `json:"from,omitempty" jsonschema:"only sessions active at or after this time (RFC 3339 or YYYY-MM-DD)"`
	To              string `json:"to,omitempty" jsonschema:"only sessions active at or before this time (RFC 3339 or YYYY-MM-DD)"`
	IncludeArchived bool   `json:"include_archived,omitempty" jsonschema:"include archived sessions"`
	Cursor          string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// filterTweaks are the schema's allowed values of the shared filters, with the tool's own.
func filterTweaks(own map[string]tweak) map[string]tweak {
	own["scope"] = enum("self", "user", "tenant", "global")
	own["status"] = enum("running", "awaiting_input", "completed", "failed", "cancelled")
	own["tag"], own["agent"] = longest(maxNameArg), longest(maxNameArg)
	own["from"], own["to"] = longest(maxTimeArg), longest(maxTimeArg)
	own["cursor"] = longest(maxCursorArg)
	return own
}

// query is the typed list filter of the shared filters, refused as the op envelope refuses the
// same values: status first, then from, then to.
func (f filters) query() (annals.ChatQuery, error) {
	q := annals.ChatQuery{Tag: f.Tag, Agent: f.Agent, IncludeArchived: f.IncludeArchived}
	err := q.ParseBounds(f.Status, f.From, f.To)
	return q, err
}

// page is the typed paging of a call: a page cut short by the budget continues at an offset;
// the service's own cursor continues a whole page.
func (f filters) page(limit int) (annals.PageParams, error) {
	p := annals.PageParams{Limit: limit}
	if n, ok := strings.CutPrefix(f.Cursor, "offset:"); ok {
		off, err := strconv.Atoi(n)
		if err != nil || off < 0 {
			return p, annals.Errorf(annals.EINVALID, "cursor %.40q is not one this tool gave (use next_cursor as it came)", f.Cursor)
		}
		p.Offset = off
	} else {
		p.Cursor = f.Cursor
	}
	return p, nil
}

// filterParams are the typed filter and paging of a call, the cursor checked first.
func (f filters) filterParams(limit int) (annals.ChatQuery, annals.PageParams, error) {
	pg, err := f.page(limit)
	if err != nil {
		return annals.ChatQuery{}, pg, err
	}
	q, err := f.query()
	return q, pg, err
}

type searchIn struct {
	Query string   `json:"query" jsonschema:"the search: words (all must match), \"a phrase\", prefix*, -excluded, a OR b, and filters tag:x role:user tool:Bash after:2026-01-01 before:2026-02-01"`
	Mode  string   `json:"mode,omitempty" jsonschema:"chats (default): ranked sessions with snippets; entries: the matching entries themselves"`
	Sort  string   `json:"sort,omitempty" jsonschema:"relevance (default) or recent"`
	Rank  string   `json:"rank,omitempty" jsonschema:"lexical: by the words; hybrid: words and meaning fused; semantic: by meaning alone, finding sessions that share no word with the query. Omitted: hybrid for plain words once the embedder ranks by meaning, else lexical"`
	In    []string `json:"in,omitempty" jsonschema:"fields to search: title, description, summary, tags, body, tools (default all)"`
	Limit int      `json:"limit,omitempty" jsonschema:"results per page, 1 to 75"`
	filters
}

// ChatLine is one session in a list or search answer.
type ChatLine struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Summary is one line: the stored summary, else the description, else (in a search) the
	// first matching passage.
	Summary      string   `json:"summary"`
	LastActivity string   `json:"last_activity"`
	Entries      int64    `json:"entries"`
	Status       string   `json:"status,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	Pinned       bool     `json:"pinned,omitempty"`
	Archived     bool     `json:"archived,omitempty"`
	// Matches and Snippets are set in search answers: matching entries, with their seq for
	// history_read around_seq.
	Matches  int           `json:"matches,omitempty"`
	Snippets []SnippetLine `json:"snippets,omitempty"`
	Score    float64       `json:"score,omitempty"`
}

// SnippetLine is one matching passage of a session.
type SnippetLine struct {
	Seq  int64  `json:"seq"`
	Kind string `json:"kind"`
	Tool string `json:"tool,omitempty"`
	Text string `json:"text"`
}

// EntryHitLine is one matching entry (search mode entries).
type EntryHitLine struct {
	ChatID  string `json:"chat_id"`
	Seq     int64  `json:"seq"`
	Kind    string `json:"kind"`
	Tool    string `json:"tool,omitempty"`
	Time    string `json:"time,omitempty"`
	Snippet string `json:"snippet"`
}

// SearchOut is the structured answer of history_search.
type SearchOut struct {
	Query string `json:"query"`
	Scope string `json:"scope"`
	Total int    `json:"total"`
	// TotalIsLowerBound: the search stopped after its page; at least Total match.
	TotalIsLowerBound bool           `json:"total_is_lower_bound,omitempty"`
	Chats             []ChatLine     `json:"chats,omitempty"`
	Entries           []EntryHitLine `json:"entries,omitempty"`
	NextCursor        string         `json:"next_cursor,omitempty"`
	Notice            string         `json:"notice"`
}

func chatLine(c *annals.Chat) ChatLine {
	l := ChatLine{
		ID: c.ID, Title: inert(oneLine(titleOf(c), lineBytes)), LastActivity: stamp(c.LastActivity),
		Entries: c.Totals.Entries, Status: string(c.Status), Pinned: c.Pinned, Archived: c.ArchivedAt != nil,
	}
	for _, t := range c.Tags {
		l.Tags = append(l.Tags, inert(t))
	}
	switch {
	case c.Summary != "":
		l.Summary = inert(oneLine(c.Summary, lineBytes))
	case c.Description != "":
		l.Summary = inert(oneLine(c.Description, lineBytes))
	}
	return l
}

// shrunk is the line cut down to what any page can carry: a budget that cannot hold one
// whole session still shows one, with fewer tags and snippets.
func (l ChatLine) shrunk() ChatLine {
	l.Tags = l.Tags[:min(len(l.Tags), 8)]
	for i, t := range l.Tags {
		l.Tags[i] = oneLine(t, 48)
	}
	l.Snippets = l.Snippets[:min(len(l.Snippets), 1)]
	for i := range l.Snippets {
		l.Snippets[i].Text = oneLine(l.Snippets[i].Text, 200)
	}
	l.Title, l.Summary = oneLine(l.Title, 80), oneLine(l.Summary, 80)
	return l
}

func (l ChatLine) render(b *strings.Builder) {
	fmt.Fprintf(b, "- %s · \"%s\" · %d entries · last active %s", l.ID, l.Title, l.Entries, l.LastActivity)
	if l.Status != "" {
		b.WriteString(" · " + l.Status)
	}
	if len(l.Tags) > 0 {
		b.WriteString(" · tags: " + strings.Join(l.Tags, ", "))
	}
	if l.Pinned {
		b.WriteString(" · pinned")
	}
	if l.Archived {
		b.WriteString(" · archived")
	}
	b.WriteString("\n")
	if l.Summary != "" {
		b.WriteString("  summary: " + l.Summary + "\n")
	}
	for _, s := range l.Snippets {
		who := s.Kind
		if s.Tool != "" {
			who += " " + s.Tool
		}
		fmt.Fprintf(b, "  #%d %s: %s\n", s.Seq, who, s.Text)
	}
}

func (ss *session) search(ctx context.Context, _ *sdk.CallToolRequest, in searchIn) (*sdk.CallToolResult, *SearchOut, error) {
	q, pg, err := in.filters.filterParams(in.Limit)
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	p := annals.SearchParams{Scope: annals.Scope(in.Scope), Query: in.Query, In: in.In, Sort: in.Sort, Rank: in.Rank, Mode: annals.SearchMode(in.Mode), Filter: q, Page: pg}
	page, err := ss.svc.SearchChats(ss.as(ctx), p)
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	envelope.RenderSnippets(page, markOpen, markClose)
	chats, entries := searchLines(page)
	out := &SearchOut{Query: oneLine(page.Query, 400), Scope: page.Scope, Total: page.Total, TotalIsLowerBound: page.TotalIsLowerBound, Notice: notice}
	fit := func(n int) (string, bool) {
		out.Chats, out.Entries = chats[:min(n, len(chats))], entries[:min(n, len(entries))]
		out.NextCursor = nextCursor(page.NextCursor, page.Offset, n, len(chats)+len(entries))
		text := renderSearch(out)
		return text, ss.fits(text, out)
	}
	n := fitCount(len(chats)+len(entries), func(n int) bool { _, ok := fit(n); return ok })
	text, ok := fit(n)
	if !ok && len(chats) > 0 {
		chats[0] = chats[0].shrunk()
		text, _ = fit(1)
	}
	return textResult(text), out, nil
}

// searchLines are a search page's answers as lines: sessions with their snippets (and a
// summary line, the first passage where none is stored), or matching entries.
func searchLines(page *annals.SearchPage) ([]ChatLine, []EntryHitLine) {
	var chats []ChatLine
	for _, h := range page.Chats {
		l := chatLine(h.Chat)
		l.Matches, l.Score = h.Matches, h.Score
		for _, s := range h.Snippets {
			l.Snippets = append(l.Snippets, SnippetLine{Seq: s.Seq, Kind: string(s.Kind), Tool: inert(s.Tool), Text: inert(oneLine(s.Text, snippetBytes))})
		}
		if l.Summary == "" && len(l.Snippets) > 0 {
			l.Summary = oneLine(strings.NewReplacer(markOpen, "", markClose, "").Replace(l.Snippets[0].Text), lineBytes)
		}
		chats = append(chats, l)
	}
	var entries []EntryHitLine
	for _, h := range page.Entries {
		e := h.Entry
		l := EntryHitLine{ChatID: e.ChatID, Seq: e.Seq, Kind: string(e.Kind), Time: stamp(e.Time), Snippet: inert(oneLine(h.Snippet, snippetBytes))}
		if e.Tool != nil {
			l.Tool = inert(e.Tool.Name)
		}
		entries = append(entries, l)
	}
	return chats, entries
}

// nextCursor continues a page: the service's cursor when the whole page was shown, else the
// offset of the first result the budget left out.
func nextCursor(svcCursor string, offset, shown, got int) string {
	if shown < got {
		return "offset:" + strconv.Itoa(offset+shown)
	}
	return svcCursor
}

func renderSearch(out *SearchOut) string {
	var b strings.Builder
	shown := len(out.Chats) + len(out.Entries)
	atLeast := ""
	if out.TotalIsLowerBound {
		atLeast = "at least "
	}
	fmt.Fprintf(&b, "history_search: %s%d matching (scope %s), %d shown.\n", atLeast, out.Total, out.Scope, shown)
	if out.Total == 0 {
		b.WriteString("No matches. Try fewer words, a prefix*, or history_list to browse.")
		return b.String()
	}
	var body strings.Builder
	for _, l := range out.Chats {
		l.render(&body)
	}
	for _, e := range out.Entries {
		who := e.Kind
		if e.Tool != "" {
			who += " " + e.Tool
		}
		fmt.Fprintf(&body, "- %s #%d %s %s: %s\n", e.ChatID, e.Seq, who, e.Time, e.Snippet)
	}
	b.WriteString(untrusted(strings.TrimRight(body.String(), "\n")))
	b.WriteString("\nRead a session with history_read (mode overview first, then around_seq of a snippet).")
	if out.NextCursor != "" {
		fmt.Fprintf(&b, "\nMore results: the same call with cursor %q.", out.NextCursor)
	}
	return b.String()
}

type listIn struct {
	Title      string `json:"title_contains,omitempty" jsonschema:"only sessions whose title contains this text"`
	PinnedOnly bool   `json:"pinned_only,omitempty" jsonschema:"only pinned sessions"`
	Limit      int    `json:"limit,omitempty" jsonschema:"sessions per page, 1 to 100"`
	filters
}

// ListOut is the structured answer of history_list.
type ListOut struct {
	Scope      string     `json:"scope"`
	Total      int        `json:"total"`
	Chats      []ChatLine `json:"chats"`
	NextCursor string     `json:"next_cursor,omitempty"`
	Notice     string     `json:"notice"`
}

func (ss *session) list(ctx context.Context, _ *sdk.CallToolRequest, in listIn) (*sdk.CallToolResult, *ListOut, error) {
	q, pg, err := in.filters.filterParams(in.Limit)
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	q.TitleContains, q.PinnedOnly = in.Title, in.PinnedOnly
	page, err := ss.svc.FindChats(ss.as(ctx), annals.ListParams{Scope: annals.Scope(in.Scope), Filter: q, Page: pg})
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	lines := make([]ChatLine, len(page.Chats))
	for i, c := range page.Chats {
		lines[i] = chatLine(c)
	}
	out := &ListOut{Scope: page.Scope, Total: page.Total, Notice: notice}
	fit := func(n int) (string, bool) {
		out.Chats = lines[:n]
		out.NextCursor = nextCursor(page.NextCursor, page.Offset, n, len(lines))
		text := renderList(out)
		return text, ss.fits(text, out)
	}
	text, ok := fit(fitCount(len(lines), func(n int) bool { _, ok := fit(n); return ok }))
	if !ok && len(lines) > 0 {
		lines[0] = lines[0].shrunk()
		text, _ = fit(1)
	}
	return textResult(text), out, nil
}

func renderList(out *ListOut) string {
	var text strings.Builder
	fmt.Fprintf(&text, "history_list: %d sessions (scope %s), %d shown.\n", out.Total, out.Scope, len(out.Chats))
	if len(out.Chats) > 0 {
		var body strings.Builder
		for _, l := range out.Chats {
			l.render(&body)
		}
		text.WriteString(untrusted(strings.TrimRight(body.String(), "\n")))
	}
	if out.NextCursor != "" {
		fmt.Fprintf(&text, "\nMore: the same call with cursor %q.", out.NextCursor)
	}
	return text.String()
}

// textResult is a tool result whose text content is the readable rendering; the SDK adds the
// structured content from the typed output.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// fail is the error a model reads: the code and the message, never an internal cause, which
// goes to the log.
func (s *Server) fail(err error) error {
	code := annals.ErrorCode(err)
	if code == annals.EINTERNAL {
		s.log.Error("mcp tool call failed", "err", annals.ErrorDetail(err))
	}
	// A message may repeat what the caller passed (an id, a cursor): it gets the same treatment
	// as every other caller-derived string.
	msg := inert(annals.ErrorMessage(err))
	if code == annals.ENOTFOUND {
		return fmt.Errorf("not found: %s (no such session in your scope; history_list or history_search find ids)", msg)
	}
	return fmt.Errorf("%s: %s", code, msg)
}
