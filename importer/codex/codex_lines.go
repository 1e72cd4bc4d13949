package codex

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// The line mappings of the Codex reader (codex.go): model items and UI events to entries.

func (s *cxSession) item(n int, p *cxPayload, ts time.Time, id string, raw []byte, out reader.Output) {
	switch p.Type {
	case "message":
		s.itemMessage(p, ts, id)
	case "reasoning":
		s.itemReasoning(p, ts, id)
	case "function_call", "custom_tool_call", "local_shell_call", "tool_search_call", "web_search_call", "image_generation_call", "mcp_tool_call":
		s.itemCall(p, ts, id)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output", "mcp_tool_call_output":
		s.itemOutput(p, ts, id)
	case "agent_message":
		s.agentMessage(p, ts, id, raw)
	case "ghost_snapshot":
		// An undo checkpoint (a git commit id): bookkeeping, dropped.
	default:
		s.unknown("response_item", p.Type, ts, id, cxPayloadOf(raw))
	}
}

func (s *cxSession) itemMessage(p *cxPayload, ts time.Time, id string) {
	text, other := cxText(p.Content)
	kind := annals.KindUser
	m := map[string]any{}
	switch p.Role {
	case "assistant":
		kind = annals.KindAssistant
	case "user":
		if cxInjected(text) {
			kind = annals.KindSystem
			m["context"] = true
		}
	default: // developer, system
		kind = annals.KindSystem
		m["role"] = p.Role
	}
	if other > 0 {
		m["attachments"] = other
	}
	if strings.TrimSpace(text) == "" && other == 0 {
		return
	}
	if (kind == annals.KindUser || kind == annals.KindAssistant) && s.copyOf(cxItem, string(kind)+"\x00"+strings.TrimSpace(text)) {
		return
	}
	if kind == annals.KindUser {
		// A new prompt: calls still waiting will not get an output.
		s.q.ReleaseAll()
	}
	s.push(&annals.Entry{ID: id, Kind: kind, Time: ts, Text: reader.ValidText(text), RunID: s.st.Turn, Metadata: reader.Metadata(m)})
}

func (s *cxSession) itemReasoning(p *cxPayload, ts time.Time, id string) {
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(p.Summary, &parts)
	var texts []string
	for _, t := range parts {
		texts = append(texts, t.Text)
	}
	// Reasoning content other than the summary, when a version writes it in clear.
	if t, _ := cxText(p.Content); t != "" {
		texts = append(texts, t)
	}
	reasoning := strings.Join(reader.DropBlank(texts), "\n\n")
	m := map[string]any{}
	if p.Encrypted != "" {
		m["encrypted_reasoning"] = true // an opaque blob for the API: dropped, never shown
	}
	if reasoning == "" && len(m) == 0 {
		return
	}
	if reasoning != "" && s.copyOf(cxItem, "r\x00"+strings.TrimSpace(reasoning)) {
		return
	}
	s.push(&annals.Entry{ID: id, Kind: annals.KindAssistant, Time: ts, Reasoning: reader.ValidText(reasoning), RunID: s.st.Turn, Metadata: reader.Metadata(m)})
}

func (s *cxSession) itemCall(p *cxPayload, ts time.Time, id string) {
	name := p.Name
	if name == "" {
		name = strings.TrimSuffix(p.Type, "_call")
	}
	args := cxArgs(p)
	e := &annals.Entry{ID: id, Kind: annals.KindTool, Time: ts, RunID: s.st.Turn,
		Tool: &annals.ToolCall{Name: reader.SafeID(name, annals.MaxIDBytes), CallID: reader.SafeID(p.CallID, annals.MaxIDBytes), Arguments: args}}
	if p.Type == "web_search_call" || p.Type == "image_generation_call" || p.CallID == "" {
		// Searches and image generations carry their own status and no separate output.
		e.Tool.Outcome = cxStatus(cxString(p.Status))
		if len(p.Result) > 0 && p.Result[0] == '"' {
			var r string
			_ = json.Unmarshal(p.Result, &r)
			e.Tool.Result = reader.ValidText(r)
		}
		s.push(e)
		return
	}
	s.q.PushCall(s.st.Chat, p.CallID, e)
}

