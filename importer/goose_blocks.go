package importer

import (
	"encoding/json"
	"strings"

	"github.com/annals-dev/annals"
)

// emit writes one goose session: the chat (goose:<id>, cwd, title the session's name, the
// model its first reply's metadata names), then its entries.
func (f goose) emit(s *gsSession, out Output) error {
	chatID := ChatID(f.Name(), s.id)
	attrs := annals.Attributes{"source": f.Name()}
	if s.cwd != "" {
		attrs["cwd"] = s.cwd
	}
	if s.kind != "" && s.kind != "user" {
		attrs["goose_session_type"] = s.kind
	}
	var entries []*annals.Entry
	calls := map[string]*annals.Entry{}
	for _, m := range s.messages {
		if model := gooseModel(m.meta); model != "" && attrs["model"] == "" && m.role == "assistant" {
			attrs["model"] = model
		}
		entries = append(entries, gooseBlocks(m, calls, out)...)
	}
	created := s.created
	if created.IsZero() && len(s.messages) > 0 {
		created = s.messages[0].created
	}
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created, Title: Truncated(ValidText(s.name), annals.MaxTitleBytes)}
	if err := out.Emit(annals.CaptureOp{Chat: cleanChat(chat)}); err != nil {
		return err
	}
	return emitEntries(chatID, entries, out)
}

// gooseModel reads the model a message's metadata names (metadata_json.inference), if any.
func gooseModel(meta json.RawMessage) string {
	o, err := decodeObject(meta)
	if err != nil {
		return ""
	}
	inf := o.obj("inference")
	return SafeID(firstNonEmpty(inf.str("model"), inf.str("requestedModel")), annals.MaxIDBytes)
}

// gooseBlocks maps one message's blocks to entries <message id>#<n>; a toolResponse lands on
// the toolRequest with its id (goose answers a call in the next user message).
func gooseBlocks(m gsMessage, calls map[string]*annals.Entry, out Output) []*annals.Entry {
	var blocks []json.RawMessage
	if err := json.Unmarshal(m.content, &blocks); err != nil {
		out.Warnf(0, "message %s: content is not a block array: %v", m.id, err)
		return nil
	}
	kind := annals.KindUser
	if m.role == "assistant" {
		kind = annals.KindAssistant
	}
	var ents []*annals.Entry
	for i, raw := range blocks {
		b, err := decodeObject(raw)
		if err != nil {
			out.Warnf(0, "message %s content[%d]: not a JSON object", m.id, i)
			continue
		}
		e := &annals.Entry{ID: EntryID(SafeID(m.id, 200), i), Kind: kind, Time: m.created, SourceIDs: []string{SafeID(m.id, annals.MaxIDBytes)}}
		switch typ := b.str("type"); typ {
		case "text":
			e.Text = ValidText(b.str("text"))
		case "thinking":
			e.Kind, e.Reasoning = annals.KindAssistant, ValidText(b.str("thinking"))
			e.Metadata = Metadata(map[string]any{"encrypted_reasoning": boolOrNil(b.str("signature") != "")})
		case "redactedThinking":
			e.Kind, e.Metadata = annals.KindAssistant, Metadata(map[string]any{"redacted_thinking": true})
		case "toolRequest":
			e.Kind = annals.KindTool
			e.Tool = gooseCall(b)
			if id := b.str("id"); id != "" {
				calls[id] = e
			}
		case "toolResponse":
			result, outcome := gooseResult(b)
			if call := calls[b.str("id")]; call != nil {
				call.Tool.Result, call.Tool.Outcome = result, outcome
				call.SourceIDs = append(call.SourceIDs, e.SourceIDs...)
				delete(calls, b.str("id"))
				continue
			}
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: "unknown", CallID: SafeID(b.str("id"), annals.MaxIDBytes), Result: result, Outcome: outcome}
			e.Metadata = Metadata(map[string]any{"orphan_result": true})
		default:
			// Images (their bytes are not kept), confirmations, notifications, summaries.
			e.Kind, e.Channel = annals.KindEvent, "goose/"+sanitizeChannel(firstNonEmpty(typ, "block"))
			e.Metadata = safeMeta(map[string]any{"block": extras(b, "data")})
		}
		ents = append(ents, e)
	}
	return ents
}

// gooseResultValue is a toolRequest's or toolResponse's result: {status, value} in current
// versions, {"Ok": value} or {"Err": ...} in older ones.
func gooseResultValue(o jsonObject) (value json.RawMessage, failed bool, errText string) {
	if o == nil {
		return nil, false, ""
	}
	if v := o.raw("Ok"); v != nil {
		return v, false, ""
	}
	if v := o.raw("Err"); v != nil {
		return nil, true, textOf(v)
	}
	return o.raw("value"), o.str("status") == "error", firstNonEmpty(o.str("error"), textOf(o.raw("error")))
}

func gooseCall(b jsonObject) *annals.ToolCall {
	value, _, _ := gooseResultValue(b.obj("toolCall"))
	v, _ := decodeObject(value)
	return &annals.ToolCall{Name: copilotToolName(v.str("name")), CallID: SafeID(b.str("id"), annals.MaxIDBytes), Arguments: copilotArgs(v.raw("arguments"))}
}

// gooseResult renders a toolResponse: the text of its content ({content, isError} in current
// versions, a bare content array in older ones) and its outcome.
func gooseResult(b jsonObject) (string, annals.Outcome) {
	tr := b.obj("toolResult")
	if tr == nil {
		tr = b.obj("tool_result")
	}
	value, failed, errText := gooseResultValue(tr)
	if failed {
		return ValidText(errText), annals.OutcomeFailed
	}
	content := value
	if v, err := decodeObject(value); err == nil {
		content = v.raw("content")
		failed = v.boolean("isError")
	}
	text := Truncated(ValidText(strings.TrimSpace(blocksText(content))), annals.MaxEntryBytes/4)
	if failed {
		return text, annals.OutcomeFailed
	}
	if value == nil {
		return text, ""
	}
	return text, annals.OutcomeSucceeded
}
