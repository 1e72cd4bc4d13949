package loomcycle

import (
	"encoding/json"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// legacy maps the event types and payloads of the schema this importer was first written
// against, inferred from loomcycle's documentation before its source was read: {"text" |
// "content" | "message"} messages typed user_message, assistant_message, message (by role),
// reasoning, compaction; flat tool calls {"id", "name", "input" | "arguments"} answered by
// {"tool_call_id", "output", "status"}. Every other type is an event (lcBuilder.event).
func (b *lcBuilder) legacy(ev *lcEvent, e *annals.Entry, raw string, p reader.JSONObject) {
	lp := p
	if lp == nil && raw != "" {
		// A JSON string or array, or not JSON at all: keep it as text.
		text := raw
		if json.Valid([]byte(raw)) {
			text = reader.TextOf(json.RawMessage(raw))
		}
		lp = reader.JSONObject{"text": reader.JSONString(text)}
	}
	typ := strings.ToLower(ev.typ)
	text := reader.ValidText(reader.FirstNonEmpty(lp.Str("text"), lp.Str("content"), lp.Str("message"), lp.Str("delta")))
	role := strings.ToLower(lp.Str("role"))
	known := []string{"text", "content", "message", "role"}
	switch {
	case typ == "tool_result" || typ == "tool.result" || typ == "tool_call_result" || typ == "tool_output":
		if orphan := lcToolResult(e, lp, text, b.open); orphan != nil {
			b.push(orphan)
		}
		return
	case typ == "tool_call" || typ == "tool.call" || typ == "tool_use" || typ == "tool_call_start":
		b.legacyToolCall(e, lp)
		return
	case strings.Contains(typ, "reasoning") || strings.Contains(typ, "thinking"):
		e.Kind = annals.KindAssistant
		e.Reasoning = reader.ValidText(reader.FirstNonEmpty(text, lp.Str("reasoning"), lp.Str("thinking")))
		_, opaque := reader.ScrubOpaque(json.RawMessage(raw))
		e.Metadata = reader.SafeMeta(map[string]any{"encrypted_reasoning": reader.BoolOrNil(opaque), "payload": reader.Extras(lp, append(known, "reasoning", "thinking")...)})
		b.push(e)
		return
	case strings.Contains(typ, "compact") || typ == "summary":
		e.Kind = annals.KindSystem
		e.Text = reader.ValidText(reader.FirstNonEmpty(lp.Str("summary"), text))
		e.Metadata = reader.SafeMeta(map[string]any{"compaction": true, "type": ev.typ, "payload": reader.Extras(lp, append(known, "summary")...)})
		b.push(e)
		return
	case typ == "user_message" || typ == "user" || typ == "user_input" || typ == "input" || typ == "prompt" || (typ == "message" && role == "user"):
		e.Kind = annals.KindUser
	case typ == "assistant_message" || typ == "assistant" || typ == "text" || typ == "output" || typ == "response" || (typ == "message" && (role == "assistant" || role == "")):
		e.Kind = annals.KindAssistant
		if r := lp.Str("reasoning"); r != "" {
			e.Reasoning = reader.ValidText(r)
			known = append(known, "reasoning")
		}
	case typ == "system" || typ == "system_message" || (typ == "message" && role == "system"):
		e.Kind = annals.KindSystem
	default:
		b.event(e, ev.typ, raw, p)
		return
	}
	e.Text = text
	if tk := lp.Obj("usage"); tk != nil && e.Kind == annals.KindAssistant && ev.run == nil {
		// Usage only when the event has no run: a run carries its own totals.
		e.InputTokens, e.OutputTokens = int64(tk.Num("input_tokens")), int64(tk.Num("output_tokens"))
	}
	e.Metadata = reader.SafeMeta(map[string]any{"payload": reader.Extras(lp, known...)})
	b.push(e)
}

// legacyToolCall maps a flat tool call {"id", "name", "input" | "arguments"}.
func (b *lcBuilder) legacyToolCall(e *annals.Entry, p reader.JSONObject) {
	e.Kind = annals.KindTool
	args := firstRaw(p, "arguments", "input", "args")
	e.Tool = &annals.ToolCall{Name: reader.ToolName(reader.FirstNonEmpty(p.Str("name"), p.Str("tool"), p.Str("tool_name"))),
		CallID: reader.SafeID(reader.FirstNonEmpty(p.Str("id"), p.Str("call_id"), p.Str("tool_call_id")), annals.MaxIDBytes), Arguments: reader.CallArgs(args)}
	e.Metadata = reader.SafeMeta(map[string]any{"payload": reader.Extras(p, "name", "tool", "tool_name", "id", "call_id", "tool_call_id", "arguments", "input", "args")})
	if e.Tool.CallID != "" {
		b.open[e.Tool.CallID] = e
	}
	b.push(e)
}

// lcToolResult fills the call in open that a flat tool result answers and returns nil;
// otherwise it returns e as an orphan result.
func lcToolResult(e *annals.Entry, p reader.JSONObject, text string, open map[string]*annals.Entry) *annals.Entry {
	callID := reader.FirstNonEmpty(p.Str("tool_call_id"), p.Str("call_id"), p.Str("tool_use_id"), p.Str("id"))
	res := reader.FirstNonEmpty(p.Str("output"), p.Str("result"), text)
	if res == "" {
		res = reader.TextOf(firstRaw(p, "output", "result", "content"))
	}
	outcome := annals.OutcomeSucceeded
	switch {
	case p.Boolean("is_error") || p.Str("error") != "" || strings.EqualFold(p.Str("status"), "error") || strings.EqualFold(p.Str("status"), "failed"):
		outcome = annals.OutcomeFailed
	case strings.EqualFold(p.Str("status"), "blocked") || strings.EqualFold(p.Str("status"), "denied"):
		outcome = annals.OutcomeBlocked
	case strings.EqualFold(p.Str("status"), "cancelled") || strings.EqualFold(p.Str("status"), "canceled"):
		outcome = annals.OutcomeCancelled
	}
	if res == "" {
		res = p.Str("error")
	}
	res = reader.Truncated(reader.ValidText(res), annals.MaxEntryBytes/4)
	if call := open[callID]; callID != "" && call != nil {
		call.Tool.Result, call.Tool.Outcome = res, outcome
		delete(open, callID)
		return nil
	}
	e.Kind = annals.KindTool
	e.Tool = &annals.ToolCall{Name: reader.ToolName(reader.FirstNonEmpty(p.Str("name"), p.Str("tool"), p.Str("tool_name"))), CallID: reader.SafeID(callID, annals.MaxIDBytes), Result: res, Outcome: outcome}
	e.Metadata = reader.SafeMeta(map[string]any{"orphan_result": true, "payload": reader.Extras(p, "tool_call_id", "call_id", "tool_use_id", "id", "output", "result", "content", "text", "is_error", "status", "name", "tool", "tool_name")})
	return e
}

func firstRaw(o reader.JSONObject, keys ...string) json.RawMessage {
	for _, k := range keys {
		if r := o.Raw(k); r != nil {
			return r
		}
	}
	return nil
}
