package loomcycle

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// The events of a loomcycle run, as its recording emit path writes them: the payload of every
// event is the JSON of the runtime's providers.Event ({"type", "text"?, "tool_use"?: {"id",
// "name", "input"}, "is_error"?, "usage"?, "reasoning"?, ...}), except user_input, which is
// the []PromptSegment the caller posted ([{"role": "system"|"user", "content": [{"type":
// "trusted-text"|"untrusted-block"|"image", "text", ...}]}]). The assistant's text and
// thinking arrive as deltas, one event each; a model call ends with usage and done, and the
// tool results follow it. The mapping:
//
//	user_input          → a system entry for the system segments, a user entry for the rest
//	text, thinking      → one assistant entry per run of consecutive deltas (text, reasoning)
//	tool_call           → a tool entry (name, call id, arguments); tool_result lands on it by id
//	done                → its reasoning on the call's assistant entry when no thinking streamed;
//	                      the event itself is kept on loomcycle/done (the signature is dropped)
//	steer               → a user entry (an operator's message injected mid-turn)
//	context_compaction,
//	context_recap       → a system entry {"compaction": true} holding the summary
//	anything else       → an event on loomcycle/<type> with its payload as stored
//
// Payloads of the first schema this importer read ({"text"} messages, flat tool calls with
// tool_call_id results) go through loomcycle_legacy.go.

// lcMaxPayload bounds the payload an event entry keeps as metadata; a larger one is kept as
// cut text, marked so, rather than dropped by the entry size limit.
const lcMaxPayload = annals.MaxEntryBytes / 2

// lcBuilder turns one session's events, in order, into entries.
type lcBuilder struct {
	f       Loomcycle
	entries []*annals.Entry
	open    map[string]*annals.Entry // tool calls waiting for their result, by call id
	delta   *annals.Entry            // the assistant entry the current run of deltas extends
	turn    *annals.Entry            // the last assistant entry of the current model call
	thought bool                     // the current model call streamed thinking deltas
}

func newLCBuilder(f Loomcycle) *lcBuilder {
	return &lcBuilder{f: f, open: map[string]*annals.Entry{}}
}

// add maps one event.
func (b *lcBuilder) add(ev *lcEvent, payload string) {
	id := fmt.Sprintf("ev%d", ev.event)
	e := &annals.Entry{ID: id, Time: ev.when, SourceIDs: []string{id}}
	if ev.run != nil {
		e.RunID = b.f.runID(ev.run.id)
	}
	raw := strings.TrimSpace(payload)
	typ := strings.ToLower(ev.typ)
	p, perr := reader.DecodeObject([]byte(raw))
	if perr != nil {
		p = nil
	}
	if typ != "text" && typ != "thinking" {
		b.delta = nil
	}
	if !b.reference(e, typ, raw, p) {
		b.legacy(ev, e, raw, p)
	}
}

// provisional returns the session's first entry that a live run may still change, or nil: a
// tool call whose result has not come, or the assistant entry of a model call that has not
// ended (more deltas, or its done's reasoning, land on it). Call it after the last event.
func (b *lcBuilder) provisional(live map[string]bool) *annals.Entry {
	for _, e := range b.entries {
		if !live[e.RunID] {
			continue
		}
		if e == b.turn || e.Kind == annals.KindTool && e.Tool != nil && b.open[e.Tool.CallID] == e {
			return e
		}
	}
	return nil
}

// push appends an entry to the session's transcript.
func (b *lcBuilder) push(e *annals.Entry) {
	b.entries = append(b.entries, e)
	if e.Kind == annals.KindAssistant {
		b.turn = e
	}
}

// reference maps the event kinds and payload shapes loomcycle writes; false leaves the event
// to the legacy mapping.
func (b *lcBuilder) reference(e *annals.Entry, typ, raw string, p reader.JSONObject) bool {
	switch typ {
	case "user_input":
		return b.userInput(e, raw)
	case "text", "thinking":
		if p == nil || p.Raw("text") == nil {
			return false
		}
		b.deltas(e, typ, p)
	case "tool_call":
		if p.Obj("tool_use") == nil {
			return false
		}
		b.toolCall(e, p)
	case "tool_result":
		if p.Obj("tool_use") == nil {
			return false
		}
		b.toolResult(e, p)
	case "done":
		b.done(e, raw, p)
	case "steer":
		ui := p.Obj("user_input")
		if ui == nil {
			return false
		}
		e.Kind, e.Text = annals.KindUser, reader.ValidText(ui.Str("text"))
		e.Metadata = reader.SafeMeta(map[string]any{"steer": true, "payload": reader.Extras(ui, "text")})
		b.push(e)
	case "context_compaction", "context_recap":
		return b.compaction(e, typ, p)
	default:
		return false
	}
	return true
}

