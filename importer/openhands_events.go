package importer

import (
	"github.com/annals-dev/annals"
)

// ohSDKEvent maps one event of the agent SDK (typed by kind).
func ohSDKEvent(ev jsonObject, id string, calls map[string]*annals.Entry) []*annals.Entry {
	switch kind := ev.str("kind"); kind {
	case "MessageEvent":
		m := ev.obj("llm_message")
		e := &annals.Entry{ID: id, Kind: annals.KindUser, Text: ValidText(ohContentText(m.raw("content")))}
		if m.str("role") == "assistant" || ev.str("source") == "agent" {
			e.Kind, e.Reasoning = annals.KindAssistant, ValidText(m.str("reasoning_content"))
		}
		return []*annals.Entry{e}
	case "ActionEvent":
		var out []*annals.Entry
		thought := ohContentText(ev.raw("thought"))
		if thought != "" || ev.str("reasoning_content") != "" {
			out = append(out, &annals.Entry{ID: id + "#thought", Kind: annals.KindAssistant, Text: ValidText(thought), Reasoning: ValidText(ev.str("reasoning_content"))})
		}
		args := ev.obj("tool_call").raw("arguments")
		if args == nil {
			args = ev.raw("action")
		}
		call := &annals.Entry{ID: id, Kind: annals.KindTool, Tool: &annals.ToolCall{
			Name: copilotToolName(ev.str("tool_name")), CallID: SafeID(ev.str("tool_call_id"), annals.MaxIDBytes), Arguments: copilotArgs(args)}}
		calls[ev.str("tool_call_id")] = call
		return append(out, call)
	case "ObservationEvent":
		obs := ev.obj("observation")
		outcome := annals.OutcomeSucceeded
		if obs.boolean("is_error") || (obs.isNum("exit_code") && obs.num("exit_code") != 0) {
			outcome = annals.OutcomeFailed
		}
		if ohSetResult(calls, ev.str("tool_call_id"), ohContentText(obs.raw("content")), outcome) {
			return nil
		}
		return []*annals.Entry{{ID: id, Kind: annals.KindTool, Tool: &annals.ToolCall{Name: copilotToolName(ev.str("tool_name")),
			CallID: SafeID(ev.str("tool_call_id"), annals.MaxIDBytes), Result: ValidText(ohContentText(obs.raw("content"))), Outcome: outcome},
			Metadata: Metadata(map[string]any{"orphan_result": true})}}
	case "UserRejectObservation", "AgentErrorEvent":
		outcome := annals.OutcomeBlocked
		text := firstNonEmpty(ev.str("rejection_reason"), ev.str("error"))
		if kind == "AgentErrorEvent" {
			outcome = annals.OutcomeFailed
		}
		if ohSetResult(calls, ev.str("tool_call_id"), text, outcome) {
			return nil
		}
		return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Text: ValidText(text), Metadata: Metadata(map[string]any{"openhands_kind": kind})}}
	case "SystemPromptEvent":
		return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Text: ValidText(ohContentText(ev.obj("system_prompt").raw("text")) + ev.obj("system_prompt").str("text"))}}
	case "CondensationSummaryEvent", "Condensation":
		return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Text: ValidText(firstNonEmpty(ev.str("summary"), "Conversation condensed")), Metadata: Metadata(map[string]any{"compaction": true})}}
	default:
		// State updates, pauses, condensation requests: kept as events with their fields.
		return []*annals.Entry{{ID: id, Kind: annals.KindEvent, Channel: "openhands/" + sanitizeChannel(firstNonEmpty(kind, "event")), Metadata: safeMeta(map[string]any{"event": extras(ev, "id", "kind", "timestamp")})}}
	}
}

// ohLegacyEvent maps one event of OpenHands 0.x: an action, or an observation answering the
// action whose id is its cause.
func ohLegacyEvent(ev jsonObject, id string, calls map[string]*annals.Entry) []*annals.Entry {
	args := ev.obj("args")
	if action := ev.str("action"); action != "" {
		switch action {
		case "message":
			e := &annals.Entry{ID: id, Kind: annals.KindUser, Text: ValidText(firstNonEmpty(args.str("content"), ev.str("message")))}
			if ev.str("source") == "agent" {
				e.Kind = annals.KindAssistant
			}
			return []*annals.Entry{e}
		case "system":
			return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Text: ValidText(args.str("content"))}}
		case "think":
			return []*annals.Entry{{ID: id, Kind: annals.KindAssistant, Reasoning: ValidText(args.str("thought"))}}
		case "finish":
			return []*annals.Entry{{ID: id, Kind: annals.KindAssistant, Text: ValidText(firstNonEmpty(args.str("final_thought"), args.str("thought"), ev.str("message")))}}
		case "change_agent_state":
			return []*annals.Entry{{ID: id, Kind: annals.KindEvent, Channel: "openhands/agent_state", Metadata: safeMeta(map[string]any{"args": args})}}
		}
		var out []*annals.Entry
		if t := args.str("thought"); t != "" {
			out = append(out, &annals.Entry{ID: id + "#thought", Kind: annals.KindAssistant, Text: ValidText(t)})
		}
		call := &annals.Entry{ID: id, Kind: annals.KindTool, Tool: &annals.ToolCall{Name: copilotToolName(action), CallID: id, Arguments: validJSON(ev.raw("args"))}}
		calls[id] = call
		return append(out, call)
	}
	obs := ev.str("observation")
	ex := ev.obj("extras")
	outcome := annals.OutcomeSucceeded
	switch {
	case obs == "error":
		outcome = annals.OutcomeFailed
	case obs == "user_rejected":
		outcome = annals.OutcomeBlocked
	case ex.isNum("exit_code") && ex.num("exit_code") != 0, ex.obj("metadata").isNum("exit_code") && ex.obj("metadata").num("exit_code") != 0:
		outcome = annals.OutcomeFailed
	}
	cause := SafeID(textOf(ev.raw("cause")), 200)
	if ohSetResult(calls, cause, ev.str("content"), outcome) {
		return nil
	}
	if obs == "agent_state_changed" || obs == "null" {
		return []*annals.Entry{{ID: id, Kind: annals.KindEvent, Channel: "openhands/" + sanitizeChannel(obs), Metadata: safeMeta(map[string]any{"extras": ex})}}
	}
	return []*annals.Entry{{ID: id, Kind: annals.KindEvent, Channel: "openhands/" + sanitizeChannel(firstNonEmpty(obs, "event")), Text: ValidText(ev.str("content")), Metadata: safeMeta(map[string]any{"extras": ex, "cause": cause})}}
}
