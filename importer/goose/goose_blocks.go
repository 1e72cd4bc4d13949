package goose

import (
	"encoding/json"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// emit writes one goose session: the chat (goose:<id>, cwd, title the session's name, the
// model its first reply's metadata names), then its entries.
func (f Goose) emit(s *gsSession, out reader.Output) error {
	chatID := reader.ChatID(f.Name(), s.id)
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
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created, Title: reader.Truncated(reader.ValidText(s.name), annals.MaxTitleBytes)}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chatID, entries, out)
}

// gooseModel reads the model a message's metadata names (metadata_json.inference), if any.
func gooseModel(meta json.RawMessage) string {
	o, err := reader.DecodeObject(meta)
	if err != nil {
		return ""
	}
	inf := o.Obj("inference")
	return reader.SafeID(reader.FirstNonEmpty(inf.Str("model"), inf.Str("requestedModel")), annals.MaxIDBytes)
}

// gooseBlocks maps one message's blocks to entries <message id>#<n>; a toolResponse lands on
// the toolRequest with its id (goose answers a call in the next user message).
func gooseBlocks(m gsMessage, calls map[string]*annals.Entry, out reader.Output) []*annals.Entry {
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
		b, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "message %s content[%d]: not a JSON object", m.id, i)
			continue
		}
		e := &annals.Entry{ID: reader.EntryID(reader.SafeID(m.id, 200), i), Kind: kind, Time: m.created, SourceIDs: []string{reader.SafeID(m.id, annals.MaxIDBytes)}}
		switch typ := b.Str("type"); typ {
		case "text":
			e.Text = reader.ValidText(b.Str("text"))
		case "thinking":
			e.Kind, e.Reasoning = annals.KindAssistant, reader.ValidText(b.Str("thinking"))
			e.Metadata = reader.Metadata(map[string]any{"encrypted_reasoning": reader.BoolOrNil(b.Str("signature") != "")})
		case "redactedThinking":
			e.Kind, e.Metadata = annals.KindAssistant, reader.Metadata(map[string]any{"redacted_thinking": true})
		case "toolRequest":
			e.Kind = annals.KindTool
			e.Tool = gooseCall(b)
			if id := b.Str("id"); id != "" {
				calls[id] = e
			}
		case "toolResponse":
			result, outcome := gooseResult(b)
			if call := calls[b.Str("id")]; call != nil {
				call.Tool.Result, call.Tool.Outcome = result, outcome
				call.SourceIDs = append(call.SourceIDs, e.SourceIDs...)
				// The response's message (the next user message) is dated when it was written.
				reader.ResultTime(call, m.created)
				delete(calls, b.Str("id"))
				continue
			}
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: "unknown", CallID: reader.SafeID(b.Str("id"), annals.MaxIDBytes), Result: result, Outcome: outcome}
			e.Metadata = reader.Metadata(map[string]any{"orphan_result": true})
		default:
			// Images (their bytes are not kept), confirmations, notifications, summaries.
			e.Kind, e.Channel = annals.KindEvent, "goose/"+reader.SanitizeChannel(reader.FirstNonEmpty(typ, "block"))
			e.Metadata = reader.SafeMeta(map[string]any{"block": reader.Extras(b, "data")})
		}
		ents = append(ents, e)
	}
	return ents
}

// gooseResultValue is a toolRequest's or toolResponse's result: {status, value} in current
// versions, {"Ok": value} or {"Err": ...} in older ones.
func gooseResultValue(o reader.JSONObject) (value json.RawMessage, failed bool, errText string) {
	if o == nil {
		return nil, false, ""
	}
	if v := o.Raw("Ok"); v != nil {
		return v, false, ""
	}
	if v := o.Raw("Err"); v != nil {
		return nil, true, reader.TextOf(v)
	}
	return o.Raw("value"), o.Str("status") == "error", reader.FirstNonEmpty(o.Str("error"), reader.TextOf(o.Raw("error")))
}

func gooseCall(b reader.JSONObject) *annals.ToolCall {
	value, _, _ := gooseResultValue(b.Obj("toolCall"))
	v, _ := reader.DecodeObject(value)
	return &annals.ToolCall{Name: reader.ToolName(v.Str("name")), CallID: reader.SafeID(b.Str("id"), annals.MaxIDBytes), Arguments: reader.CallArgs(v.Raw("arguments"))}
}

// gooseResult renders a toolResponse: the text of its content ({content, isError} in current
// versions, a bare content array in older ones) and its outcome.
func gooseResult(b reader.JSONObject) (string, annals.Outcome) {
	tr := b.Obj("toolResult")
	if tr == nil {
		tr = b.Obj("tool_result")
	}
	value, failed, errText := gooseResultValue(tr)
	if failed {
		return reader.ValidText(errText), annals.OutcomeFailed
	}
	content := value
	if v, err := reader.DecodeObject(value); err == nil {
		content = v.Raw("content")
		failed = v.Boolean("isError")
	}
	text := reader.Truncated(reader.ValidText(strings.TrimSpace(reader.BlocksText(content))), annals.MaxEntryBytes/4)
	if failed {
		return text, annals.OutcomeFailed
	}
	if value == nil {
		return text, ""
	}
	return text, annals.OutcomeSucceeded
}