// deltas extends the current assistant entry with one text or thinking delta, or starts one.
func (b *lcBuilder) deltas(e *annals.Entry, typ string, p reader.JSONObject) {
	chunk := reader.ValidText(p.Str("text"))
	if typ == "thinking" {
		b.thought = true
	}
	if d := b.delta; d != nil && d.RunID == e.RunID {
		if typ == "thinking" {
			d.Reasoning += chunk
		} else {
			d.Text += chunk
		}
		if len(d.SourceIDs) < annals.MaxSourceIDs {
			d.SourceIDs = append(d.SourceIDs, e.ID)
		}
		return
	}
	e.Kind = annals.KindAssistant
	if typ == "thinking" {
		e.Reasoning = chunk
	} else {
		e.Text = chunk
	}
	e.Metadata = reader.SafeMeta(map[string]any{"payload": reader.Extras(p, "type", "text")})
	b.delta = e
	b.push(e)
}

// toolCall maps a tool_call {tool_use: {id, name, input}}.
func (b *lcBuilder) toolCall(e *annals.Entry, p reader.JSONObject) {
	tu := p.Obj("tool_use")
	e.Kind = annals.KindTool
	e.Tool = &annals.ToolCall{Name: reader.ToolName(tu.Str("name")), CallID: reader.SafeID(tu.Str("id"), annals.MaxIDBytes), Arguments: reader.CallArgs(tu.Raw("input"))}
	e.Metadata = reader.SafeMeta(map[string]any{"payload": reader.Extras(p, "type", "tool_use"), "tool_use": reader.Extras(tu, "id", "name", "input")})
	if e.Tool.CallID != "" {
		b.open[e.Tool.CallID] = e
	}
	b.push(e)
}

// toolResult lands a tool_result {tool_use: {id}, text, is_error} on its call, or keeps it as
// an orphan tool entry when no call of that id came before it.
func (b *lcBuilder) toolResult(e *annals.Entry, p reader.JSONObject) {
	tu := p.Obj("tool_use")
	callID := reader.SafeID(tu.Str("id"), annals.MaxIDBytes)
	res := reader.Truncated(reader.ValidText(p.Str("text")), annals.MaxEntryBytes/4)
	if res == "" {
		res = reader.ValidText(p.Str("error"))
	}
	outcome := annals.OutcomeSucceeded
	if p.Boolean("is_error") || p.Str("error") != "" {
		outcome = annals.OutcomeFailed
	}
	rest := reader.Extras(p, "type", "tool_use", "text", "is_error")
	if call := b.open[callID]; callID != "" && call != nil {
		// The result's own event and time stay on the call, next to what else it carried.
		call.Tool.Result, call.Tool.Outcome = res, outcome
		call.Metadata = reader.MergeMeta(call.Metadata, map[string]any{"result": rest, "result_event": e.ID, annals.MetaResultTime: e.Time.Format(time.RFC3339Nano)})
		delete(b.open, callID)
		return
	}
	e.Kind = annals.KindTool
	e.Tool = &annals.ToolCall{Name: reader.ToolName(tu.Str("name")), CallID: callID, Result: res, Outcome: outcome}
	e.Metadata = reader.SafeMeta(map[string]any{"orphan_result": true, "payload": rest, "tool_use": reader.Extras(tu, "id", "name")})
	b.push(e)
}

// done keeps the end of a model call as an event. Its reasoning (the whole trace, which
// thinking deltas already carried when they streamed) goes on the call's assistant entry; its
// signature is an opaque blob and is dropped.
func (b *lcBuilder) done(e *annals.Entry, raw string, p reader.JSONObject) {
	reasoning := reader.ValidText(p.Str("reasoning"))
	signed := p.Str("reasoning_signature") != ""
	if reasoning != "" && !b.thought {
		if t := b.turn; t != nil && t.Reasoning == "" {
			t.Reasoning = reasoning
		} else {
			r := &annals.Entry{ID: e.ID + "#reasoning", Time: e.Time, RunID: e.RunID, SourceIDs: e.SourceIDs, Kind: annals.KindAssistant, Reasoning: reasoning}
			b.push(r)
		}
	}
	if p != nil {
		// Never nil once decoded: a nil payload would be kept raw, signature and all.
		rest := reader.ExtraMap(p, "reasoning", "reasoning_signature")
		if rest == nil {
			rest = map[string]json.RawMessage{}
		}
		p = reader.JSONObject(rest)
	}
	b.event(e, "done", raw, p)
	if signed {
		e.Metadata = reader.MergeMeta(e.Metadata, map[string]any{"encrypted_reasoning": true})
	}
	b.turn, b.thought = nil, false
}

