package annals

import (
	"encoding/json"
	"time"
)

// EntryKind is what an entry is.
type EntryKind string

// Entry kinds.
const (
	KindUser      EntryKind = "user"      // a user message
	KindAssistant EntryKind = "assistant" // an assistant text segment
	KindTool      EntryKind = "tool"      // a tool call with its arguments, result and outcome
	KindSystem    EntryKind = "system"    // a system note (prompt, compaction summary, warning)
	KindEvent     EntryKind = "event"     // any other event on a channel
)

// EntryKinds lists every valid entry kind.
var EntryKinds = []EntryKind{KindUser, KindAssistant, KindTool, KindSystem, KindEvent}

// ParseEntryKind validates s as an entry kind.
func ParseEntryKind(s string) (EntryKind, error) {
	for _, k := range EntryKinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", Errorf(EINVALID, "unknown entry kind %q (want one of: %s)", s, joinStrings(EntryKinds))
}

// Outcome is how a tool call ended.
type Outcome string

// Tool outcomes.
const (
	OutcomeSucceeded Outcome = "succeeded"
	OutcomeFailed    Outcome = "failed"
	OutcomeBlocked   Outcome = "blocked"
	OutcomeCancelled Outcome = "cancelled"
)

// Outcomes lists every valid tool outcome.
var Outcomes = []Outcome{OutcomeSucceeded, OutcomeFailed, OutcomeBlocked, OutcomeCancelled}

// ParseOutcome validates s as a tool outcome.
func ParseOutcome(s string) (Outcome, error) {
	for _, o := range Outcomes {
		if string(o) == s {
			return o, nil
		}
	}
	return "", Errorf(EINVALID, "unknown tool outcome %q (want one of: %s)", s, joinStrings(Outcomes))
}

// Entry is one item of a chat's flat transcript.
type Entry struct {
	ChatID string `json:"chat_id"`
	// ID is the client id: unique within its chat, the key that makes appends idempotent.
	ID string `json:"id"`
	// Seq is the 1-based position in the transcript, assigned by the store, contiguous.
	Seq  int64     `json:"seq"`
	Kind EntryKind `json:"kind"`
	// RunID optionally names the run that produced the entry.
	RunID string `json:"run_id,omitempty"`
	// SourceIDs are the upstream message ids the entry came from; a truncation (rewind) may
	// name one of them.
	SourceIDs []string `json:"source_ids,omitempty"`
	// Channel is the event type, prefix-matchable on whole segments (in/agent/main/x).
	Channel       string    `json:"channel,omitempty"`
	CorrelationID string    `json:"correlation_id,omitempty"`
	Time          time.Time `json:"time"`

	// Text is the message text (user, assistant, system, event).
	Text string `json:"text,omitempty"`
	// Reasoning is the model's recorded reasoning, kept apart from Text.
	Reasoning string `json:"reasoning,omitempty"`
	// Tool is set for tool entries only.
	Tool *ToolCall `json:"tool,omitempty"`

	InputTokens  int64 `json:"input_tokens,omitempty"`
	OutputTokens int64 `json:"output_tokens,omitempty"`
	// Metadata is a free JSON object for whatever the source carried that has no field here.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// The metadata keys a tool entry may carry about its call's timing, which a viewer turns into
// the call's duration (the web UI's tool lines and groups): MetaResultTime is when the result
// arrived (RFC 3339, the call's own time being Entry.Time), MetaDurationMS how long the call ran
// in milliseconds when the source recorded that instead.
const (
	MetaResultTime = "result_time"
	MetaDurationMS = "duration_ms"
)

// ToolCall is the tool part of a tool entry.
type ToolCall struct {
	Name   string `json:"name"`
	CallID string `json:"call_id,omitempty"`
	// Arguments is the call's JSON arguments (an object, usually).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    string          `json:"result,omitempty"`
	Outcome   Outcome         `json:"outcome,omitempty"`
}

// Size is the number of bytes of content the entry carries, the quantity bounded by
// MaxEntryBytes.
func (e *Entry) Size() int {
	n := len(e.Text) + len(e.Reasoning) + len(e.Metadata)
	if e.Tool != nil {
		n += len(e.Tool.Name) + len(e.Tool.CallID) + len(e.Tool.Arguments) + len(e.Tool.Result)
	}
	return n
}

// TruncatePoint names where a rewind starts: the entry with this client id, or the first entry
// carrying this source id, or this seq. Exactly one must be set. That entry and every entry after
// it are removed.
type TruncatePoint struct {
	EntryID  string `json:"entry_id,omitempty"`
	SourceID string `json:"source_id,omitempty"`
	Seq      int64  `json:"seq,omitempty"`
}

// AppendResult reports what an append did.
type AppendResult struct {
	// Appended is how many entries were new; Skipped how many were already stored (same id).
	Appended int `json:"appended"`
	Skipped  int `json:"skipped"`
	// LastSeq is the chat's highest seq after the append.
	LastSeq int64 `json:"last_seq"`
}

// TruncateResult reports what a truncation removed.
type TruncateResult struct {
	Removed int   `json:"removed"`
	LastSeq int64 `json:"last_seq"`
}

// EntryFilter selects entries of one chat, in seq order.
type EntryFilter struct {
	ChatID string
	// Ref, when set, binds the read to the chat its caller checked: entries come back only while
	// the chat with ChatID has Ref's owner and incarnation, in the same query (an empty page
	// otherwise), so a chat deleted and created again by someone else is never read in its place.
	Ref *ChatRef
	// AfterSeq returns entries with seq > AfterSeq.
	AfterSeq int64
	// FromSeq/ToSeq bound seq inclusively when non-zero.
	FromSeq int64
	ToSeq   int64
	// Kinds, when set, keeps only entries of these kinds.
	Kinds []EntryKind
	// Limit caps the page; 0 means all.
	Limit int
}
