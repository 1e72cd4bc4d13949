package view

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// A message's wire form is built as one tree of plain values and encoded in one pass: no value
// under it has a MarshalJSON of its own, because encoding/json validates and compacts again
// whatever a MarshalJSON returns, once per level (a transcript page of 80 messages, ~300 KB, was
// compacted three times over, a quarter of its CPU; issue 32).

// MarshalJSON writes the message with its time in FormatTime's fixed precision, and its
// channel also as the reference's event_type (the type of the event that carried it; null when
// none did).
func (m Message) MarshalJSON() ([]byte, error) { return json.Marshal(m.wire()) }

// MarshalJSON writes the content; a tool message also carries its call id, tool name and result
// under the reference's names (tool_call_id, name, content), as its stored tool rows do. A cut
// result is, under those names, what the reference's truncation makes of it: the kept
// characters followed by "…", and truncated_to, their number.
func (c Content) MarshalJSON() ([]byte, error) { return json.Marshal(c.wire()) }

// wireMessage is Message on the wire, its fields in the order they have always been written.
type wireMessage struct {
	ID          int64            `json:"id"`
	Session     string           `json:"session"`
	Role        annals.EntryKind `json:"role"`
	Channel     string           `json:"channel"`
	Correlation string           `json:"correlation"`
	Content     any              `json:"content"`
	EventID     *int64           `json:"event_id"`
	CreatedAt   string           `json:"created_at"`
	EventType   *string          `json:"event_type"`
}

func (m Message) wire() wireMessage {
	var eventType *string
	if m.Channel != "" {
		eventType = &m.Channel
	}
	return wireMessage{ID: m.ID, Session: m.Session, Role: m.Role, Channel: m.Channel, Correlation: m.Correlation,
		Content: m.Content.wire(), EventID: m.EventID, CreatedAt: FormatTime(m.CreatedAt), EventType: eventType}
}

// wireContent is Content on the wire; the tool fields under the reference's names follow.
type wireContent struct {
	Role      annals.EntryKind `json:"role"`
	Text      any              `json:"text"`
	Reasoning any              `json:"reasoning,omitempty"`
	Tool      *wireTool        `json:"tool,omitempty"`
	ToolCalls []wireCall       `json:"tool_calls,omitempty"`
}

type wireToolContent struct {
	wireContent
	ToolCallID  string          `json:"tool_call_id"`
	Name        string          `json:"name,omitempty"`
	Content     string          `json:"content"`
	TruncatedTo json.RawMessage `json:"truncated_to,omitempty"`
}

type wireTool struct {
	Name      string         `json:"name,omitempty"`
	CallID    string         `json:"call_id,omitempty"`
	Arguments any            `json:"arguments,omitempty"`
	Result    any            `json:"result"`
	Outcome   annals.Outcome `json:"outcome,omitempty"`
}

type wireCall struct {
	CallID    string `json:"call_id"`
	Name      string `json:"fn_name"`
	Arguments any    `json:"fn_arguments"`
}

// wire is the content's wire value: the stored content as it is, or the plain tree.
func (c Content) wire() any {
	if len(c.Stored) > 0 {
		return c.Stored
	}
	w := wireContent{Role: c.Role, Text: c.Text.wire()}
	if c.Reasoning != nil {
		w.Reasoning = c.Reasoning.wire()
	}
	for _, call := range c.ToolCalls {
		w.ToolCalls = append(w.ToolCalls, wireCall{CallID: call.CallID, Name: call.Name, Arguments: call.Arguments.wire()})
	}
	if c.Tool == nil {
		return w
	}
	t := c.Tool
	w.Tool = &wireTool{Name: t.Name, CallID: t.CallID, Result: t.Result.wire(), Outcome: t.Outcome}
	if t.Arguments != nil {
		w.Tool.Arguments = t.Arguments.wire()
	}
	r := t.Result
	content, cut := r.Value, json.RawMessage(nil)
	if r.Truncated {
		content, cut = r.Value+"…", t.TruncatedTo
		if cut == nil {
			cut = json.RawMessage(strconv.Itoa(utf8.RuneCountInString(r.Value)))
		}
	}
	return wireToolContent{wireContent: w, ToolCallID: t.CallID, Name: t.Name, Content: content, TruncatedTo: cut}
}

// wire is Text's wire value: the string, or the truncation marker.
func (t Text) wire() any {
	if t.Truncated {
		return truncated{Truncated: true, Chars: t.Chars, Preview: t.Value}
	}
	return t.Value
}

// wire is JSON's wire value (a nil *JSON is null): the value, or the truncation marker.
func (j *JSON) wire() any {
	switch {
	case j == nil:
		return nil
	case j.Truncated:
		return truncated{Truncated: true, Chars: j.Chars, Preview: j.Preview}
	case len(j.Raw) == 0:
		return json.RawMessage("null")
	}
	return j.Raw
}
