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
	ID           string `json:"id" jsonschema:"the session id (from history_search or history_list)"`
	Mode         string `json:"mode,omitempty" jsonschema:"full (default): entries with their text, long fields cut in the middle; overview: one short line per entry and no tool payloads"`
	Cursor       string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
	AroundSeq    int64  `json:"around_seq,omitempty" jsonschema:"read a window around this entry (a snippet's seq)"`
	Context      *int   `json:"context,omitempty" jsonschema:"entries on each side of around_seq, 0 to 100 (default 5)"`
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
	Offset     int    `json:"offset,omitempty"`
	NextOffset int    `json:"next_offset,omitempty"`
	EntryBytes int    `json:"entry_bytes,omitempty"`
	Notice     string `json:"notice"`
}

func (ss *session) read(ctx context.Context, _ *sdk.CallToolRequest, in readIn) (*sdk.CallToolResult, *ReadOut, error) {
	if in.Seq > 0 {
		return ss.readEntry(ctx, in)
	}
	if in.Offset != 0 {
		return nil, nil, fmt.Errorf("invalid: offset continues one entry and needs seq")
	}
	p := annals.GetParams{Chat: annals.ChatSelector{ID: in.ID}, Limit: in.Limit, AroundSeq: in.AroundSeq, Context: in.Context}
	if in.Conversation {
		p.Format = annals.FormatConversation
	}
	if n, ok := strings.CutPrefix(in.Cursor, "after:"); ok {
		seq, err := strconv.ParseInt(n, 10, 64)
		if err != nil || seq < 0 {
			return nil, nil, fmt.Errorf("invalid: cursor %q is not one history_read gave", in.Cursor)
		}
		p.AfterSeq = seq
	} else {
		p.Cursor = in.Cursor
	}
	view, err := ss.svc.GetChat(ss.as(ctx), p)
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	out := &ReadOut{ID: view.Chat.ID, Title: oneLine(titleOf(view.Chat), lineBytes), TotalEntries: view.Chat.Totals.Entries, Mode: "full", Entries: []EntryLine{}, Notice: notice}
	if in.Mode == "overview" {
		out.Mode = "overview"
	}
	b := budget{left: ss.budget/2 - len(out.Title) - 200}
	// A long field gets at most a quarter of the page, so one huge tool result cannot crowd out
	// the turns around it.
	fieldCap := max(b.left/4, 512)
	for i, e := range view.Entries {
		l := EntryLine{Seq: e.Seq, Kind: string(e.Kind)}
		if !e.Time.IsZero() {
			l.Time = e.Time.UTC().Format("2006-01-02T15:04:05Z")
		}
		if e.Tool != nil {
			l.Tool, l.Outcome = e.Tool.Name, string(e.Tool.Outcome)
		}
		if out.Mode == "overview" {
			if e.Tool == nil {
				l.Text = oneLine(e.Text, 100)
			}
		} else {
			body := entryBody(e)
			limit := fieldCap
			if i == 0 {
				limit = max(min(b.left-100, len(body)), 512) // the first entry always shows
			}
			l.Text = middle(body, limit, call("history_read", map[string]any{"id": out.ID, "seq": e.Seq}))
			l.Cut = len(l.Text) < len(body)
		}
		if !b.take(len(l.Text)+len(l.Tool)+80) && i > 0 {
			out.HasMore, out.NextCursor = true, "after:"+strconv.FormatInt(view.Entries[i-1].Seq, 10)
			break
		}
		out.Entries = append(out.Entries, l)
	}
	if out.NextCursor == "" && view.HasMore {
		out.HasMore = true
		if view.NextCursor != "" {
			out.NextCursor = view.NextCursor
		} else if n := len(out.Entries); n > 0 {
			out.NextCursor = "after:" + strconv.FormatInt(out.Entries[n-1].Seq, 10)
		}
	}
	return textResult(renderRead(out)), out, nil
}

// readEntry reads one entry whole, a budget's worth at a time from Offset.
func (ss *session) readEntry(ctx context.Context, in readIn) (*sdk.CallToolResult, *ReadOut, error) {
	if in.Offset < 0 {
		return nil, nil, fmt.Errorf("invalid: offset must not be negative")
	}
	view, err := ss.svc.GetChat(ss.as(ctx), annals.GetParams{Chat: annals.ChatSelector{ID: in.ID}, AfterSeq: in.Seq - 1, Limit: 1})
	if err != nil {
		return nil, nil, ss.fail(err)
	}
	if len(view.Entries) == 0 || view.Entries[0].Seq != in.Seq {
		return nil, nil, fmt.Errorf("not found: session %s has no entry #%d (it has %d entries)", in.ID, in.Seq, view.Chat.Totals.Entries)
	}
	e := view.Entries[0]
	body := entryBody(e)
	if in.Offset > len(body) {
		return nil, nil, fmt.Errorf("invalid: offset %d is past the end of entry #%d (%d bytes)", in.Offset, in.Seq, len(body))
	}
	start := len(body) - validSuffix(body, len(body)-in.Offset) // a rune boundary at or after Offset
	part := cutValid(body[start:], ss.budget/2-400)
	out := &ReadOut{
		ID: view.Chat.ID, Title: oneLine(titleOf(view.Chat), lineBytes), TotalEntries: view.Chat.Totals.Entries, Mode: "entry",
		Offset: start, EntryBytes: len(body), Notice: notice,
	}
	l := EntryLine{Seq: e.Seq, Kind: string(e.Kind), Text: part}
	if e.Tool != nil {
		l.Tool, l.Outcome = e.Tool.Name, string(e.Tool.Outcome)
	}
	if !e.Time.IsZero() {
		l.Time = e.Time.UTC().Format("2006-01-02T15:04:05Z")
	}
	out.Entries = []EntryLine{l}
	if end := start + len(part); end < len(body) {
		out.NextOffset = end
	}
	return textResult(renderRead(out)), out, nil
}

func renderRead(out *ReadOut) string {
	var b strings.Builder
	switch {
	case out.Mode == "entry":
		fmt.Fprintf(&b, "history_read: session %s, entry #%d, bytes %d to %d of %d.\n", out.ID, out.Entries[0].Seq, out.Offset, out.Offset+len(out.Entries[0].Text), out.EntryBytes)
	case len(out.Entries) == 0:
		fmt.Fprintf(&b, "history_read: session %s has no entries here (%d in all).", out.ID, out.TotalEntries)
		return b.String()
	default:
		fmt.Fprintf(&b, "history_read (%s): session %s, entries #%d to #%d of %d.\n", out.Mode, out.ID, out.Entries[0].Seq, out.Entries[len(out.Entries)-1].Seq, out.TotalEntries)
	}
	var body strings.Builder
	fmt.Fprintf(&body, "title: %s\n", out.Title)
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
		fmt.Fprintf(&b, "\nThe entry goes on: %s", call("history_read", map[string]any{"id": out.ID, "seq": out.Entries[0].Seq, "offset": out.NextOffset}))
	case out.HasMore:
		fmt.Fprintf(&b, "\nMore entries: the same call with cursor %q.", out.NextCursor)
	}
	return b.String()
}
