package openhands

import (
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// ohSDKEvent maps one event of the agent SDK (typed by kind).
func ohSDKEvent(ev reader.JSONObject, id string, at time.Time, calls map[string]*annals.Entry) []*annals.Entry {
	switch kind := ev.Str("kind"); kind {
	case "MessageEvent":
		m := ev.Obj("llm_message")
		e := &annals.Entry{ID: id, Kind: annals.KindUser, Text: reader.ValidText(ohContentText(m.Raw("content")))}
		if m.Str("role") == "assistant" || ev.Str("source") == "agent" {
			e.Kind, e.Reasoning = annals.KindAssistant, reader.ValidText(m.Str("reasoning_content"))
		}
		return []*annals.Entry{e}
	case "ActionEvent":
		var out []*annals.Entry
		thought := ohContentText(ev.Raw("thought"))
		if thought != "" || ev.Str("reasoning_content") != "" {
			out = append(out, &annals.Entry{ID: id + "#thought", Kind: annals.KindAssistant, Text: reader.ValidText(thought), Reasoning: reader.ValidText(ev.Str("reasoning_content"))})
		}
		args := ev.Obj("tool_call").Raw("arguments")
		if args == nil {
			args = ev.Raw("action")
		}
		call := &annals.Entry{ID: id, Kind: annals.KindTool, Tool: &annals.ToolCall{
			Name: reader.ToolName(ev.Str("tool_name")), CallID: reader.SafeID(ev.Str("tool_call_id"), annals.MaxIDBytes), Arguments: reader.CallArgs(args)}}
		calls[ev.Str("tool_call_id")] = call
		return append(out, call)
	case "ObservationEvent":
		obs := ev.Obj("observation")
		outcome := annals.OutcomeSucceeded
		if obs.Boolean("is_error") || (obs.IsNum("exit_code") && obs.Num("exit_code") != 0) {
			outcome = annals.OutcomeFailed
		}
		if ohSetResult(calls, ev.Str("tool_call_id"), at, ohContentText(obs.Raw("content")), outcome) {
			return nil
		}
		return []*annals.Entry{{ID: id, Kind: annals.KindTool, Tool: &annals.ToolCall{Name: reader.ToolName(ev.Str("tool_name")),
			CallID: reader.SafeID(ev.Str("tool_call_id"), annals.MaxIDBytes), Result: reader.ValidText(ohContentText(obs.Raw("content"))), Outcome: outcome},
			Metadata: reader.Metadata(map[string]any{"orphan_result": true})}}
	case "UserRejectObservation", "AgentErrorEvent":
		outcome := annals.OutcomeBlocked
		text := reader.FirstNonEmpty(ev.Str("rejection_reason"), ev.Str("error"))
		if kind == "AgentErrorEvent" {
			outcome = annals.OutcomeFailed
		}
		if ohSetResult(calls, ev.Str("tool_call_id"), at, text, outcome) {
			return nil
		}
		return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Text: reader.ValidText(text), Metadata: reader.Metadata(map[string]any{"openhands_kind": kind})}}
	case "SystemPromptEvent":
		return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Text: reader.ValidText(ohContentText(ev.Obj("system_prompt").Raw("text")) + ev.Obj("system_prompt").Str("text"))}}
	case "CondensationSummaryEvent", "Condensation":
		return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Text: reader.ValidText(reader.FirstNonEmpty(ev.Str("summary"), "Conversation condensed")), Metadata: reader.Metadata(map[string]any{"compaction": true})}}
	default:
		// State updates, pauses, condensation requests: kept as events with their fields.
		return []*annals.Entry{{ID: id, Kind: annals.KindEvent, Channel: "openhands/" + reader.SanitizeChannel(reader.FirstNonEmpty(kind, "event")), Metadata: reader.SafeMeta(map[string]any{"event": reader.Extras(ev, "id", "kind", "timestamp")})}}
	}
}

// ohLegacyEvent maps one event of OpenHands 0.x: an action, or an observation answering the
// action whose id is its cause.
func ohLegacyEvent(ev reader.JSONObject, id string, at time.Time, calls map[string]*annals.Entry) []*annals.Entry {
	args := ev.Obj("args")
	if action := ev.Str("action"); action != "" {
		switch action {
		case "message":
			e := &annals.Entry{ID: id, Kind: annals.KindUser, Text: reader.ValidText(reader.FirstNonEmpty(args.Str("content"), ev.Str("message")))}
			if ev.Str("source") == "agent" {
				e.Kind = annals.KindAssistant
			}
			return []*annals.Entry{e}
		case "system":
			return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Text: reader.ValidText(args.Str("content"))}}
		case "think":
			return []*annals.Entry{{ID: id, Kind: annals.KindAssistant, Reasoning: reader.ValidText(args.Str("thought"))}}
		case "finish":
			return []*annals.Entry{{ID: id, Kind: annals.KindAssistant, Text: reader.ValidText(reader.FirstNonEmpty(args.Str("final_thought"), args.Str("thought"), ev.Str("message")))}}
		case "change_agent_state":
			return []*annals.Entry{{ID: id, Kind: annals.KindEvent, Channel: "openhands/agent_state", Metadata: reader.SafeMeta(map[string]any{"args": args})}}
		}
		var out []*annals.Entry
		if t := args.Str("thought"); t != "" {
			out = append(out, &annals.Entry{ID: id + "#thought", Kind: annals.KindAssistant, Text: reader.ValidText(t)})
		}
		call := &annals.Entry{ID: id, Kind: annals.KindTool, Tool: &annals.ToolCall{Name: reader.ToolName(action), CallID: id, Arguments: reader.ValidJSON(ev.Raw("args"))}}
		calls[id] = call
		return append(out, call)
	}
	obs := ev.Str("observation")
	ex := ev.Obj("extras")
	outcome := annals.OutcomeSucceeded
	switch {
	case obs == "error":
		outcome = annals.OutcomeFailed
	case obs == "user_rejected":
		outcome = annals.OutcomeBlocked
	case ex.IsNum("exit_code") && ex.Num("exit_code") != 0, ex.Obj("metadata").IsNum("exit_code") && ex.Obj("metadata").Num("exit_code") != 0:
		outcome = annals.OutcomeFailed
	}
	cause := reader.SafeID(reader.TextOf(ev.Raw("cause")), 200)
	if ohSetResult(calls, cause, at, ev.Str("content"), outcome) {
		return nil
	}
	if obs == "agent_state_changed" || obs == "null" {
		return []*annals.Entry{{ID: id, Kind: annals.KindEvent, Channel: "openhands/" + reader.SanitizeChannel(obs), Metadata: reader.SafeMeta(map[string]any{"extras": ex})}}
	}
	return []*annals.Entry{{ID: id, Kind: annals.KindEvent, Channel: "openhands/" + reader.SanitizeChannel(reader.FirstNonEmpty(obs, "event")), Text: reader.ValidText(ev.Str("content")), Metadata: reader.SafeMeta(map[string]any{"extras": ex, "cause": cause})}}
}
