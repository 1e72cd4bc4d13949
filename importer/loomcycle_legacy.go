package importer

import (
	"encoding/json"
	"strings"

	"github.com/annals-dev/annals"
)

// legacy maps the event types and payloads of the schema this importer was first written
// against, inferred from loomcycle's documentation before its source was read: {"text" |
// "content" | "message"} messages typed user_message, assistant_message, message (by role),
// reasoning, compaction; flat tool calls {"id", "name", "input" | "arguments"} answered by
// {"tool_call_id", "output", "status"}. Every other type is an event (lcBuilder.event).
func (b *lcBuilder) legacy(ev *lcEvent, e *annals.Entry, raw string, p jsonObject) {
	lp := p
	if lp == nil && raw != "" {
		// A JSON string or array, or not JSON at all: keep it as text.
		text := raw
		if json.Valid([]byte(raw)) {
			text = textOf(json.RawMessage(raw))
		}
		lp = jsonObject{"text": jsonString(text)}
	}
	typ := strings.ToLower(ev.typ)
	text := ValidText(firstNonEmpty(lp.str("text"), lp.str("content"), lp.str("message"), lp.str("delta")))
	role := strings.ToLower(lp.str("role"))
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
		e.Reasoning = ValidText(firstNonEmpty(text, lp.str("reasoning"), lp.str("thinking")))
		_, opaque := scrubOpaque(json.RawMessage(raw))
		e.Metadata = safeMeta(map[string]any{"encrypted_reasoning": boolOrNil(opaque), "payload": extras(lp, append(known, "reasoning", "thinking")...)})
		b.push(e)
		return
	case strings.Contains(typ, "compact") || typ == "summary":
		e.Kind = annals.KindSystem
		e.Text = ValidText(firstNonEmpty(lp.str("summary"), text))
		e.Metadata = safeMeta(map[string]any{"compaction": true, "type": ev.typ, "payload": extras(lp, append(known, "summary")...)})
		b.push(e)
		return
	case typ == "user_message" || typ == "user" || typ == "user_input" || typ == "input" || typ == "prompt" || (typ == "message" && role == "user"):
		e.Kind = annals.KindUser
	case typ == "assistant_message" || typ == "assistant" || typ == "text" || typ == "output" || typ == "response" || (typ == "message" && (role == "assistant" || role == "")):
		e.Kind = annals.KindAssistant
		if r := lp.str("reasoning"); r != "" {
			e.Reasoning = ValidText(r)
			known = append(known, "reasoning")
		}
	case typ == "system" || typ == "system_message" || (typ == "message" && role == "system"):
		e.Kind = annals.KindSystem
	default:
		b.event(e, ev.typ, raw, p)
		return
	}
	e.Text = text
	if tk := lp.obj("usage"); tk != nil && e.Kind == annals.KindAssistant && ev.run == nil {
		// Usage only when the event has no run: a run carries its own totals.
		e.InputTokens, e.OutputTokens = int64(tk.num("input_tokens")), int64(tk.num("output_tokens"))
	}
	e.Metadata = safeMeta(map[string]any{"payload": extras(lp, known...)})
	b.push(e)
}

// legacyToolCall maps a flat tool call {"id", "name", "input" | "arguments"}.
func (b *lcBuilder) legacyToolCall(e *annals.Entry, p jsonObject) {
	e.Kind = annals.KindTool
	args := firstRaw(p, "arguments", "input", "args")
	e.Tool = &annals.ToolCall{Name: copilotToolName(firstNonEmpty(p.str("name"), p.str("tool"), p.str("tool_name"))),
		CallID: SafeID(firstNonEmpty(p.str("id"), p.str("call_id"), p.str("tool_call_id")), annals.MaxIDBytes), Arguments: copilotArgs(args)}
	e.Metadata = safeMeta(map[string]any{"payload": extras(p, "name", "tool", "tool_name", "id", "call_id", "tool_call_id", "arguments", "input", "args")})
	if e.Tool.CallID != "" {
		b.open[e.Tool.CallID] = e
	}
	b.push(e)
}

// lcToolResult fills the call in open that a flat tool result answers and returns nil;
// otherwise it returns e as an orphan result.
func lcToolResult(e *annals.Entry, p jsonObject, text string, open map[string]*annals.Entry) *annals.Entry {
	callID := firstNonEmpty(p.str("tool_call_id"), p.str("call_id"), p.str("tool_use_id"), p.str("id"))
	res := firstNonEmpty(p.str("output"), p.str("result"), text)
	if res == "" {
		res = textOf(firstRaw(p, "output", "result", "content"))
	}
	outcome := annals.OutcomeSucceeded
	switch {
	case p.boolean("is_error") || p.str("error") != "" || strings.EqualFold(p.str("status"), "error") || strings.EqualFold(p.str("status"), "failed"):
		outcome = annals.OutcomeFailed
	case strings.EqualFold(p.str("status"), "blocked") || strings.EqualFold(p.str("status"), "denied"):
		outcome = annals.OutcomeBlocked
	case strings.EqualFold(p.str("status"), "cancelled") || strings.EqualFold(p.str("status"), "canceled"):
		outcome = annals.OutcomeCancelled
	}
	if res == "" {
		res = p.str("error")
	}
	res = Truncated(ValidText(res), annals.MaxEntryBytes/4)
	if call := open[callID]; callID != "" && call != nil {
		call.Tool.Result, call.Tool.Outcome = res, outcome
		delete(open, callID)
		return nil
	}
	e.Kind = annals.KindTool
	e.Tool = &annals.ToolCall{Name: copilotToolName(firstNonEmpty(p.str("name"), p.str("tool"), p.str("tool_name"))), CallID: SafeID(callID, annals.MaxIDBytes), Result: res, Outcome: outcome}
	e.Metadata = safeMeta(map[string]any{"orphan_result": true, "payload": extras(p, "tool_call_id", "call_id", "tool_use_id", "id", "output", "result", "content", "text", "is_error", "status", "name", "tool", "tool_name")})
	return e
}

func firstRaw(o jsonObject, keys ...string) json.RawMessage {
	for _, k := range keys {
		if r := o.raw(k); r != nil {
			return r
		}
	}
	return nil
}