// compaction maps context_compaction {context_compaction: {summary}} and context_recap
// {context_recap: {recap}}: the summary that replaced the history before it.
func (b *lcBuilder) compaction(e *annals.Entry, typ string, p reader.JSONObject) bool {
	text := "summary"
	if typ == "context_recap" {
		text = "recap"
	}
	inner := p.Obj(typ)
	if inner == nil || inner.Raw(text) == nil {
		return false
	}
	e.Kind, e.Text = annals.KindSystem, reader.ValidText(inner.Str(text))
	e.Metadata = reader.SafeMeta(map[string]any{"compaction": true, "type": typ, "payload": reader.Extras(inner, text)})
	b.push(e)
	return true
}

// event keeps an event as it was stored, on loomcycle/<type>: its text (or error) as text, the
// rest of its payload as metadata. A payload too large for one entry keeps its head, marked as
// cut, with its size.
func (b *lcBuilder) event(e *annals.Entry, typ, raw string, p reader.JSONObject) {
	e.Kind = annals.KindEvent
	e.Channel = "loomcycle/" + reader.FirstNonEmpty(reader.SanitizeChannel(typ), "unknown")
	var payload json.RawMessage
	switch {
	case p != nil:
		e.Text = reader.ValidText(reader.FirstNonEmpty(p.Str("text"), p.Str("error"), p.Str("message")))
		if rest := reader.ExtraMap(p, "type", "text"); rest != nil {
			payload, _ = json.Marshal(rest)
		}
	case raw != "":
		payload, _ = reader.ScrubOpaque(reader.RawJSON(raw))
		if strings.HasPrefix(raw, `"`) || !json.Valid([]byte(raw)) {
			e.Text = reader.ValidText(reader.TextOf(payload))
		}
	}
	if len(payload) > lcMaxPayload {
		e.Metadata = reader.SafeMeta(map[string]any{"payload_truncated": true, "payload_bytes": len(payload), "payload_head": reader.Truncated(reader.ValidText(string(payload)), lcMaxPayload)})
	} else if payload != nil {
		e.Metadata = reader.SafeMeta(map[string]any{"payload": payload})
	}
	b.push(e)
}

// lcSegment is one segment of a user_input payload (loomcycle's loop.PromptSegment).
type lcSegment struct {
	Role    string `json:"role"`
	Content []struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		Kind      string `json:"kind"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"content"`
}

// userInput maps the segments a run was started with: the system segments (the agent's
// prompt) to a system entry, the others to the user's turn. An image is noted by its media
// type and size, not kept. false when the payload is not a list of segments.
func (b *lcBuilder) userInput(e *annals.Entry, raw string) bool {
	var segs []lcSegment
	if json.Unmarshal([]byte(raw), &segs) != nil || len(segs) == 0 {
		return false
	}
	b.turn, b.thought = nil, false
	var system, user []string
	var images []map[string]any
	var untrusted []string
	for _, seg := range segs {
		for _, c := range seg.Content {
			switch {
			case c.Type == "image":
				images = append(images, map[string]any{"media_type": c.MediaType, "bytes": len(c.Data)})
				continue
			case c.Type == "untrusted-block" && c.Kind != "":
				untrusted = append(untrusted, c.Kind)
			}
			if c.Text == "" {
				continue
			}
			if seg.Role == "system" {
				system = append(system, reader.ValidText(c.Text))
			} else {
				user = append(user, reader.ValidText(c.Text))
			}
		}
	}
	if len(system) > 0 {
		b.push(&annals.Entry{ID: e.ID + "#system", Time: e.Time, RunID: e.RunID, SourceIDs: e.SourceIDs, Kind: annals.KindSystem,
			Text: strings.Join(system, "\n\n"), Metadata: reader.SafeMeta(map[string]any{"system_prompt": true})})
	}
	if len(user) > 0 || len(images) > 0 || len(system) == 0 {
		e.Kind, e.Text = annals.KindUser, strings.Join(user, "\n\n")
		var imgs any
		if len(images) > 0 {
			imgs = images
		}
		var kinds any
		if len(untrusted) > 0 {
			kinds = untrusted
		}
		e.Metadata = reader.SafeMeta(map[string]any{"images": imgs, "untrusted": kinds})
		b.push(e)
	}
	return true
}
