// Package view is the read-only history view behind the lanius-style POST /query: its limits,
// the filters and pages a store answers (Store) and the scoped operations the history service
// offers over them (Service), and the wire form of its messages. It imports only the root, so
// stores, the history service and the queryview codec can all share it.
package view

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/annals-dev/annals"
)

// The read-only history view (the lanius-style POST /query) asks the store for five things:
// agents, sessions, a transcript page, a conversation and a filtered search. Every request
// carries the Owner, applied inside the store's SQL WHERE, so nothing outside the caller's
// scope is read, counted or used to fill a page. The Owner comes from the history service
// (Service), which resolves it from the caller's principal and the scope asked for.

// View limits. Each is a hard bound a store enforces even for a caller that skipped the
// queryview package, and the queryview answers report the effective value.
const (
	// MaxAgents bounds the agents answer; MaxAgentSessions the sessions listed per agent
	// and the unlinked sessions.
	// They are far above what one owner's history holds, because the reference lists every
	// agent and session unbounded and its clients expect the whole list.
	MaxAgents        = 10000
	MaxAgentSessions = 10000

	// DefaultSessions is the reference's own page of sessions (LIMIT 500).
	DefaultSessions     = 500
	MaxSessions         = 1000
	DefaultTranscript   = 80
	MaxTranscript       = 200
	DefaultConversation = 200
	MaxConversation     = 1000
	// DefaultSearch is the reference's page (PAGE_DEFAULT 80).
	DefaultSearch = 80
	MaxSearch     = 200
	// DefaultEvents is the reference's conversation cap (500 events, then truncated).
	DefaultEvents = 500
	MaxEvents     = 1000

	// MaxContentChars is the most characters of one content field (text, reasoning, tool
	// arguments, tool result) an answer carries; a longer field is replaced by a truncation
	// marker with its first MaxContentChars characters as preview.
	MaxContentChars = 16 << 10
	// MaxToolNameChars bounds tool names and call ids: they are identifiers, so a longer one
	// is cut rather than marked.
	MaxToolNameChars = 1024

	// MaxChannels and MaxWords bound a search filter so one request cannot build an
	// arbitrarily large statement. MaxChannels is the reference's own bound (20 type prefixes),
	// which refuses more.
	MaxChannels = 20
	MaxWords    = 32
	// MaxSubstringChars bounds a search's substring, for the same reason.
	MaxSubstringChars = 1024
)

// AgentChannelPrefix is the channel prefix that links an entry, and so its chat, to an agent
// noun: the segment after it (in/agent/<noun>/...).
const AgentChannelPrefix = "in/agent/"

// AgentsFilter asks for the agent nouns in scope.
type AgentsFilter struct {
	Owner annals.Owner
	// MaxAgents and MaxSessions bound the answer; 0 or more than MaxAgents /
	// MaxAgentSessions means that maximum.
	MaxAgents   int
	MaxSessions int
	// ExcludeAttribute, when set, leaves out the chats carrying that attribute (any value).
	ExcludeAttribute string
}

// Agent is one agent noun and its sessions, most recent activity first.
type Agent struct {
	Agent             string   `json:"agent"`
	Sessions          []string `json:"sessions"`
	SessionsTruncated bool     `json:"sessions_truncated"`
}

// Agents is the agents answer of a store. Agents are ordered by their most recent session
// activity, newest first, then by noun.
type Agents struct {
	Agents          []Agent
	AgentsTruncated bool
	// Unlinked are the chats with no agent id and no entry on an in/agent/<noun> channel, most
	// recent activity first, at most MaxSessions of them.
	Unlinked          []string
	UnlinkedTruncated bool
}

// SessionsFilter asks for chats in scope, most recent activity first.
type SessionsFilter struct {
	Owner annals.Owner
	// Agent, when set, keeps the chats linked to that agent noun: the chat's agent id is the noun,
	// or one of its entries is on the channel in/agent/<noun> or below it.
	Agent *string
	// Limit: 0 means DefaultSessions, more than MaxSessions means MaxSessions.
	Limit int
	// ExcludeAttribute, when set, leaves out the chats carrying that attribute (any value).
	ExcludeAttribute string
}

