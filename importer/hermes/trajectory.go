package hermes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Trajectory imports Hermes Agent's trajectories: the ShareGPT records agent/trajectory.py
// appends, one per finished conversation, to trajectory_samples.jsonl (failed ones to
// failed_trajectories.jsonl): {conversations: [{from: system|human|gpt|tool, value}], timestamp,
// model, completed}. A gpt turn holds its reasoning in <think>…</think> and its calls as
// <tool_call>{"name", "arguments"}</tool_call>; a tool turn answers them with
// <tool_response>{"tool_call_id", "name", "content"}</tool_response>, in order. Each line is a
// chat of its own, id hermes-trajectory:<file name>-<line>; the file is append-only and read
// incrementally (a LineParser): only the records appended since the last import are read.
type Trajectory struct{}

func (Trajectory) Name() string { return "hermes-trajectory" }

func (Trajectory) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".hermes", "trajectories", "*.jsonl")}
}

// Detect claims a JSON Lines file whose records are ShareGPT conversations with Hermes's
// fields beside them.
func (Trajectory) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".jsonl") {
		return false
	}
	f, ok := reader.FirstRecord(head)
	if !ok {
		// A long system turn can reach past the head; the record starts with its conversations.
		return strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(string(head), "\ufeff")), `{"conversations": [{"from": `)
	}
	return reader.HasFields(f, "conversations") && (reader.HasFields(f, "completed") || reader.HasFields(f, "model"))
}

// NewSession reads a trajectory file line by line: every line is a whole conversation, so
// only the lines appended since the last import are read, and nothing waits across lines.
func (f Trajectory) NewSession(src *reader.Source, _ json.RawMessage) (reader.LineSession, error) {
	return &trajectorySession{f: f, src: src, base: strings.TrimSuffix(filepath.Base(src.Path), ".jsonl")}, nil
}

type trajectorySession struct {
	f    Trajectory
	src  *reader.Source
	base string
}

func (s *trajectorySession) Line(_ context.Context, n int, line []byte, out reader.Output) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	o, err := reader.DecodeObject(line)
	if err != nil {
		out.Warnf(n, "not a JSON object: %v", err)
		return nil
	}
	return s.f.record(o, fmt.Sprintf("%s-%d", s.base, n), s.src, out)
}

func (s *trajectorySession) Settled() bool                               { return true }
func (s *trajectorySession) State() (json.RawMessage, error)             { return json.RawMessage(`{}`), nil }
func (s *trajectorySession) Finish(context.Context, reader.Output) error { return nil }

var (
	thinkRe    = regexp.MustCompile(`(?s)<think>\n?(.*?)\n?</think>\n?`)
	toolCallRe = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*</tool_call>`)
	toolRespRe = regexp.MustCompile(`(?s)<tool_response>\s*(.*?)\s*</tool_response>`)
)

func (f Trajectory) record(o reader.JSONObject, native string, src *reader.Source, out reader.Output) error {
	t := reader.FirstTime(reader.ParseTime(o.Str("timestamp")), src.ModTime.UTC())
	attrs := annals.Attributes{"source": f.Name(), "model": reader.SafeID(o.Str("model"), annals.MaxIDBytes)}
	if o.Raw("completed") != nil && !o.Boolean("completed") {
		attrs["hermes_completed"] = "false"
	}
	chat := &annals.Chat{ID: reader.ChatID(f.Name(), native), CreatedAt: t, Attributes: attrs}
	var entries []*annals.Entry
	var pending []*annals.Entry
	for i, raw := range o.Arr("conversations") {
		turn, err := reader.DecodeObject(raw)
		if err != nil {
			continue
		}
		id := fmt.Sprintf("t%d", i)
		value := reader.ValidText(turn.Str("value"))
		switch turn.Str("from") {
		case "system":
			entries = append(entries, &annals.Entry{ID: id, Kind: annals.KindSystem, Time: t, Text: reader.Truncated(value, annals.MaxEntryBytes/2), Metadata: reader.SafeMeta(map[string]any{"system_prompt": true})})
		case "human", "user":
			entries = append(entries, &annals.Entry{ID: id, Kind: annals.KindUser, Time: t, Text: value})
		case "gpt", "assistant":
			var reasoning []string
			for _, m := range thinkRe.FindAllStringSubmatch(value, -1) {
				if s := strings.TrimSpace(m[1]); s != "" {
					reasoning = append(reasoning, s)
				}
			}
			text := thinkRe.ReplaceAllString(value, "")
			calls := toolCallRe.FindAllStringSubmatch(text, -1)
			text = strings.TrimSpace(toolCallRe.ReplaceAllString(text, ""))
			if text != "" || len(reasoning) > 0 {
				entries = append(entries, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: t, Text: text, Reasoning: strings.Join(reasoning, "\n\n")})
			}
			for j, m := range calls {
				call, _ := reader.DecodeObject([]byte(m[1]))
				e := &annals.Entry{ID: reader.EntryID(id, j+1), Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{Name: reader.ToolName(call.Str("name")), Arguments: reader.CallArgs(call.Raw("arguments"))}}
				entries = append(entries, e)
				pending = append(pending, e)
			}
		case "tool":
			for j, m := range toolRespRe.FindAllStringSubmatch(value, -1) {
				resp, _ := reader.DecodeObject([]byte(m[1]))
				result := reader.ValidText(reader.BlocksText(resp.Raw("content")))
				e := takeCall(&pending, resp.Str("name"))
				if e == nil {
					e = &annals.Entry{ID: reader.EntryID(id, j+1), Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{Name: reader.ToolName(resp.Str("name"))}, Metadata: reader.SafeMeta(map[string]any{"orphan_result": true})}
					entries = append(entries, e)
				}
				e.Tool.CallID = reader.SafeID(resp.Str("tool_call_id"), annals.MaxIDBytes)
				e.Tool.Result, e.Tool.Outcome = reader.Truncated(result, annals.MaxEntryBytes/4), reader.ResultOutcome(result)
			}
		default:
			entries = append(entries, &annals.Entry{ID: id, Kind: annals.KindEvent, Time: t, Channel: "hermes/" + reader.SanitizeChannel(reader.FirstNonEmpty(turn.Str("from"), "turn")), Text: value})
		}
	}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chat.ID, entries, out)
}

// takeCall removes and returns the first call waiting for a result of this tool (or the first
// waiting at all when the response names none).
func takeCall(pending *[]*annals.Entry, name string) *annals.Entry {
	for i, e := range *pending {
		if name == "" || e.Tool.Name == reader.ToolName(name) {
			*pending = append((*pending)[:i], (*pending)[i+1:]...)
			return e
		}
	}
	return nil
}
