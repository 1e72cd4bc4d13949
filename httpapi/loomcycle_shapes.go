package httpapi

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// The answers of POST /v1/_history, under the loomcycle History tool's field names.

// loomcycleChatPrefix starts the id of every chat the loomcycle importer made (importer.ChatID of
// the format "loomcycle"): the reference's session s_x is the chat loomcycle:s_x.
const loomcycleChatPrefix = "loomcycle:"

// clientID is how an answer names a chat: an imported loomcycle session by the id its client
// knows, any other chat by its own id.
func clientID(chatID string) string {
	if s, ok := strings.CutPrefix(chatID, loomcycleChatPrefix); ok && s != "" {
		return s
	}
	return chatID
}

// lcChatRow is one chat of list, search and related: the reference's session summary. The
// aggregates are the chat's totals: runs, their cost, and tokens (see docs/HTTP.md for tokens
// recorded outside runs).
type lcChatRow struct {
	SessionID    string           `json:"session_id"`
	TenantID     string           `json:"tenant_id"`
	Agent        string           `json:"agent"`
	UserID       string           `json:"user_id,omitempty"`
	CreatedAt    time.Time        `json:"created_at"`
	LastActivity time.Time        `json:"last_activity"`
	RunCount     int64            `json:"run_count"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	Tags         []string         `json:"tags,omitempty"`
	Pinned       bool             `json:"pinned,omitempty"`
	Archived     bool             `json:"archived,omitempty"`
	Summary      string           `json:"summary,omitempty"`
	InputTokens  int64            `json:"input_tokens"`
	OutputTokens int64            `json:"output_tokens"`
	Cost         float64          `json:"cost"`
	Status       annals.RunStatus `json:"status,omitempty"`
}

func chatRow(c *annals.Chat) lcChatRow {
	return lcChatRow{
		SessionID: clientID(c.ID), TenantID: c.TenantID, Agent: c.AgentID, UserID: c.UserID,
		CreatedAt: c.CreatedAt, LastActivity: c.LastActivity, RunCount: c.Totals.Runs,
		Title: c.Title, Description: c.Description, Tags: c.Tags, Pinned: c.Pinned, Archived: c.ArchivedAt != nil,
		Summary: c.Summary, InputTokens: c.Totals.InputTokens, OutputTokens: c.Totals.OutputTokens,
		Cost: c.Totals.CostUSD, Status: c.Status,
	}
}

// lcChatMeta is the chat of get, the curate ops and recap: the reference's chat metadata, which
// carries neither last activity nor status.
type lcChatMeta struct {
	SessionID    string    `json:"session_id"`
	TenantID     string    `json:"tenant_id,omitempty"`
	Agent        string    `json:"agent,omitempty"`
	UserID       string    `json:"user_id,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	Title        string    `json:"title,omitempty"`
	Description  string    `json:"description,omitempty"`
	Tags         []string  `json:"tags,omitempty"`
	Pinned       bool      `json:"pinned,omitempty"`
	Archived     bool      `json:"archived,omitempty"`
	Summary      string    `json:"summary,omitempty"`
	RunCount     int64     `json:"run_count"`
	InputTokens  int64     `json:"input_tokens"`
	OutputTokens int64     `json:"output_tokens"`
	Cost         float64   `json:"cost"`
}

func chatMeta(c *annals.Chat) *lcChatMeta {
	return &lcChatMeta{
		SessionID: clientID(c.ID), TenantID: c.TenantID, Agent: c.AgentID, UserID: c.UserID, CreatedAt: c.CreatedAt,
		Title: c.Title, Description: c.Description, Tags: c.Tags, Pinned: c.Pinned, Archived: c.ArchivedAt != nil,
		Summary: c.Summary, RunCount: c.Totals.Runs, InputTokens: c.Totals.InputTokens,
		OutputTokens: c.Totals.OutputTokens, Cost: c.Totals.CostUSD,
	}
}

