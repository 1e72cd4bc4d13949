package reader

import (
	"time"

	"github.com/annals-dev/annals"
)

// ChatMessages maps OpenAI chat-format messages ({role, content, reasoning, tool_calls,
// tool_call_id}) to entries, pairing each tool message with the call it answers. Tools that keep
// their transcripts as such messages (Hermes Agent, Copilot CLI before 1.0) read through it.
type ChatMessages struct {
	open  map[string]*annals.Entry
	calls map[string]*annals.Entry
}

// NewChatMessages starts a transcript.
func NewChatMessages() *ChatMessages {
	return &ChatMessages{open: map[string]*annals.Entry{}, calls: map[string]*annals.Entry{}}
}

// Message maps one message, its entries dated t and named id (id#<n> for its calls); a tool
// message that answers an open call fills it and makes no entry of its own.
func (c *ChatMessages) Message(m JSONObject, id string, t time.Time) []*annals.Entry {
	text := ValidText(BlocksText(m.Raw("content")))
	switch m.Str("role") {
	case "user":
		return []*annals.Entry{{ID: id, Kind: annals.KindUser, Time: t, Text: text}}
	case "system", "developer":
		return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Time: t, Text: text}}
	case "tool", "function":
		callID := m.Str("tool_call_id")
		outcome := ResultOutcome(text)
		if call := c.open[callID]; callID != "" && call != nil {
			call.Tool.Result, call.Tool.Outcome = Truncated(text, annals.MaxEntryBytes/4), outcome
			delete(c.open, callID)
			return nil
		}
		return []*annals.Entry{{ID: id, Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{Name: ToolName(m.Str("name")), CallID: SafeID(callID, annals.MaxIDBytes),
			Result: Truncated(text, annals.MaxEntryBytes/4), Outcome: outcome}, Metadata: SafeMeta(map[string]any{"orphan_result": true})}}
	}
	var out []*annals.Entry
	_, encrypted := ScrubOpaque(m.Raw("codex_reasoning_items"))
	reasoning := ValidText(FirstNonEmpty(m.Str("reasoning"), m.Str("reasoning_content")))
	if text != "" || reasoning != "" {
		out = append(out, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: t, Text: text, Reasoning: reasoning,
			Metadata: SafeMeta(map[string]any{"finish_reason": m.Str("finish_reason"), "encrypted_reasoning": BoolOrNil(encrypted)})})
	}
	for j, raw := range m.Arr("tool_calls") {
		tc, err := DecodeObject(raw)
		if err != nil {
			continue
		}
		fn := tc.Obj("function")
		e := &annals.Entry{ID: EntryID(id, j+1), Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{
			Name: ToolName(fn.Str("name")), CallID: SafeID(FirstNonEmpty(tc.Str("id"), tc.Str("call_id")), annals.MaxIDBytes),
			Arguments: CallArgs(fn.Raw("arguments"))}}
		if e.Tool.CallID != "" {
			c.open[e.Tool.CallID] = e
			c.calls[e.Tool.CallID] = e
		}
		out = append(out, e)
	}
	return out
}

// ResultOutcome reads a tool result that is a JSON object ({output, exit_code, error, success},
// as Hermes Agent's tools answer): a non-zero exit code, an error or success false is a failure;
// anything else, JSON or not, succeeded.
func ResultOutcome(result string) annals.Outcome {
	o, err := DecodeObject([]byte(result))
	if err != nil {
		return annals.OutcomeSucceeded
	}
	if (o.IsNum("exit_code") && o.Num("exit_code") != 0) || o.Str("error") != "" || (o.Raw("success") != nil && !o.Boolean("success")) {
		return annals.OutcomeFailed
	}
	return annals.OutcomeSucceeded
}

// Call returns the call entry with this call id, answered or not, or nil.
func (c *ChatMessages) Call(callID string) *annals.Entry { return c.calls[callID] }
