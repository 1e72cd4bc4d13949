package annals

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
	"unicode/utf8"
)

// The read-only history view (the lanius-style POST /query) asks the store for five things:
// agents, sessions, a transcript page, a conversation and a filtered search. Every request
// carries the Owner, applied inside the store's SQL WHERE, so nothing outside the caller's
// scope is read, counted or used to fill a page.

// View limits. Each is a hard bound a store enforces even for a caller that skipped the
// queryview package, and the queryview answers report the effective value.
const (
	// ViewMaxAgents bounds the agents answer; ViewMaxAgentSessions the sessions listed per agent
	// and the unlinked sessions.
	// They are far above what one owner's history holds, because the reference lists every
	// agent and session unbounded and its clients expect the whole list.
	ViewMaxAgents        = 10000
	ViewMaxAgentSessions = 10000

	// ViewDefaultSessions is the reference's own page of sessions (LIMIT 500).
	ViewDefaultSessions     = 500
	ViewMaxSessions         = 1000
	ViewDefaultTranscript   = 80
	ViewMaxTranscript       = 200
	ViewDefaultConversation = 200
	ViewMaxConversation     = 1000
	// ViewDefaultSearch is the reference's page (PAGE_DEFAULT 80).
	ViewDefaultSearch = 80
	ViewMaxSearch     = 200
	// ViewDefaultEvents is the reference's conversation cap (500 events, then truncated).
	ViewDefaultEvents = 500
	ViewMaxEvents     = 1000

	// ViewMaxContentChars is the most characters of one content field (text, reasoning, tool
	// arguments, tool result) an answer carries; a longer field is replaced by a truncation
	// marker with its first ViewMaxContentChars characters as preview.
	ViewMaxContentChars = 16 << 10
	// ViewMaxToolNameChars bounds tool names and call ids: they are identifiers, so a longer one
	// is cut rather than marked.
	ViewMaxToolNameChars = 1024

	// ViewMaxChannels and ViewMaxWords bound a search filter so one request cannot build an
	// arbitrarily large statement.
	ViewMaxChannels = 64
	ViewMaxWords    = 32
	// ViewMaxSubstringChars bounds a search's substring, for the same reason.
	ViewMaxSubstringChars = 1024
)

// ViewAgentChannelPrefix is the channel prefix that links an entry, and so its chat, to an agent
// noun: the segment after it (in/agent/<noun>/...).
const ViewAgentChannelPrefix = "in/agent/"

// ViewAgentsFilter asks for the agent nouns in scope.
type ViewAgentsFilter struct {
	Owner Owner
	// MaxAgents and MaxSessions bound the answer; 0 or more than ViewMaxAgents /
	// ViewMaxAgentSessions means that maximum.
	MaxAgents   int
	MaxSessions int
	// ExcludeAttribute, when set, leaves out the chats carrying that attribute (any value).
	ExcludeAttribute string
}

// ViewAgent is one agent noun and its sessions, most recent activity first.
type ViewAgent struct {
	Agent             string   `json:"agent"`
	Sessions          []string `json:"sessions"`
	SessionsTruncated bool     `json:"sessions_truncated"`
}

// ViewAgents is the agents answer of a store. Agents are ordered by their most recent session
// activity, newest first, then by noun.
type ViewAgents struct {
	Agents          []ViewAgent
	AgentsTruncated bool
	// Unlinked are the chats with no agent id and no entry on an in/agent/<noun> channel, most
	// recent activity first, at most MaxSessions of them.
	Unlinked          []string
	UnlinkedTruncated bool
}

// ViewSessionsFilter asks for chats in scope, most recent activity first.
type ViewSessionsFilter struct {
	Owner Owner
	// Agent, when set, keeps the chats linked to that agent noun: the chat's agent id is the noun,
	// or one of its entries is on the channel in/agent/<noun> or below it.
	Agent *string
	// Limit: 0 means ViewDefaultSessions, more than ViewMaxSessions means ViewMaxSessions.
	Limit int
	// ExcludeAttribute, when set, leaves out the chats carrying that attribute (any value).
	ExcludeAttribute string
}