// LoomcycleList is the answer of list and search.
type LoomcycleList struct {
	Scope  string      `json:"scope"`
	Chats  []lcChatRow `json:"chats"`
	Total  int         `json:"total"`
	Limit  int         `json:"limit"`
	Offset int         `json:"offset"`
}

// LoomcycleChat is the answer of rename, annotate, pin and archive.
type LoomcycleChat struct {
	Scope string      `json:"scope"`
	Chat  *lcChatMeta `json:"chat"`
}

// LoomcycleRecap is the answer of recap.
type LoomcycleRecap struct {
	Scope   string      `json:"scope"`
	Summary string      `json:"summary"`
	Chat    *lcChatMeta `json:"chat"`
}

// LoomcycleGet is the answer of get: the structured transcript, or (format markdown or
// conversation) the format echoed and the Markdown. HasMore and NextCursor are set only when
// the client paged with annals's cursor or after_seq.
type LoomcycleGet struct {
	Scope      string           `json:"scope"`
	Chat       *lcChatMeta      `json:"chat"`
	Transcript []LoomcycleEvent `json:"transcript,omitempty"`
	Format     string           `json:"format,omitempty"`
	Markdown   *string          `json:"markdown,omitempty"`
	HasMore    *bool            `json:"has_more,omitempty"`
	NextCursor string           `json:"next_cursor,omitempty"`
}