// Session is one chat with its entry-derived timestamps and counters.
type Session struct {
	ID           string    `json:"session"`
	AgentID      string    `json:"agent,omitempty"`
	Title        string    `json:"title,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	LastActivity time.Time `json:"last_activity"`
	// FirstAt and LastAt are the times of the chat's first and last entries; nil for a chat
	// without entries.
	FirstAt *time.Time `json:"first_at"`
	LastAt  *time.Time `json:"last_at"`
	// Messages counts user, assistant and tool entries; Events counts system and event entries.
	Messages int64 `json:"messages"`
	Events   int64 `json:"events"`
	// SourceEvents counts the distinct upstream events the chat's entries came from, as an
	// importer names them among an entry's source ids (SourceEventPrefix): what the
	// reference's event_count counts for the sessions it holds.
	SourceEvents int64 `json:"source_events"`
}

// SourceEventPrefix starts the source id that names the upstream event an entry was carried
// by, when the system it was imported from records one (lanius's messages.event_id): "event:"
// followed by that event's id. Several entries may name the same event.
const SourceEventPrefix = "event:"

// MarshalJSON writes the session under annals's names and the reference's (first_ts, last_ts,
// message_count, event_count), its times in FormatTime's fixed precision. event_count is the
// events behind the session: its own event and system entries and the distinct upstream events
// its imported entries came from.
func (s Session) MarshalJSON() ([]byte, error) {
	type plain Session
	at := func(t *time.Time) *string {
		if t == nil {
			return nil
		}
		v := FormatTime(*t)
		return &v
	}
	return json.Marshal(struct {
		plain
		CreatedAt    string  `json:"created_at"`
		LastActivity string  `json:"last_activity"`
		FirstAt      *string `json:"first_at"`
		LastAt       *string `json:"last_at"`
		FirstTS      *string `json:"first_ts"`
		LastTS       *string `json:"last_ts"`
		MessageCount int64   `json:"message_count"`
		EventCount   int64   `json:"event_count"`
	}{plain(s), FormatTime(s.CreatedAt), FormatTime(s.LastActivity), at(s.FirstAt), at(s.LastAt), at(s.FirstAt), at(s.LastAt), s.Messages, s.Events + s.SourceEvents})
}

// SessionList is one bounded page of sessions.
type SessionList struct {
	Sessions []Session
	// HasMore reports that more chats matched than the limit.
	HasMore bool
}

// Select is the projection applied to every message of a page. The zero value keeps
// everything, each content field capped at MaxContentChars.
type Select struct {
	// OmitToolCalls drops the call half of tool entries: the tool name and arguments. The call
	// id, result and outcome stay.
	OmitToolCalls bool
	// OmitReasoning strips recorded reasoning.
	OmitReasoning bool
	// DropToolRows leaves tool entries out of the page entirely, in SQL, so the page still fills
	// to its limit from the rows that remain.
	DropToolRows bool
	// ResultChars, when set, caps tool results at that many characters (0 keeps only the
	// truncation marker with the length); it never raises the MaxContentChars cap.
	ResultChars *int
}

// Position is a place in the total order of entries (time, chat id, seq): the keyset that
// search and conversation pages continue from.
type Position struct {
	Time   time.Time
	ChatID string
	Seq    int64
}

// TranscriptFilter asks for a page of one chat's entries, paging backwards.
type TranscriptFilter struct {
	Owner  annals.Owner
	ChatID string
	// BeforeSeq, when positive, keeps entries with a smaller seq; 0 starts at the newest entry.
	BeforeSeq int64
	Select    Select
	// Limit: 0 means DefaultTranscript, more than MaxTranscript means MaxTranscript.
	Limit int
	// Calls gives every assistant message of the page its calls (Content.ToolCalls), the ones
	// ViewToolCalls answers for it, read with the page: the page's own tool rows are most of
	// them, so the store reads only the entries of the range the page does not hold. Ignored
	// when Select.OmitToolCalls (the page then holds no call's fields).
	Calls bool
}

// ConversationFilter asks for the entries sharing a correlation id, in every chat in scope,
// ordered by time, then chat id, then seq.
type ConversationFilter struct {
	Owner         annals.Owner
	CorrelationID string
	// After, when set, continues after that position.
	After  *Position
	Select Select
	// Limit: 0 means DefaultConversation, more than MaxConversation means
	// MaxConversation.
	Limit int
	// ExcludeAttribute, when set, leaves out the entries of chats carrying that attribute (the
	// query view's ledger, whose events it answers apart).
	ExcludeAttribute string
}

// EventsFilter asks for the event entries (kind event) sharing a correlation id, in every
// chat in scope, in capture order: the order the store received them, which for an imported
// ledger is the ledger's own order.
type EventsFilter struct {
	Owner         annals.Owner
	CorrelationID string
	// After, when set, continues after that entry (its ChatID and Seq; Time is not used).
	After *Position
	// Limit: 0 means DefaultEvents, more than MaxEvents means MaxEvents.
	Limit int
}

// Event is one event entry as the view reads it.
type Event struct {
	Session     string
	Seq         int64
	Channel     string
	Correlation string
	CreatedAt   time.Time
	// Text is the entry's text (an imported event's payload as stored), capped at
	// MaxContentChars.
	Text Text
	// Metadata is the entry's metadata JSON, nil when it has none or when it is longer than
	// MaxContentChars (it is then not read at all).
	Metadata json.RawMessage
}

// EventPage is one page of events.
type EventPage struct {
	Events  []Event
	HasMore bool
	// Next is the page's last event when HasMore is set.
	Next *Position
}

// FormatTime writes a view time in UTC with a fixed number of fraction digits: three when
// the time has no finer part (lanius stores milliseconds, "...19.950Z", never "...19.95Z"),
// nine otherwise. Fixed widths keep string order equal to time order among times of the same
// precision, which is what a client comparing the strings relies on.
func FormatTime(t time.Time) string {
	var b [40]byte
	return string(AppendTime(b[:0], t))
}

// AppendTime appends t as FormatTime writes it, without its layout parsing (a conversation's 500
// events each carry a time; issue 32). Years outside 0..9999 take time.Format's own form.
func AppendTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		if t.Nanosecond()%int(time.Millisecond) == 0 {
			return t.AppendFormat(dst, "2006-01-02T15:04:05.000Z07:00")
		}
		return t.AppendFormat(dst, "2006-01-02T15:04:05.000000000Z07:00")
	}
	hour, minute, sec := t.Clock()
	dst = appendDigits(dst, year, 4)
	dst = appendDigits(append(dst, '-'), int(month), 2)
	dst = appendDigits(append(dst, '-'), day, 2)
	dst = appendDigits(append(dst, 'T'), hour, 2)
	dst = appendDigits(append(dst, ':'), minute, 2)
	dst = appendDigits(append(dst, ':'), sec, 2)
	if ns := t.Nanosecond(); ns%int(time.Millisecond) == 0 {
		dst = appendDigits(append(dst, '.'), ns/int(time.Millisecond), 3)
	} else {
		dst = appendDigits(append(dst, '.'), ns, 9)
	}
	return append(dst, 'Z')
}

// appendDigits appends v (not negative) in exactly width decimal digits, zeros first.
func appendDigits(dst []byte, v, width int) []byte {
	n := len(dst) + width
	dst = append(dst, make([]byte, width)...)
	for i := n - 1; i >= n-width; i-- {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
	return dst
}

// Filter is a search of the view: entries in scope, newest first (time, then chat id, then
// seq, all descending). Every set field narrows the result; all of it is applied in SQL.
type Filter struct {
	Owner annals.Owner
	// Channels are channel prefixes matched on whole segments: "in/agent/main" matches that
	// channel and "in/agent/main/x", never "in/agent/mainframe". Values are literal and taken as
	// given: a trailing "/" is part of the prefix, and "" finds the channels starting with "/".
	Channels []string
	// AgentsOnly keeps entries of chats linked to an agent: the chat has an agent id, or one of
	// its entries is on a channel in/agent/<noun>/... (the chats the agents answer lists under
	// some agent, as opposed to its unlinked ones).
	AgentsOnly bool
	// AgentChannelOnly keeps entries that are themselves on a channel starting with in/agent/
	// (ASCII letters in either case: IN/AGENT/MAIN/x too): the reference's involvement "agent",
	// which tests the type of the event that carried each message with LIKE 'in/agent/%'.
	AgentChannelOnly bool
	// Roles keeps entries of these kinds.
	Roles []annals.EntryKind
	// Words are literal words that must all occur (in text, reasoning, tool name, arguments or
	// result), matched through the full-text index, never read as query syntax.
	Words []string
	// Substring, when not empty, must occur in the text, reasoning, tool name, arguments or
	// result of the entry (in one of them, not across two): SQL LIKE's match, so ASCII letters
	// match either case and every other character only itself, and %, _ and \ are ordinary
	// characters. A substring of three characters or more is looked up in a trigram index.
	Substring string
	// Since and Until bound the entry time, inclusively.
	Since *time.Time
	Until *time.Time
	// ExcludeAttribute, when set, leaves out the entries of chats carrying that attribute.
	ExcludeAttribute string
	// After, when set, continues after that position (older entries).
	After  *Position
	Select Select
	// Limit: 0 means DefaultSearch, more than MaxSearch means MaxSearch.
	Limit int
}

// Page is one page of messages.
type Page struct {
	Messages []Message
	// HasMore reports that more rows follow the page in its order.
	HasMore bool
	// Next is where the following page continues when HasMore is set, nil otherwise: the last
	// message in the page's order (for a transcript, read backwards, its oldest message).
	Next *Position
}

// Message is one entry as the view shows it.
type Message struct {
	// ID is the entry's seq: unique within its session, so (session, id) names a message.
	ID          int64            `json:"id"`
	Session     string           `json:"session"`
	Role        annals.EntryKind `json:"role"`
	Channel     string           `json:"channel"`
	Correlation string           `json:"correlation"`
	CreatedAt   time.Time        `json:"created_at"`
	Content     Content          `json:"content"`
	// EventID is the id of the event that carried the message in the store it was imported
	// from (the reference's messages.event_id), nil when there is none.
	EventID *int64 `json:"event_id"`
	// Metadata is the entry's metadata JSON, for the view's own reading; nil when it has none or
	// when it is longer than MaxContentChars (it is then not read whole). Never encoded.
	Metadata json.RawMessage `json:"-"`
}

// Content is a message's content after projection and size capping.
type Content struct {
	// Role repeats the message's role, as the reference's stored content does.
	Role      annals.EntryKind `json:"role"`
	Text      Text             `json:"text"`
	Reasoning *Text            `json:"reasoning,omitempty"`
	Tool      *Tool            `json:"tool,omitempty"`
	// ToolCalls are an assistant message's calls in the reference's shape: the tool entries
	// that directly follow it (see Store.ViewToolCalls), when the view attached them.
	ToolCalls []Call `json:"tool_calls,omitempty"`
	// Stored, when set, is written instead of everything above: the content as the store it was
	// imported from answers it (a value that is no object, or that store's marker for content
	// over its size cap), so a client of that store reads what it always read.
	Stored json.RawMessage `json:"-"`
}

// Call is one tool call of an assistant message, under the reference's names.
type Call struct {
	CallID    string `json:"call_id"`
	Name      string `json:"fn_name"`
	Arguments *JSON  `json:"fn_arguments"`
}

// LocateFilter asks where the entry carrying a source id is: in one chat when ChatID is set,
// else in any chat in scope.
type LocateFilter struct {
	Owner    annals.Owner
	ChatID   string
	SourceID string
}

// Ref names one message: its chat and seq.
type Ref struct {
	ChatID string
	Seq    int64
}

// MaxCallsPerMessage bounds the tool entries that count as one message's calls.
const MaxCallsPerMessage = 64

// ToolCallsFilter asks for the calls of some messages.
type ToolCallsFilter struct {
	Owner annals.Owner
	// Messages are at most MaxSearch messages.
	Messages []Ref
}

// Tool is the tool part of a tool message.
type Tool struct {
	// Name and Arguments are absent when the projection omits tool calls.
	Name      string         `json:"name,omitempty"`
	CallID    string         `json:"call_id,omitempty"`
	Arguments *JSON          `json:"arguments,omitempty"`
	Result    Text           `json:"result"`
	Outcome   annals.Outcome `json:"outcome,omitempty"`
	// TruncatedTo, when set, is written as the truncated_to of a cut result instead of the
	// number of characters kept: the truncate the client gave, as the reference echoes it.
	TruncatedTo json.RawMessage `json:"-"`
}

// Text is a content string that may have been cut. On the wire it is the plain string, or,
// when cut, {"truncated": true, "chars": <full length>, "preview": <first characters>}.
type Text struct {
	// Value is the whole string, or its preview when Truncated.
	Value     string
	Truncated bool
	// Chars is the full length in characters (Unicode code points) when Truncated. For a value
	// holding a NUL character SQLite cannot count characters, and Chars is its length in bytes.
	Chars int64
}

// truncated is the truncation marker, for reading it back (UnmarshalJSON).
type truncated struct {
	Truncated bool   `json:"truncated"`
	Chars     int64  `json:"chars"`
	Preview   string `json:"preview"`
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Text) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*t = Text{}
		return json.Unmarshal(b, &t.Value)
	}
	var m truncated
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*t = Text{Value: m.Preview, Truncated: m.Truncated, Chars: m.Chars}
	return nil
}

// JSON is a JSON content value (tool arguments) that may have been cut. On the wire it is
// the JSON value itself, or, when cut, the same truncation marker as Text with the first
// characters of its JSON text as preview.
type JSON struct {
	// Raw is the whole value, or nil when Truncated.
	Raw       json.RawMessage
	Truncated bool
	Chars     int64
	Preview   string
}

// UnmarshalJSON reads what MarshalJSON writes. A JSON object that is exactly a truncation
// marker is read as one.
func (j *JSON) UnmarshalJSON(b []byte) error {
	var m truncated
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) && dec.Decode(&m) == nil && m.Truncated {
		*j = JSON{Truncated: true, Chars: m.Chars, Preview: m.Preview}
		return nil
	}
	*j = JSON{Raw: append(json.RawMessage(nil), b...)}
	return nil
}