// ViewSession is one chat with its entry-derived timestamps and counters.
type ViewSession struct {
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
	// importer names them among an entry's source ids (ViewSourceEventPrefix): what the
	// reference's event_count counts for the sessions it holds.
	SourceEvents int64 `json:"source_events"`
}

// ViewSourceEventPrefix starts the source id that names the upstream event an entry was carried
// by, when the system it was imported from records one (lanius's messages.event_id): "event:"
// followed by that event's id. Several entries may name the same event.
const ViewSourceEventPrefix = "event:"

// MarshalJSON writes the session under annals's names and the reference's (first_ts, last_ts,
// message_count, event_count), its times in FormatViewTime's fixed precision. event_count is the
// events behind the session: its own event and system entries and the distinct upstream events
// its imported entries came from.
func (s ViewSession) MarshalJSON() ([]byte, error) {
	type plain ViewSession
	at := func(t *time.Time) *string {
		if t == nil {
			return nil
		}
		v := FormatViewTime(*t)
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
	}{plain(s), FormatViewTime(s.CreatedAt), FormatViewTime(s.LastActivity), at(s.FirstAt), at(s.LastAt), at(s.FirstAt), at(s.LastAt), s.Messages, s.Events + s.SourceEvents})
}

// ViewSessionList is one bounded page of sessions.
type ViewSessionList struct {
	Sessions []ViewSession
	// HasMore reports that more chats matched than the limit.
	HasMore bool
}

// ViewSelect is the projection applied to every message of a page. The zero value keeps
// everything, each content field capped at ViewMaxContentChars.
type ViewSelect struct {
	// OmitToolCalls drops the call half of tool entries: the tool name and arguments. The call
	// id, result and outcome stay.
	OmitToolCalls bool
	// OmitReasoning strips recorded reasoning.
	OmitReasoning bool
	// DropToolRows leaves tool entries out of the page entirely, in SQL, so the page still fills
	// to its limit from the rows that remain.
	DropToolRows bool
	// ResultChars, when set, caps tool results at that many characters (0 keeps only the
	// truncation marker with the length); it never raises the ViewMaxContentChars cap.
	ResultChars *int
}

// ViewPosition is a place in the total order of entries (time, chat id, seq): the keyset that
// search and conversation pages continue from.
type ViewPosition struct {
	Time   time.Time
	ChatID string
	Seq    int64
}

// ViewTranscriptFilter asks for a page of one chat's entries, paging backwards.
type ViewTranscriptFilter struct {
	Owner  Owner
	ChatID string
	// BeforeSeq, when positive, keeps entries with a smaller seq; 0 starts at the newest entry.
	BeforeSeq int64
	Select    ViewSelect
	// Limit: 0 means ViewDefaultTranscript, more than ViewMaxTranscript means ViewMaxTranscript.
	Limit int
}

// ViewConversationFilter asks for the entries sharing a correlation id, in every chat in scope,
// ordered by time, then chat id, then seq.
type ViewConversationFilter struct {
	Owner         Owner
	CorrelationID string
	// After, when set, continues after that position.
	After  *ViewPosition
	Select ViewSelect
	// Limit: 0 means ViewDefaultConversation, more than ViewMaxConversation means
	// ViewMaxConversation.
	Limit int
}

// ViewEventsFilter asks for the event entries (kind event) sharing a correlation id, in every
// chat in scope, in capture order: the order the store received them, which for an imported
// ledger is the ledger's own order.
type ViewEventsFilter struct {
	Owner         Owner
	CorrelationID string
	// After, when set, continues after that entry (its ChatID and Seq; Time is not used).
	After *ViewPosition
	// Limit: 0 means ViewDefaultEvents, more than ViewMaxEvents means ViewMaxEvents.
	Limit int
}

