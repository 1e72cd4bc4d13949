package importer

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// anthropicBlocks maps the content blocks of one message (Anthropic Messages style, which
// Cursor's transcripts use, or Vercel AI SDK style, which its store.db uses) to entries with ids
// msgID#i. A tool result whose call is in open fills that call's entry instead of making one.
func anthropicBlocks(blocks []json.RawMessage, role, msgID string, t time.Time, open map[string]*annals.Entry, warn func(int, string)) []*annals.Entry {
	kind := annals.KindUser
	switch role {
	case "assistant", "model":
		kind = annals.KindAssistant
	case "system", "developer":
		kind = annals.KindSystem
	}
	var out []*annals.Entry
	for i, raw := range blocks {
		b, err := decodeObject(raw)
		if err != nil {
			if len(raw) > 0 && raw[0] == '"' {
				out = append(out, &annals.Entry{ID: EntryID(msgID, i), Kind: kind, Time: t, Text: ValidText(textOf(raw))})
				continue
			}
			warn(i, "not a JSON object")
			continue
		}
		e := &annals.Entry{ID: EntryID(msgID, i), Kind: kind, Time: t}
		typ := b.str("type")
		switch typ {
		case "text", "input_text", "output_text", "":
			blockText(e, b, typ, kind)
		case "thinking", "reasoning":
			e.Kind = annals.KindAssistant
			e.Reasoning = ValidText(firstNonEmpty(b.str("thinking"), b.str("text")))
			_, dropped := scrubOpaque(raw)
			e.Metadata = safeMeta(map[string]any{"encrypted_reasoning": boolOrNil(dropped || b.str("signature") != ""),
				"extra": extras(b, "type", "thinking", "text", "signature", "providerOptions", "providerMetadata")})
		case "redacted_thinking", "redacted-reasoning":
			// Encrypted reasoning: never rendered, only its presence is recorded.
			e.Kind = annals.KindAssistant
			e.Metadata = safeMeta(map[string]any{"redacted_thinking": true})
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
			e.Channel = "cursor/" + sanitizeChannel(typ)
			e.Text = ValidText(b.str("text"))
			e.Metadata = safeMeta(map[string]any{"block": extras(b, "text")})
		}
		out = append(out, e)
	}
	return out
}

// blockText fills e from a text block; a typeless block without text is kept as an event.
func blockText(e *annals.Entry, b jsonObject, typ string, kind annals.EntryKind) {
	txt := b.str("text")
	if typ == "" && txt == "" {
		e.Kind = annals.KindEvent
		e.Channel = "cursor/block"
		e.Metadata = safeMeta(map[string]any{"block": extras(b)})
		return
	}
	meta := map[string]any{"extra": extras(b, "type", "text")}
	if kind == annals.KindUser {
		if inner, ok := stripTag(txt, "user_query"); ok {
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

func blockToolUse(e *annals.Entry, b jsonObject) {
	e.Kind = annals.KindTool
	args := b.raw("input")
	if args == nil {
		args = b.raw("args")
	}
	if args == nil {
		args = b.raw("arguments")
	}
	e.Tool = &annals.ToolCall{
		Name:      copilotToolName(firstNonEmpty(b.str("name"), b.str("toolName"))),
		CallID:    SafeID(firstNonEmpty(b.str("id"), b.str("toolCallId")), annals.MaxIDBytes),
		Arguments: copilotArgs(args),
	}
	e.Metadata = safeMeta(map[string]any{"extra": extras(b, "type", "name", "toolName", "id", "toolCallId", "input", "args", "arguments")})
}

// blockToolResult fills the call in open that a tool result answers and returns false (no
// entry of its own); otherwise it fills e as an orphan result and returns true.
func blockToolResult(e *annals.Entry, b jsonObject, open map[string]*annals.Entry) bool {
	callID := firstNonEmpty(b.str("tool_use_id"), b.str("toolCallId"))
	res := b.raw("content")
	if res == nil {
		res = b.raw("result")
	}
	if res == nil {
		res = b.raw("output")
	}
	result := Truncated(ValidText(blocksText(res)), annals.MaxEntryBytes/4)
	outcome := annals.OutcomeSucceeded
	if b.boolean("is_error") || b.boolean("isError") {
		outcome = annals.OutcomeFailed
	}
	if call := open[callID]; callID != "" && call != nil {
		call.Tool.Result, call.Tool.Outcome = result, outcome
		delete(open, callID)
		return false
	}
	e.Kind = annals.KindTool
	e.Tool = &annals.ToolCall{Name: copilotToolName(b.str("toolName")), CallID: SafeID(callID, annals.MaxIDBytes), Result: result, Outcome: outcome}
	e.Metadata = safeMeta(map[string]any{"orphan_result": true, "extra": extras(b, "type", "tool_use_id", "toolCallId", "toolName", "content", "result", "output", "is_error", "isError")})
	return true
}

// blockMedia keeps what an inline image or file was; its bytes are not transcript text.
func blockMedia(e *annals.Entry, b jsonObject, typ string) {
	e.Kind = annals.KindEvent
	e.Channel = "cursor/" + typ
	m := extraMap(b, "type", "source", "data", "image")
	src := b.obj("source")
	e.Text = typ
	if src != nil {
		e.Text = strings.TrimSpace(typ + " " + firstNonEmpty(src.str("media_type"), src.str("url")))
	}
	e.Metadata = safeMeta(map[string]any{"block": asAny(m), "media_type": firstNonEmpty(src.str("media_type"), b.str("mimeType"), b.str("mediaType"))})
}
