package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
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

// Snippet marks the model sees around matched terms.
const (
	markOpen  = "«"
	markClose = "»"
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
	return own
}

func (f filters) request(op string, limit int) *history.Request {
	r := &history.Request{
		Op: op, Scope: f.Scope, Tag: f.Tag, Agent: f.Agent, Status: f.Status,
		From: f.From, To: f.To, IncludeArchived: f.IncludeArchived, Limit: limit,
	}
	// A page cut short by the budget continues at an offset; the service's own cursor
	// continues a whole page.
	if n, ok := strings.CutPrefix(f.Cursor, "offset:"); ok {
		r.Offset, _ = strconv.Atoi(n)
	} else {
		r.Cursor = f.Cursor
	}
	return r
}

type searchIn struct {
	Query string   `json:"query" jsonschema:"the search: words (all must match), \"a phrase\", prefix*, -excluded, a OR b, and filters tag:x role:user tool:Bash after:2026-01-01 before:2026-02-01"`
	Mode  string   `json:"mode,omitempty" jsonschema:"chats (default): ranked sessions with snippets; entries: the matching entries themselves"`
	Sort  string   `json:"sort,omitempty" jsonschema:"relevance (default) or recent"`
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
	Query      string         `json:"query"`
	Scope      string         `json:"scope"`
	Total      int            `json:"total"`
	Chats      []ChatLine     `json:"chats,omitempty"`
	Entries    []EntryHitLine `json:"entries,omitempty"`
	NextCursor string         `json:"next_cursor,omitempty"`
	Notice     string         `json:"notice"`
}

func chatLine(c *annals.Chat) ChatLine {
	l := ChatLine{
		ID: c.ID, Title: oneLine(titleOf(c), lineBytes), LastActivity: c.LastActivity.UTC().Format("2006-01-02T15:04:05Z"),
		Entries: c.Totals.Entries, Status: string(c.Status), Tags: c.Tags, Pinned: c.Pinned, Archived: c.ArchivedAt != nil,
	}
	switch {
	case c.Summary != "":
		l.Summary = oneLine(c.Summary, lineBytes)
	case c.Description != "":
		l.Summary = oneLine(c.Description, lineBytes)
	}
	return l
}

func (l ChatLine) size() int {
	n := len(l.ID) + len(l.Title) + len(l.Summary) + 120
	for _, t := range l.Tags {
		n += len(t) + 3
	}
	for _, s := range l.Snippets {
		n += len(s.Text) + len(s.Tool) + 40
	}
	return n
}

func (l ChatLine) render(b *strings.Builder) {
	fmt.Fprintf(b, "- %s · %q · %d entries · last active %s", l.ID, l.Title, l.Entries, l.LastActivity)
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
	r := in.filters.request(history.OpSearch, in.Limit)
	r.Query, r.Mode, r.Sort, r.In = in.Query, in.Mode, in.Sort, in.In
	p, err := r.SearchParams()
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	page, err := ss.svc.SearchChats(ss.as(ctx), p)
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	history.RenderSnippets(page, markOpen, markClose)
	out := &SearchOut{Query: page.Query, Scope: page.Scope, Total: page.Total, Notice: notice}
	b := budget{left: ss.budget / 2}
	shown := 0
	for _, h := range page.Chats {
		l := chatLine(h.Chat)
		l.Matches, l.Score = h.Matches, h.Score
		for _, s := range h.Snippets {
			l.Snippets = append(l.Snippets, SnippetLine{Seq: s.Seq, Kind: string(s.Kind), Tool: s.Tool, Text: oneLine(s.Text, snippetBytes)})
		}
		if l.Summary == "" && len(l.Snippets) > 0 {
			l.Summary = oneLine(strings.NewReplacer(markOpen, "", markClose, "").Replace(l.Snippets[0].Text), lineBytes)
		}
		if !b.take(l.size()) {
			break
		}
		out.Chats = append(out.Chats, l)
		shown++
	}
	for _, h := range page.Entries {
		e := h.Entry
		l := EntryHitLine{ChatID: e.ChatID, Seq: e.Seq, Kind: string(e.Kind), Snippet: oneLine(h.Snippet, snippetBytes)}
		if e.Tool != nil {
			l.Tool = e.Tool.Name
		}
		if !e.Time.IsZero() {
			l.Time = e.Time.UTC().Format("2006-01-02T15:04:05Z")
		}
		if !b.take(len(l.ChatID) + len(l.Snippet) + 80) {
			break
		}
		out.Entries = append(out.Entries, l)
		shown++
	}
	out.NextCursor = nextCursor(page.NextCursor, page.Offset, shown, len(page.Chats)+len(page.Entries))
	return textResult(renderSearch(out, shown)), out, nil
}

// nextCursor continues a page: the service's cursor when the whole page was shown, else the
// offset of the first result the budget left out.
func nextCursor(svcCursor string, offset, shown, got int) string {
	if shown < got {
		return "offset:" + strconv.Itoa(offset+shown)
	}
	return svcCursor
}

func renderSearch(out *SearchOut, shown int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "history_search %s: %d matching (scope %s), %d shown.\n", out.Query, out.Total, out.Scope, shown)
	if shown == 0 {
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
	r := in.filters.request(history.OpList, in.Limit)
	r.TitleContains, r.PinnedOnly = in.Title, in.PinnedOnly
	p, err := r.ListParams()
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	page, err := ss.svc.FindChats(ss.as(ctx), p)
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	out := &ListOut{Scope: page.Scope, Total: page.Total, Chats: []ChatLine{}, Notice: notice}
	b := budget{left: ss.budget / 2}
	for _, c := range page.Chats {
		l := chatLine(c)
		if !b.take(l.size()) {
			break
		}
		out.Chats = append(out.Chats, l)
	}
	out.NextCursor = nextCursor(page.NextCursor, page.Offset, len(out.Chats), len(page.Chats))
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
	return textResult(text.String()), out, nil
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
	msg := annals.ErrorMessage(err)
	if code == annals.ENOTFOUND {
		return fmt.Errorf("not found: %s (no such session in your scope; history_list or history_search find ids)", msg)
	}
	return fmt.Errorf("%s: %s", code, msg)
}