func (s *cxSession) itemOutput(p *cxPayload, ts time.Time, id string) {
	result, outcome, meta := cxOutput(p)
	if s.q.Resolve(p.CallID, func(e *annals.Entry) {
		e.Tool.Result = result
		if e.Tool.Outcome == "" || outcome == annals.OutcomeFailed {
			e.Tool.Outcome = outcome
		}
		if meta != nil {
			e.Metadata = reader.JoinMeta(e.Metadata, meta)
		}
		reader.ResultTime(e, ts)
	}) {
		return
	}
	s.push(&annals.Entry{ID: id, Kind: annals.KindTool, Time: ts, RunID: s.st.Turn,
		Tool:     &annals.ToolCall{Name: "unknown", CallID: reader.SafeID(p.CallID, annals.MaxIDBytes), Result: result, Outcome: outcome},
		Metadata: reader.JoinMeta(reader.Metadata(map[string]any{"orphan_result": true}), meta)})
}

func cxPayloadOf(raw []byte) json.RawMessage {
	var l cxLine
	if json.Unmarshal(raw, &l) == nil {
		return l.Payload
	}
	return nil
}

func (s *cxSession) event(p *cxPayload, ts time.Time, id string, payload json.RawMessage) {
	switch p.Type {
	case "user_message":
		text := strings.TrimSpace(p.Message)
		if text == "" || s.copyOf(cxEvent, string(annals.KindUser)+"\x00"+text) {
			return
		}
		s.q.ReleaseAll()
		s.push(&annals.Entry{ID: id, Kind: annals.KindUser, Time: ts, Text: reader.ValidText(p.Message), RunID: s.st.Turn})
	case "agent_message":
		text := strings.TrimSpace(p.Message)
		if text == "" || s.copyOf(cxEvent, string(annals.KindAssistant)+"\x00"+text) {
			return
		}
		s.push(&annals.Entry{ID: id, Kind: annals.KindAssistant, Time: ts, Text: reader.ValidText(p.Message), RunID: s.st.Turn})
	case "agent_reasoning", "agent_reasoning_raw_content":
		text := strings.TrimSpace(p.Text)
		if text == "" || s.copyOf(cxEvent, "r\x00"+text) {
			return
		}
		s.push(&annals.Entry{ID: id, Kind: annals.KindAssistant, Time: ts, Reasoning: reader.ValidText(p.Text), RunID: s.st.Turn})
	case "token_count":
		if p.Info != nil && p.Info.Last != nil && s.st.Turn != "" {
			last := p.Info.Last
			s.st.TurnIn += reader.ClampTokens(last.Input)
			s.st.TurnOut += reader.ClampTokens(last.Output)
			s.st.TurnCached += min(reader.ClampTokens(last.Cached), reader.ClampTokens(last.Input))
			s.st.TurnContext = reader.ClampTokens(last.Input)
			s.recordTurn(annals.StatusRunning, nil)
		}
	case "task_started":
		if s.st.Turn == "" {
			s.startTurn(p.TurnID, ts)
		}
	case "task_complete":
		s.endTurn(annals.StatusCompleted, ts)
	case "turn_aborted":
		s.endTurn(annals.StatusCancelled, ts)
	case "exec_command_end", "patch_apply_end", "mcp_tool_call_end", "dynamic_tool_call_response":
		// The UI's copy of a tool outcome: it only refines the outcome of its call.
		callID := p.CallID
		if callID == "" {
			callID = p.CallID2
		}
		failed := (p.ExitCode != nil && *p.ExitCode != 0) || (p.Success != nil && !*p.Success) || bytes.HasPrefix(bytes.TrimSpace(p.Result), []byte(`{"Err"`))
		if s.q.Pending(callID) {
			if failed {
				s.q.Update(callID, func(e *annals.Entry) { e.Tool.Outcome = annals.OutcomeFailed })
			}
			return
		}
		if callID != "" && !reader.Placeholder(callID) {
			return // the call was answered already: a duplicate
		}
		s.unknown("event_msg", p.Type, ts, id, payload)
	case "context_compacted", "exec_command_begin", "patch_apply_begin", "mcp_tool_call_begin", "web_search_begin", "web_search_end",
		"image_generation_end", "view_image_tool_call", "dynamic_tool_call_request", "task_status":
		// Copies or announcements of what the items already hold.
	case "thread_name_updated":
		if p.ThreadName != "" && !reader.Placeholder(p.ThreadName) {
			s.title = p.ThreadName
		}
	case "error":
		s.push(&annals.Entry{ID: id, Kind: annals.KindSystem, Time: ts, Text: reader.ValidText(p.Message), RunID: s.st.Turn, Metadata: reader.Metadata(map[string]any{"error": true})})
	default:
		s.unknown("event_msg", p.Type, ts, id, payload)
	}
}