// LoomcycleEvent is one event of a transcript, in the reference's shape.
type LoomcycleEvent struct {
	Seq     int64           `json:"seq"`
	RunID   string          `json:"run_id"`
	TS      string          `json:"ts"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// LoomcycleResume is the answer of resume.
type LoomcycleResume struct {
	Scope  string         `json:"scope"`
	Resume lcResumeHandle `json:"resume"`
}

type lcResumeHandle struct {
	SessionID    string `json:"session_id"`
	Agent        string `json:"agent,omitempty"`
	TenantID     string `json:"tenant_id,omitempty"`
	UserID       string `json:"user_id,omitempty"`
	Status       string `json:"status,omitempty"`
	LastActivity string `json:"last_activity"`
	Hint         string `json:"hint"`
}

// LoomcycleRelated is the answer of related: SourceSessionID for a by-chat search, Query for a
// free-text one.
type LoomcycleRelated struct {
	Scope           string         `json:"scope"`
	Related         []lcRelatedRow `json:"related"`
	Count           int            `json:"count"`
	SourceSessionID string         `json:"source_session_id,omitempty"`
	Query           string         `json:"query,omitempty"`
}

// lcRelatedRow is a chat row with its similarity, flat, as the reference embeds the summary.
type lcRelatedRow struct {
	lcChatRow
	Score float64 `json:"score"`
}

// transcriptEvent renders an entry as the reference's event: the event type a loomcycle run
// records for that kind of step, and a payload in that event's shape.
func transcriptEvent(e *annals.Entry) LoomcycleEvent {
	ev := LoomcycleEvent{Seq: e.Seq, RunID: clientRunID(e.RunID), TS: e.Time.UTC().Format(time.RFC3339Nano)}
	text := func(t string) json.RawMessage { return mustJSON(map[string]string{"text": t}) }
	switch e.Kind {
	case annals.KindUser:
		ev.Type = "user_input"
		ev.Payload = mustJSON([]map[string]any{{"role": "user", "content": []map[string]string{{"type": "text", "text": e.Text}}}})
	case annals.KindAssistant:
		ev.Type, ev.Payload = "text", text(e.Text)
		switch {
		case e.Text == "" && e.Reasoning != "":
			ev.Type, ev.Payload = "thinking", text(e.Reasoning)
		case e.Reasoning != "":
			// One entry holds what the reference streams as thinking deltas and then text
			// deltas; one event per entry keeps the reasoning beside the text, not dropped.
			ev.Payload = mustJSON(map[string]string{"text": e.Text, "reasoning": e.Reasoning})
		}
	case annals.KindTool:
		ev.Type, ev.Payload = "tool_call", toolPayload(e.Tool)
	case annals.KindSystem:
		ev.Type, ev.Payload = "system", text(e.Text)
	default:
		ev.Type = strings.TrimPrefix(e.Channel, "loomcycle/")
		if ev.Type == "" {
			ev.Type = string(e.Kind)
		}
		ev.Payload = eventPayload(e)
	}
	return ev
}

// eventPayload is the payload of an entry kept as an event. For one the loomcycle importer
// made, it is the payload as loomcycle stored it: the importer keeps the payload's fields in
// metadata ("payload") and its text (or error, or message) as the entry's text, so the text is
// put back beside them unless a field already holds it. Otherwise the entry's text stands for
// the payload: as JSON when it is JSON, else as {"text"}.
func eventPayload(e *annals.Entry) json.RawMessage {
	if strings.HasPrefix(e.Channel, "loomcycle/") {
		var meta struct {
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(e.Metadata, &meta) == nil && len(meta.Payload) > 0 && string(meta.Payload) != "null" {
			var fields map[string]json.RawMessage
			if json.Unmarshal(meta.Payload, &fields) != nil {
				return meta.Payload // stored as a JSON value other than an object
			}
			if e.Text != "" && !holdsText(fields, e.Text) {
				fields["text"] = mustJSON(e.Text)
			}
			return mustJSON(fields)
		}
	}
	if t := strings.TrimSpace(e.Text); t != "" && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	} else if e.Text != "" {
		return mustJSON(map[string]string{"text": e.Text})
	}
	return nil
}

// holdsText reports whether the payload's error or message field is text, where the importer
// took the entry's text from when the payload had no text of its own.
func holdsText(fields map[string]json.RawMessage, text string) bool {
	for _, k := range []string{"error", "message"} {
		var s string
		if json.Unmarshal(fields[k], &s) == nil && s == text {
			return true
		}
	}
	return false
}

// clientRunID names a run as its client knows it: the loomcycle importer's run ids carry the
// same prefix as its chats.
func clientRunID(id string) string { return clientID(id) }

// toolPayload is a tool step as a loomcycle tool_call event carries it ({tool_use: {id, name,
// input}}), with the call's result and outcome beside it: annals keeps a call and its result as
// one entry, where the reference records a second tool_result event.
func toolPayload(t *annals.ToolCall) json.RawMessage {
	if t == nil {
		return nil
	}
	use := map[string]any{"id": t.CallID, "name": t.Name}
	if len(t.Arguments) > 0 && json.Valid(t.Arguments) {
		use["input"] = t.Arguments
	}
	p := map[string]any{"tool_use": use}
	if t.Result != "" {
		p["result"] = t.Result
	}
	if t.Outcome != "" {
		p["outcome"] = t.Outcome
	}
	return mustJSON(p)
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// conversationMarkdown is the reference's format:"conversation" rendering: the user turns and
// the assistant's replies alone, each "### <speaker>\n\n<text>\n\n", nothing else. An assistant
// turn runs until the next user message, tool call or loomcycle done event (the end of a model
// call, which the reference ends a turn at), its segments joined as the reference joins
// streamed text.
func conversationMarkdown(entries []*annals.Entry) string {
	var b, asst strings.Builder
	flush := func() {
		if t := strings.TrimSpace(asst.String()); t != "" {
			b.WriteString("### assistant\n\n" + t + "\n\n")
		}
		asst.Reset()
	}
	for _, e := range entries {
		switch e.Kind {
		case annals.KindUser:
			flush()
			if t := strings.TrimSpace(e.Text); t != "" {
				b.WriteString("### user\n\n" + t + "\n\n")
			}
		case annals.KindAssistant:
			asst.WriteString(e.Text)
		case annals.KindTool:
			flush()
		case annals.KindEvent:
			if e.Channel == "loomcycle/done" {
				flush()
			}
		}
	}
	flush()
	return b.String()
}
