package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
)

// Read limits.
const (
	defaultReadLimit = 50
	maxReadLimit     = 100
)

type readIn struct {
	sessionRef
	Mode         string `json:"mode,omitempty" jsonschema:"full (default): entries with their text, long fields cut in the middle; overview: one short line per entry and no tool payloads"`
	Cursor       string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
	AroundSeq    int64  `json:"around_seq,omitempty" jsonschema:"read a window around this entry (a snippet's seq)"`
	Context      *int   `json:"context,omitempty" jsonschema:"entries on each side of around_seq, 0 to 49 (default 5)"`
	Limit        int    `json:"limit,omitempty" jsonschema:"entries per page, 1 to 100"`
	Conversation bool   `json:"conversation,omitempty" jsonschema:"only user and assistant messages"`
	Seq          int64  `json:"seq,omitempty" jsonschema:"read this one entry whole, in pages (see offset)"`
	Offset       int    `json:"offset,omitempty" jsonschema:"with seq: the byte offset to continue the entry from (its next_offset)"`
}

// EntryLine is one entry of a read answer.
type EntryLine struct {
	Seq     int64  `json:"seq"`
	Kind    string `json:"kind"`
	Time    string `json:"time,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	// Text is the entry's content (message, reasoning, tool arguments and result), cut in the
	// middle when long; in overview mode the start of the message only.
	Text string `json:"text,omitempty"`
	// Cut is set when Text was shortened; history_read with seq reads it whole.
	Cut bool `json:"cut,omitempty"`
}

// ReadOut is the structured answer of history_read.
type ReadOut struct {
	ID           string      `json:"id"`
	Title        string      `json:"title"`
	TotalEntries int64       `json:"total_entries"`
	Mode         string      `json:"mode"`
	Entries      []EntryLine `json:"entries"`
	HasMore      bool        `json:"has_more"`
	NextCursor   string      `json:"next_cursor,omitempty"`
	// One entry read whole (seq): where this part starts, where the next starts (0 at the
	// end) and the entry's whole size.
	Offset     int `json:"offset,omitempty"`
	NextOffset int `json:"next_offset,omitempty"`
	EntryBytes int `json:"entry_bytes,omitempty"`
	// Resource is the session's Markdown export as an MCP resource, for a client to fetch whole.
	Resource string `json:"resource"`
	Notice   string `json:"notice"`
}

func (ss *session) read(ctx context.Context, _ *sdk.CallToolRequest, in readIn) (*sdk.CallToolResult, *ReadOut, error) {
	sel, err := in.chat()
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	if in.Seq > 0 {
		return ss.readEntry(ctx, sel, in)
	}
	if in.Offset != 0 {
		return nil, nil, ss.fail(annals.Errorf(annals.EINVALID, "offset continues one entry and needs seq"))
	}
	p := annals.GetParams{Chat: sel, Limit: in.Limit, AroundSeq: in.AroundSeq, Context: in.Context}
	if in.Conversation {
		p.Format = annals.FormatConversation
	}
	if n, ok := strings.CutPrefix(in.Cursor, "after:"); ok {
		seq, err := strconv.ParseInt(n, 10, 64)
		if err != nil || seq < 0 {
			return nil, nil, ss.fail(annals.Errorf(annals.EINVALID, "cursor %.40q is not one history_read gave (use next_cursor as it came)", in.Cursor))
		}
		p.AfterSeq = seq
	} else {
		p.Cursor = in.Cursor
	}
	view, err := ss.svc.GetChat(ss.as(ctx), p)
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	out := &ReadOut{ID: view.Chat.ID, Title: inert(oneLine(titleOf(view.Chat), lineBytes)), TotalEntries: view.Chat.Totals.Entries, Mode: "full", Resource: ChatURI(view.Chat.ID), Notice: notice}
	if in.Mode == "overview" {
		out.Mode = "overview"
	}
	// A long field gets at most a quarter of the page, so one huge tool result cannot crowd out
	// the turns around it; the first entry of a page may take what the page has.
	fieldCap := max(ss.budget/8, 512)
	lines := make([]EntryLine, len(view.Entries))
	for i, e := range view.Entries {
		lines[i] = ss.entryLine(out.ID, e, out.Mode, fieldCap)
	}
	lo, hi := ss.fitEntries(out, lines, windowCentre(view.Entries, in.AroundSeq))
	out.Entries = lines[lo:hi]
	if len(out.Entries) == 1 && !ss.fits(renderRead(out), out) {
		ss.shrinkEntry(out, view.Entries[lo])
	}
	if hi < len(lines) || view.HasMore {
		out.HasMore = true
		out.NextCursor = view.NextCursor
		if hi > 0 && (hi < len(lines) || view.NextCursor == "") {
			out.NextCursor = "after:" + strconv.FormatInt(lines[hi-1].Seq, 10)
		}
	}
	return textResult(renderRead(out)), out, nil
}

// entryLine is one entry as a read answer shows it: in overview mode the start of its message
// and never a tool's payload; in full mode its whole content, cut in the middle past limit.
func (ss *session) entryLine(chatID string, e *annals.Entry, mode string, limit int) EntryLine {
	l := EntryLine{Seq: e.Seq, Kind: string(e.Kind), Time: stamp(e.Time)}
	if e.Tool != nil {
		l.Tool, l.Outcome = e.Tool.Name, string(e.Tool.Outcome)
	}
	if mode == "overview" {
		if e.Tool == nil {
			l.Text = inert(oneLine(e.Text, 100))
		}
		return l
	}
	body := entryBody(e)
	text := middle(body, limit, call("history_read", map[string]any{"id": chatID, "seq": e.Seq}))
	l.Text, l.Cut = inert(text), len(text) < len(body)
	return l
}

// windowCentre is the index of the entry a window was asked around (-1 for a page): the
// window grows outward from it, so the entry asked for is always on the page.
func windowCentre(entries []*annals.Entry, around int64) int {
	if around <= 0 {
		return -1
	}
	for i, e := range entries {
		if e.Seq >= around {
			return i
		}
	}
	return len(entries) - 1
}

// fitEntries is the range of lines the budget holds: a prefix for a page, or a range grown
// outward from centre for a window. At least one line.
func (ss *session) fitEntries(out *ReadOut, lines []EntryLine, centre int) (int, int) {
	if len(lines) == 0 {
		out.Entries = lines
		return 0, 0
	}
	fits := func(lo, hi int) bool {
		out.Entries = lines[lo:hi]
		return ss.fits(renderRead(out), out)
	}
	if centre < 0 {
		return 0, fitCount(len(lines), func(n int) bool { return fits(0, n) })
	}
	lo, hi := centre, centre+1
	for grew := true; grew; {
		grew = false
		if hi < len(lines) && fits(lo, hi+1) {
			hi, grew = hi+1, true
		}
		if lo > 0 && fits(lo-1, hi) {
			lo, grew = lo-1, true
		}
	}
	return lo, hi
}

// shrinkEntry cuts the one entry of a page until the page fits: a field of HTML or escape
// codes can cost several times its length on the wire.
func (ss *session) shrinkEntry(out *ReadOut, e *annals.Entry) {
	cut := fitCut(256, len(out.Entries[0].Text), func(n int) bool {
		out.Entries[0] = ss.entryLine(out.ID, e, out.Mode, n)
		return ss.fits(renderRead(out), out)
	})
	out.Entries[0] = ss.entryLine(out.ID, e, out.Mode, cut)
}

// readEntry reads one entry whole, a budget's worth at a time from Offset.
func (ss *session) readEntry(ctx context.Context, sel annals.ChatSelector, in readIn) (*sdk.CallToolResult, *ReadOut, error) {
	if in.Offset < 0 {
		return nil, nil, ss.fail(annals.Errorf(annals.EINVALID, "offset must not be negative"))
	}
	view, err := ss.svc.GetChat(ss.as(ctx), annals.GetParams{Chat: sel, AfterSeq: in.Seq - 1, Limit: 1})
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	if len(view.Entries) == 0 || view.Entries[0].Seq != in.Seq {
		return nil, nil, ss.fail(annals.Errorf(annals.ENOTFOUND, "session %s has no entry #%d (it has %d entries)", view.Chat.ID, in.Seq, view.Chat.Totals.Entries))
	}
	e := view.Entries[0]
	body := entryBody(e)
	if in.Offset > len(body) {
		return nil, nil, ss.fail(annals.Errorf(annals.EINVALID, "offset %d is past the end of entry #%d (%d bytes)", in.Offset, in.Seq, len(body)))
	}
	start := len(body) - validSuffix(body, len(body)-in.Offset) // a rune boundary at or after Offset
	out := &ReadOut{
		ID: view.Chat.ID, Title: inert(oneLine(titleOf(view.Chat), lineBytes)), TotalEntries: view.Chat.Totals.Entries, Mode: "entry",
		Offset: start, EntryBytes: len(body), Resource: ChatURI(view.Chat.ID), Notice: notice,
	}
	l := ss.entryLine(out.ID, e, "overview", 0)
	part := func(n int) {
		raw := cutValid(body[start:], n)
		l.Text = inert(raw)
		out.Entries = []EntryLine{l}
		out.NextOffset = 0
		if end := start + len(raw); end < len(body) {
			out.NextOffset = end
		}
	}
	n := fitCut(64, len(body)-start, func(n int) bool { part(n); return ss.fits(renderRead(out), out) })
	part(n)
	return textResult(renderRead(out)), out, nil
}

// renderRead is a read answer as the model reads it. The session id is the caller's (or the
// transcript's) text, so it goes inside the untrusted block with the title, never in the
// header or the hints, which say "the same call" instead.
func renderRead(out *ReadOut) string {
	var b strings.Builder
	var body strings.Builder
	fmt.Fprintf(&body, "session: %s\ntitle: %s\n", out.ID, out.Title)
	switch {
	case out.Mode == "entry":
		end := out.EntryBytes
		if out.NextOffset > 0 {
			end = out.NextOffset
		}
		fmt.Fprintf(&b, "history_read: one entry, #%d, bytes %d to %d of %d.\n", out.Entries[0].Seq, out.Offset, end, out.EntryBytes)
	case len(out.Entries) == 0:
		fmt.Fprintf(&b, "history_read: the session has no entries here (%d in all).\n", out.TotalEntries)
		b.WriteString(untrusted(strings.TrimRight(body.String(), "\n")))
		return b.String()
	default:
		fmt.Fprintf(&b, "history_read (%s): entries #%d to #%d of %d.\n", out.Mode, out.Entries[0].Seq, out.Entries[len(out.Entries)-1].Seq, out.TotalEntries)
	}
	for _, e := range out.Entries {
		l := fmt.Sprintf("#%d %s", e.Seq, e.Kind)
		if e.Tool != "" {
			l += " " + e.Tool
			if e.Outcome != "" {
				l += " (" + e.Outcome + ")"
			}
		}
		if e.Time != "" {
			l += " · " + e.Time
		}
		if e.Text != "" {
			if out.Mode == "overview" {
				l += ": " + e.Text
			} else {
				l += "\n" + e.Text
			}
		}
		body.WriteString(l + "\n")
	}
	b.WriteString(untrusted(strings.TrimRight(body.String(), "\n")))
	switch {
	case out.NextOffset > 0:
		fmt.Fprintf(&b, "\nThe entry goes on: the same call (same id and seq %d) with offset %d.", out.Entries[0].Seq, out.NextOffset)
	case out.HasMore:
		mode := ""
		if out.Mode == "overview" {
			mode = ", mode overview"
		}
		fmt.Fprintf(&b, "\nMore entries: the same call (same id%s) with cursor %q.", mode, out.NextCursor)
	}
	return b.String()
}
