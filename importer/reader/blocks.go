package reader

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// Content blocks: the Anthropic Messages style (and the Vercel AI SDK style) that several tools
// write their messages in, mapped to entries.

// BlocksText renders a tool result's content: a string, or the text of an array of blocks,
// or the JSON of anything else.
func BlocksText(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '[' {
		return TextOf(raw)
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return string(raw)
	}
	var parts []string
	for _, a := range arr {
		o, err := DecodeObject(a)
		if err != nil {
			parts = append(parts, TextOf(a))
			continue
		}
		if t := o.Str("text"); t != "" {
			parts = append(parts, t)
			continue
		}
		parts = append(parts, string(a))
	}
	return strings.Join(parts, "\n")
}

// AnthropicBlocks maps the content blocks of one message (Anthropic Messages style, which
// Cursor's transcripts use, or Vercel AI SDK style, which its store.db uses) to entries with ids
// msgID#i. A tool result whose call is in open fills that call's entry instead of making one.
func AnthropicBlocks(blocks []json.RawMessage, role, msgID string, t time.Time, open map[string]*annals.Entry, warn func(int, string)) []*annals.Entry {
	kind := annals.KindUser
	switch role {
	case "assistant", "model":
		kind = annals.KindAssistant
	case "system", "developer":
		kind = annals.KindSystem
	}
	var out []*annals.Entry
	for i, raw := range blocks {
		b, err := DecodeObject(raw)
		if err != nil {
			if len(raw) > 0 && raw[0] == '"' {
				out = append(out, &annals.Entry{ID: EntryID(msgID, i), Kind: kind, Time: t, Text: ValidText(TextOf(raw))})
				continue
			}
			warn(i, "not a JSON object")
			continue
		}
		e := &annals.Entry{ID: EntryID(msgID, i), Kind: kind, Time: t}
		typ := b.Str("type")
		switch typ {
		case "text", "input_text", "output_text", "":
			blockText(e, b, typ, kind)
		case "thinking", "reasoning":
			e.Kind = annals.KindAssistant
			e.Reasoning = ValidText(FirstNonEmpty(b.Str("thinking"), b.Str("text")))
			_, dropped := ScrubOpaque(raw)
			e.Metadata = SafeMeta(map[string]any{"encrypted_reasoning": BoolOrNil(dropped || b.Str("signature") != ""),
				"extra": Extras(b, "type", "thinking", "text", "signature", "providerOptions", "providerMetadata")})
		case "redacted_thinking", "redacted-reasoning":
			// Encrypted reasoning: never rendered, only its presence is recorded.
			e.Kind = annals.KindAssistant
			e.Metadata = SafeMeta(map[string]any{"redacted_thinking": true})
		case "tool_use", "tool-call":
			blockToolUse(e, b)
		case "tool_result", "tool-result":
			if !blockToolResult(e, b, open) {
				continue
			}
		case "image", "file", "document":
			blockMedia(e, b, typ)
		default:
			e.Kind = annals.KindEvent
			e.Channel = "cursor/" + SanitizeChannel(typ)
			e.Text = ValidText(b.Str("text"))
			e.Metadata = SafeMeta(map[string]any{"block": Extras(b, "text")})
		}
		out = append(out, e)
	}
	return out
}

// blockText fills e from a text block; a typeless block without text is kept as an event.
func blockText(e *annals.Entry, b JSONObject, typ string, kind annals.EntryKind) {
	txt := b.Str("text")
	if typ == "" && txt == "" {
		e.Kind = annals.KindEvent
		e.Channel = "cursor/block"
		e.Metadata = SafeMeta(map[string]any{"block": Extras(b)})
		return
	}
	meta := map[string]any{"extra": Extras(b, "type", "text")}
	if kind == annals.KindUser {
		if inner, ok := StripTag(txt, "user_query"); ok {
			txt = inner
			meta["wrapped_in"] = "user_query"
		}
	}
	if strings.TrimSpace(txt) == "[REDACTED]" {
		// Cursor writes this where it withheld the model's reasoning: a marker, not
		// the model's words.
		txt = ""
		meta["redacted"] = true
	}
	e.Text = ValidText(txt)
	e.Metadata = Metadata(meta)
}

func blockToolUse(e *annals.Entry, b JSONObject) {
	e.Kind = annals.KindTool
	args := b.Raw("input")
	if args == nil {
		args = b.Raw("args")
	}
	if args == nil {
		args = b.Raw("arguments")
	}
	e.Tool = &annals.ToolCall{
		Name:      ToolName(FirstNonEmpty(b.Str("name"), b.Str("toolName"))),
		CallID:    SafeID(FirstNonEmpty(b.Str("id"), b.Str("toolCallId")), annals.MaxIDBytes),
		Arguments: CallArgs(args),
	}
	e.Metadata = SafeMeta(map[string]any{"extra": Extras(b, "type", "name", "toolName", "id", "toolCallId", "input", "args", "arguments")})
}

// blockToolResult fills the call in open that a tool result answers and returns false (no
// entry of its own); otherwise it fills e as an orphan result and returns true.
func blockToolResult(e *annals.Entry, b JSONObject, open map[string]*annals.Entry) bool {
	callID := FirstNonEmpty(b.Str("tool_use_id"), b.Str("toolCallId"))
	res := b.Raw("content")
	if res == nil {
		res = b.Raw("result")
	}
	if res == nil {
		res = b.Raw("output")
	}
	result := Truncated(ValidText(BlocksText(res)), annals.MaxEntryBytes/4)
	outcome := annals.OutcomeSucceeded
	if b.Boolean("is_error") || b.Boolean("isError") {
		outcome = annals.OutcomeFailed
	}
	if call := open[callID]; callID != "" && call != nil {
		call.Tool.Result, call.Tool.Outcome = result, outcome
		// The result's message's time is when it arrived, where the format dates its
		// messages (Cline's and Roo Code's ts, Claude.ai's created_at, Droid's and iFlow's
		// timestamps); a time no later than the call's is a reader's stand-in (the file's or the
		// task's time given to every message) and says nothing of how long the call ran.
		if e.Time.After(call.Time) {
			ResultTime(call, e.Time)
		}
		delete(open, callID)
		return false
	}
	e.Kind = annals.KindTool
	e.Tool = &annals.ToolCall{Name: ToolName(b.Str("toolName")), CallID: SafeID(callID, annals.MaxIDBytes), Result: result, Outcome: outcome}
	e.Metadata = SafeMeta(map[string]any{"orphan_result": true, "extra": Extras(b, "type", "tool_use_id", "toolCallId", "toolName", "content", "result", "output", "is_error", "isError")})
	return true
}

// blockMedia keeps what an inline image or file was; its bytes are not transcript text.
func blockMedia(e *annals.Entry, b JSONObject, typ string) {
	e.Kind = annals.KindEvent
	e.Channel = "cursor/" + typ
	m := ExtraMap(b, "type", "source", "data", "image")
	src := b.Obj("source")
	e.Text = typ
	if src != nil {
		e.Text = strings.TrimSpace(typ + " " + FirstNonEmpty(src.Str("media_type"), src.Str("url")))
	}
	e.Metadata = SafeMeta(map[string]any{"block": asAny(m), "media_type": FirstNonEmpty(src.Str("media_type"), b.Str("mimeType"), b.Str("mediaType"))})
}

// asAny turns an empty map into an untyped nil, so Metadata drops it.
func asAny(m map[string]json.RawMessage) any {
	if len(m) == 0 {
		return nil
	}
	return m
}