// ViewEvent is one event entry as the view reads it.
type ViewEvent struct {
	Session     string
	Seq         int64
	Channel     string
	Correlation string
	CreatedAt   time.Time
	// Text is the entry's text (an imported event's payload as stored), capped at
	// ViewMaxContentChars.
	Text ViewText
	// Metadata is the entry's metadata JSON, nil when it has none or when it is longer than
	// ViewMaxContentChars (it is then not read at all).
	Metadata json.RawMessage
}

// ViewEventPage is one page of events.
type ViewEventPage struct {
	Events  []ViewEvent
	HasMore bool
	// Next is the page's last event when HasMore is set.
	Next *ViewPosition
}

// FormatViewTime writes a view time in UTC with a fixed number of fraction digits: three when
// the time has no finer part (lanius stores milliseconds, "...19.950Z", never "...19.95Z"),
// nine otherwise. Fixed widths keep string order equal to time order among times of the same
// precision, which is what a client comparing the strings relies on.
func FormatViewTime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()%int(time.Millisecond) == 0 {
		return t.Format("2006-01-02T15:04:05.000Z07:00")
	}
	return t.Format("2006-01-02T15:04:05.000000000Z07:00")
}

// ViewFilter is a search of the view: entries in scope, newest first (time, then chat id, then
// seq, all descending). Every set field narrows the result; all of it is applied in SQL.
type ViewFilter struct {
	Owner Owner
	// Channels are channel prefixes matched on whole segments: "in/agent/main" matches that
	// channel and "in/agent/main/x", never "in/agent/mainframe". Values are literal; a trailing
	// "/" is ignored.
	Channels []string
	// AgentsOnly keeps entries of chats linked to an agent: the chat has an agent id, or one of
	// its entries is on a channel in/agent/<noun>/... (the chats the agents answer lists under
	// some agent, as opposed to its unlinked ones).
	AgentsOnly bool
	// AgentChannelOnly keeps entries that are themselves on an agent channel in/agent/<noun>
	// [/...] with a non-empty noun: the reference's involvement "agent", which tests the type of
	// the event that carried each message.
	AgentChannelOnly bool
	// Roles keeps entries of these kinds.
	Roles []EntryKind
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
	After  *ViewPosition
	Select ViewSelect
	// Limit: 0 means ViewDefaultSearch, more than ViewMaxSearch means ViewMaxSearch.
	Limit int
}

// ViewPage is one page of messages.
type ViewPage struct {
	Messages []ViewMessage
	// HasMore reports that more rows follow the page in its order.
	HasMore bool
	// Next is where the following page continues when HasMore is set, nil otherwise: the last
	// message in the page's order (for a transcript, read backwards, its oldest message).
	Next *ViewPosition
}

// ViewMessage is one entry as the view shows it.
type ViewMessage struct {
	// ID is the entry's seq: unique within its session, so (session, id) names a message.
	ID          int64       `json:"id"`
	Session     string      `json:"session"`
	Role        EntryKind   `json:"role"`
	Channel     string      `json:"channel"`
	Correlation string      `json:"correlation"`
	CreatedAt   time.Time   `json:"created_at"`
	Content     ViewContent `json:"content"`
	// EventID is the id of the event that carried the message in the store it was imported
	// from (the reference's messages.event_id), nil when there is none.
	EventID *int64 `json:"event_id"`
	// Metadata is the entry's metadata JSON, for the view's own reading; nil when it has none or
	// when it is longer than ViewMaxContentChars (it is then not read whole). Never encoded.
	Metadata json.RawMessage `json:"-"`
}

// MarshalJSON writes the message with its time in FormatViewTime's fixed precision, and its
// channel also as the reference's event_type (the type of the event that carried it; null when
// none did).
func (m ViewMessage) MarshalJSON() ([]byte, error) {
	type plain ViewMessage
	var eventType *string
	if m.Channel != "" {
		eventType = &m.Channel
	}
	return json.Marshal(struct {
		plain
		CreatedAt string  `json:"created_at"`
		EventType *string `json:"event_type"`
	}{plain(m), FormatViewTime(m.CreatedAt), eventType})
}

