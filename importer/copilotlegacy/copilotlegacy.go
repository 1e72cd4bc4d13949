// Package copilotlegacy reads the sessions GitHub Copilot CLI wrote before 1.0 for annals import
// (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default locations,
// read), listed in importer.Formats.
package copilotlegacy

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// CopilotLegacy imports Copilot CLI's sessions before 1.0 (0.0.x, 2025), which kept each session
// as one pretty-printed JSON document, ~/.copilot/history-session-state/<name>.json:
// {sessionId, startTime, chatMessages: [OpenAI chat messages: user, assistant with tool_calls,
// tool with tool_call_id], timeline: [{id, timestamp, type: user | copilot | tool_call_requested
// | tool_call_completed | info | error, text, callId, toolTitle, arguments, result: {type:
// success | failure, log}}]}. The messages are the transcript; the timeline gives the times of
// the turns and each call's outcome. 1.0 replaced these files with session-state/*/events.jsonl
// (the copilot-cli format). Entry ids are m<message index>.
type CopilotLegacy struct{}

func (CopilotLegacy) Name() string { return "copilot-cli-legacy" }

func (CopilotLegacy) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".copilot", "history-session-state", "*.json")}
}

// Detect claims a JSON document with the legacy session's sessionId beside chatMessages or a
// timeline.
func (CopilotLegacy) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".json") {
		return false
	}
	f := reader.PrefixFields(head)
	return reader.HasFields(f, "sessionId") && (reader.HasFields(f, "chatMessages") || reader.HasFields(f, "timeline"))
}

func (f CopilotLegacy) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	data, err := src.ReadAll("copilot-cli-legacy", 1<<30)
	if err != nil {
		return err
	}
	doc, err := reader.DecodeObject(data)
	if err != nil {
		return fmt.Errorf("copilot-cli-legacy: %s is not a session: %w", src.Path, err)
	}
	start := reader.FirstTime(reader.ParseTime(doc.Str("startTime")), src.ModTime.UTC())
	sid := reader.FirstNonEmpty(doc.Str("sessionId"), strings.TrimSuffix(filepath.Base(src.Path), ".json"))
	chat := &annals.Chat{ID: reader.ChatID(f.Name(), sid), CreatedAt: start, Attributes: annals.Attributes{"source": f.Name()}}
	// The timeline's user and copilot events, in order, date the messages of the same kind.
	var userTimes, replyTimes []time.Time
	outcomes := map[string]reader.JSONObject{}
	for _, raw := range doc.Arr("timeline") {
		ev, err := reader.DecodeObject(raw)
		if err != nil {
			continue
		}
		t := reader.ParseTime(ev.Str("timestamp"))
		switch ev.Str("type") {
		case "user":
			userTimes = append(userTimes, t)
		case "copilot":
			replyTimes = append(replyTimes, t)
		case "tool_call_completed":
			if id := reader.FirstNonEmpty(ev.Str("callId"), ev.Str("toolCallId")); id != "" {
				outcomes[id] = ev
			}
		}
	}
	conv := reader.NewChatMessages()
	var entries []*annals.Entry
	last := start
	for i, raw := range doc.Arr("chatMessages") {
		m, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "chatMessages[%d]: not a JSON object", i)
			continue
		}
		switch m.Str("role") {
		case "user":
			last, userTimes = next(userTimes, last)
		case "assistant":
			if m.Str("content") != "" {
				last, replyTimes = next(replyTimes, last)
			}
		}
		entries = append(entries, conv.Message(m, fmt.Sprintf("m%d", i), last)...)
	}
	for id, ev := range outcomes {
		call := conv.Call(id)
		if call == nil {
			continue
		}
		res := ev.Obj("result")
		if call.Tool.Result == "" {
			call.Tool.Result = reader.Truncated(reader.ValidText(res.Str("log")), annals.MaxEntryBytes/4)
		}
		switch res.Str("type") {
		case "failure", "error":
			call.Tool.Outcome = annals.OutcomeFailed
		case "rejected", "denied":
			call.Tool.Outcome = annals.OutcomeBlocked
		case "success":
			call.Tool.Outcome = annals.OutcomeSucceeded
		}
		if t := reader.ParseTime(ev.Str("timestamp")); !t.IsZero() {
			call.Metadata = reader.MergeMeta(call.Metadata, map[string]any{"completed_at": t})
		}
	}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chat.ID, entries, out)
}

// next takes the first time of ts (or keeps last when there is none or it is zero).
func next(ts []time.Time, last time.Time) (time.Time, []time.Time) {
	if len(ts) == 0 {
		return last, ts
	}
	return reader.FirstTime(ts[0], last), ts[1:]
}