// ViewContent is a message's content after projection and size capping.
type ViewContent struct {
	// Role repeats the message's role, as the reference's stored content does.
	Role      EntryKind `json:"role"`
	Text      ViewText  `json:"text"`
	Reasoning *ViewText `json:"reasoning,omitempty"`
	Tool      *ViewTool `json:"tool,omitempty"`
	// ToolCalls are an assistant message's calls in the reference's shape: the tool entries
	// that directly follow it (see ViewStore.ViewToolCalls), when the view attached them.
	ToolCalls []ViewCall `json:"tool_calls,omitempty"`
	// Stored, when set, is written instead of everything above: the content as the store it was
	// imported from answers it (a value that is no object, or that store's marker for content
	// over its size cap), so a client of that store reads what it always read.
	Stored json.RawMessage `json:"-"`
}

// MarshalJSON writes the content; a tool message also carries its call id, tool name and result
// under the reference's names (tool_call_id, name, content), as its stored tool rows do. A cut
// result is, under those names, what the reference's truncation makes of it: the kept
// characters followed by "…", and truncated_to, their number.
func (c ViewContent) MarshalJSON() ([]byte, error) {
	type plain ViewContent
	if len(c.Stored) > 0 {
		return c.Stored, nil
	}
	if c.Tool == nil {
		return json.Marshal(plain(c))
	}
	r := c.Tool.Result
	content, cut := r.Value, (*int)(nil)
	if r.Truncated {
		n := utf8.RuneCountInString(r.Value)
		content, cut = r.Value+"…", &n
	}
	return json.Marshal(struct {
		plain
		ToolCallID  string `json:"tool_call_id"`
		Name        string `json:"name,omitempty"`
		Content     string `json:"content"`
		TruncatedTo *int   `json:"truncated_to,omitempty"`
	}{plain(c), c.Tool.CallID, c.Tool.Name, content, cut})
}

// ViewCall is one tool call of an assistant message, under the reference's names.
type ViewCall struct {
	CallID    string    `json:"call_id"`
	Name      string    `json:"fn_name"`
	Arguments *ViewJSON `json:"fn_arguments"`
}

// ViewRef names one message: its chat and seq.
type ViewRef struct {
	ChatID string
	Seq    int64
}

// ViewMaxCallsPerMessage bounds the tool entries that count as one message's calls.
const ViewMaxCallsPerMessage = 64

// ViewToolCallsFilter asks for the calls of some messages.
type ViewToolCallsFilter struct {
	Owner Owner
	// Messages are at most ViewMaxSearch messages.
	Messages []ViewRef
}

// ViewTool is the tool part of a tool message.
type ViewTool struct {
	// Name and Arguments are absent when the projection omits tool calls.
	Name      string    `json:"name,omitempty"`
	CallID    string    `json:"call_id,omitempty"`
	Arguments *ViewJSON `json:"arguments,omitempty"`
	Result    ViewText  `json:"result"`
	Outcome   Outcome   `json:"outcome,omitempty"`
}

// ViewText is a content string that may have been cut. On the wire it is the plain string, or,
// when cut, {"truncated": true, "chars": <full length>, "preview": <first characters>}.
type ViewText struct {
	// Value is the whole string, or its preview when Truncated.
	Value     string
	Truncated bool
	// Chars is the full length in characters (Unicode code points) when Truncated. For a value
	// holding a NUL character SQLite cannot count characters, and Chars is its length in bytes.
	Chars int64
}

type viewTruncated struct {
	Truncated bool   `json:"truncated"`
	Chars     int64  `json:"chars"`
	Preview   string `json:"preview"`
}

// MarshalJSON writes the string, or the truncation marker.
func (t ViewText) MarshalJSON() ([]byte, error) {
	if t.Truncated {
		return json.Marshal(viewTruncated{Truncated: true, Chars: t.Chars, Preview: t.Value})
	}
	return json.Marshal(t.Value)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *ViewText) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*t = ViewText{}
		return json.Unmarshal(b, &t.Value)
	}
	var m viewTruncated
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*t = ViewText{Value: m.Preview, Truncated: m.Truncated, Chars: m.Chars}
	return nil
}

// ViewJSON is a JSON content value (tool arguments) that may have been cut. On the wire it is
// the JSON value itself, or, when cut, the same truncation marker as ViewText with the first
// characters of its JSON text as preview.
type ViewJSON struct {
	// Raw is the whole value, or nil when Truncated.
	Raw       json.RawMessage
	Truncated bool
	Chars     int64
	Preview   string
}

// MarshalJSON writes the value, or the truncation marker.
func (j ViewJSON) MarshalJSON() ([]byte, error) {
	if j.Truncated {
		return json.Marshal(viewTruncated{Truncated: true, Chars: j.Chars, Preview: j.Preview})
	}
	if len(j.Raw) == 0 {
		return []byte("null"), nil
	}
	return j.Raw, nil
}

// UnmarshalJSON reads what MarshalJSON writes. A JSON object that is exactly a truncation
// marker is read as one.
func (j *ViewJSON) UnmarshalJSON(b []byte) error {
	var m viewTruncated
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) && dec.Decode(&m) == nil && m.Truncated {
		*j = ViewJSON{Truncated: true, Chars: m.Chars, Preview: m.Preview}
		return nil
	}
	*j = ViewJSON{Raw: append(json.RawMessage(nil), b...)}
	return nil
}

// ViewStore answers the read-only history view. Every method applies its filter's Owner inside
// SQL WHERE: rows outside it are never read, counted or used to fill a page.
type ViewStore interface {
	// ViewAgents returns the agent nouns in scope — chat agent ids and the <noun> of entry
	// channels in/agent/<noun>/... — each with its sessions, and the unlinked sessions.
	// Errors: unavailable, internal.
	ViewAgents(ctx context.Context, f ViewAgentsFilter) (*ViewAgents, error)

	// ViewSessions returns chats in scope, most recent activity first, then id.
	// Errors: invalid (negative limit, empty agent), unavailable, internal.
	ViewSessions(ctx context.Context, f ViewSessionsFilter) (*ViewSessionList, error)

	// ViewTranscript returns a page of one chat's entries, oldest first within the page, the
	// page being the newest entries before BeforeSeq. Next carries the page's oldest entry.
	// Errors: invalid (negative limit or seq), not_found (no such chat, or outside Owner: the
	// same opaque NotFound), unavailable, internal.
	ViewTranscript(ctx context.Context, f ViewTranscriptFilter) (*ViewPage, error)

	// ViewConversation returns the entries in scope sharing a correlation id, ordered by time,
	// then chat id, then seq.
	// Errors: invalid (empty correlation id, negative limit), unavailable, internal.
	ViewConversation(ctx context.Context, f ViewConversationFilter) (*ViewPage, error)

	// ViewToolCalls returns, for each given message in scope, the tool entries that directly
	// follow it in its chat (no other entry between, at most ViewMaxCallsPerMessage), in order:
	// an assistant message's calls. Messages with none, or outside Owner, are absent.
	// Errors: invalid (too many messages), unavailable, internal.
	ViewToolCalls(ctx context.Context, f ViewToolCallsFilter) (map[ViewRef][]ViewCall, error)

	// ViewEvents returns the event entries in scope sharing a correlation id, in capture order.
	// Errors: invalid (empty correlation id, negative limit), unavailable, internal.
	ViewEvents(ctx context.Context, f ViewEventsFilter) (*ViewEventPage, error)

	// ViewSearch returns the entries in scope matching the filter, newest first (time, chat id,
	// seq, descending).
	// Errors: invalid (an empty channel or word, an unknown role, too many channels or words,
	// a substring over ViewMaxSubstringChars, Since after Until, a negative limit), unavailable,
	// internal.
	ViewSearch(ctx context.Context, f ViewFilter) (*ViewPage, error)
}
