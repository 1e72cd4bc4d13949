// Package grok reads the histories of Grok Build, xAI's coding CLI, for annals import
// (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default locations,
// read), listed in importer.Formats.
package grok

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Grok imports Grok Build sessions: ~/.grok/sessions/<url-encoded cwd>/<uuid>/ holds
// updates.jsonl, the append-only log of the session's Agent Client Protocol updates, one
// envelope per line {timestamp: unix seconds, method: "session/update" | "_x.ai/session/update",
// params: {sessionId, update: {sessionUpdate, ...}}} (older lines are the bare {sessionId,
// update}), and summary.json {info: {id, cwd}, generated_title, current_model_id, session_kind}.
// Streamed user_message_chunk, agent_message_chunk and agent_thought_chunk deltas are joined into
// one entry per message; a tool_call {toolCallId, title, rawInput} is a tool entry whose
// tool_call_update gives its result (the last content) and outcome (completed or failed);
// turn_completed {stop_reason, usage} is the turn's run. chat_history.jsonl (a model-context
// cache compaction rewrites) and the other files beside it are not read. The file is read
// whole; entry ids are L<line of the update that opened the entry>.
type Grok struct{}

func (Grok) Name() string { return "grok" }

func (Grok) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".grok", "sessions", "*", "*", "updates.jsonl")}
}

// Detect claims updates.jsonl files of ACP session updates.
func (Grok) Detect(path string, head []byte) bool {
	if head == nil || filepath.Base(path) != "updates.jsonl" {
		return false
	}
	for _, line := range reader.HeadLines(head, 3) {
		o, err := reader.DecodeObject(line)
		if err != nil {
			continue
		}
		if u := update(o); u != nil && u.Str("sessionUpdate") != "" {
			return true
		}
	}
	return false
}

// Companion: the files Grok keeps beside a session's updates.
func (Grok) Companion(path string) bool {
	return reader.InFolder(path, ".grok/sessions") && filepath.Base(path) != "updates.jsonl"
}

func update(o reader.JSONObject) reader.JSONObject {
	if p := o.Obj("params"); p != nil && p.Obj("update") != nil {
		return p.Obj("update")
	}
	return o.Obj("update")
}

type parse struct {
	entries []*annals.Entry
	prompt  []int // each entry's prompt index
	runs    []*annals.Run
	open    *annals.Entry
	calls   map[string]*annals.Entry
	model   string
	index   int
	turn    time.Time
}

func (f Grok) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	dir := filepath.Dir(src.Path)
	summary := readJSON(filepath.Join(dir, "summary.json"))
	sid := reader.FirstNonEmpty(summary.Obj("info").Str("id"), filepath.Base(dir))
	attrs := annals.Attributes{"source": f.Name(), "cwd": summary.Obj("info").Str("cwd")}
	p := &parse{calls: map[string]*annals.Entry{}, index: -1, model: summary.Str("current_model_id")}
	chat := &annals.Chat{CreatedAt: reader.FirstTime(reader.ParseTime(summary.Str("created_at")), src.ModTime.UTC()),
		Title: reader.Truncated(reader.ValidText(reader.FirstNonEmpty(summary.Str("title"), summary.Str("generated_title"))), annals.MaxTitleBytes)}
	last := chat.CreatedAt
	first := true
	// A torn last line (Grok heals it on its next write) is reported and skipped.
	err := src.EachObject(ctx, "grok", out, func(n int, o reader.JSONObject) error {
		if o.IsNum("timestamp") {
			last = time.Unix(int64(o.Num("timestamp")), 0).UTC()
		} else {
			last = reader.FirstTime(reader.ParseTime(o.Str("timestamp")), last)
		}
		if first {
			chat.CreatedAt, first = last, false
		}
		if id := reader.FirstNonEmpty(o.Obj("params").Str("sessionId"), o.Str("sessionId")); id != "" && summary == nil {
			sid = id
		}
		if u := update(o); u != nil {
			p.update(n, u, last)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("grok: reading %s: %w", src.Path, err)
	}
	attrs["model"] = reader.SafeID(p.firstModel(), annals.MaxIDBytes)
	chat.ID, chat.Attributes = reader.ChatID(f.Name(), sid), attrs
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	if err := reader.EmitEntries(chat.ID, p.entries, out); err != nil {
		return err
	}
	for _, r := range p.runs {
		r.ChatID = chat.ID
		if err := out.Emit(annals.CaptureOp{Run: r}); err != nil {
			return err
		}
	}
	return nil
}

func (p *parse) firstModel() string {
	for _, r := range p.runs {
		if r.Model != "" {
			return r.Model
		}
	}
	return p.model
}

func (p *parse) add(e *annals.Entry) {
	p.entries = append(p.entries, e)
	p.prompt = append(p.prompt, p.index)
}

func (p *parse) update(n int, u reader.JSONObject, t time.Time) {
	id := fmt.Sprintf("L%d", n)
	text := chunkText(u.Raw("content"))
	switch kind := u.Str("sessionUpdate"); kind {
	case "user_message_chunk":
		meta := u.Obj("_meta")
		if m := meta.Str("modelId"); m != "" {
			p.model = m
		}
		newTurn := p.open == nil || p.open.Kind != annals.KindUser || (meta.IsNum("promptIndex") && int(meta.Num("promptIndex")) != p.index)
		if newTurn {
			p.index++
			if meta.IsNum("promptIndex") {
				p.index = int(meta.Num("promptIndex"))
			}
			p.turn = t
			p.open = &annals.Entry{ID: id, Kind: annals.KindUser, Time: t}
			p.add(p.open)
		}
		p.open.Text += text
	case "agent_message_chunk", "agent_thought_chunk":
		if p.open == nil || p.open.Kind != annals.KindAssistant {
			p.open = &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: t}
			p.add(p.open)
		}
		if kind == "agent_thought_chunk" {
			p.open.Reasoning += text
		} else {
			p.open.Text += text
		}
	case "tool_call":
		p.open = nil
		e := &annals.Entry{ID: id, Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{Name: reader.ToolName(u.Str("title")), CallID: reader.SafeID(u.Str("toolCallId"), annals.MaxIDBytes),
			Arguments: reader.CallArgs(u.Raw("rawInput"))}, Metadata: reader.SafeMeta(map[string]any{"kind": u.Str("kind")})}
		if e.Tool.CallID != "" {
			p.calls[e.Tool.CallID] = e
		}
		p.add(e)
	case "tool_call_update":
		e := p.calls[u.Str("toolCallId")]
		if e == nil {
			return
		}
		if raw := u.Raw("content"); raw != nil {
			// Each update replaces the result: the last one holds the output.
			e.Tool.Result = reader.Truncated(reader.ValidText(resultText(raw)), annals.MaxEntryBytes/4)
		}
		switch u.Str("status") {
		case "completed":
			e.Tool.Outcome = annals.OutcomeSucceeded
		case "failed":
			e.Tool.Outcome = annals.OutcomeFailed
		}
	case "turn_completed":
		p.open = nil
		p.turnCompleted(id, u, t)
	case "model_changed", "model_auto_switched":
		p.model = reader.FirstNonEmpty(u.Str("model_id"), u.Str("modelId"), p.model)
	case "rewind_marker":
		p.open = nil
		if u.IsNum("target_prompt_index") {
			p.rewind(int(u.Num("target_prompt_index")))
		}
	default:
		// plan, available_commands_update, current_mode_update, hooks, subagent notices.
		p.open = nil
		p.add(&annals.Entry{ID: id, Kind: annals.KindEvent, Time: t, Channel: "grok/" + reader.SanitizeChannel(reader.FirstNonEmpty(kind, "update")),
			Metadata: reader.SafeMeta(map[string]any{"update": reader.Extras(u, "sessionUpdate")})})
	}
}

// turnCompleted records the turn as a run (its model, tokens and stop reason) and, when the
// turn streamed no reply, its agent_result as the reply.
func (p *parse) turnCompleted(id string, u reader.JSONObject, t time.Time) {
	usage := u.Obj("usage")
	model := p.model
	if models := slices.Sorted(maps.Keys(usage.Obj("modelUsage"))); len(models) > 0 {
		model = models[0]
	}
	status := annals.StatusCompleted
	switch u.Str("stop_reason") {
	case "cancelled", "canceled":
		status = annals.StatusCancelled
	case "error", "refusal":
		status = annals.StatusFailed
	}
	start, end := p.turn, t
	if start.IsZero() {
		start = t
	}
	p.runs = append(p.runs, &annals.Run{ID: reader.SafeID(reader.FirstNonEmpty(u.Str("prompt_id"), id), annals.MaxIDBytes), Status: status, Model: reader.SafeID(model, annals.MaxIDBytes),
		StartedAt: start, EndedAt: &end, InputTokens: reader.ClampTokens(int64(usage.Num("inputTokens"))), OutputTokens: reader.ClampTokens(int64(usage.Num("outputTokens")))})
	if r := u.Str("agent_result"); strings.TrimSpace(r) != "" {
		for i := len(p.entries) - 1; i >= 0 && p.prompt[i] == p.index; i-- {
			if p.entries[i].Kind == annals.KindAssistant && p.entries[i].Text != "" {
				return
			}
		}
		p.add(&annals.Entry{ID: id, Kind: annals.KindAssistant, Time: t, Text: reader.ValidText(r)})
	}
}

// rewind drops the entries of the prompts from target on: Grok appends a rewind marker and
// keeps the superseded lines, which the turns after the marker replace.
func (p *parse) rewind(target int) {
	keep := p.entries[:0]
	prompts := p.prompt[:0]
	for i, e := range p.entries {
		if p.prompt[i] < target {
			keep = append(keep, e)
			prompts = append(prompts, p.prompt[i])
		}
	}
	p.entries, p.prompt = keep, prompts
	p.index = min(p.index, target-1)
}

// chunkText is the text of a streamed chunk: one content block or an array of them.
func chunkText(raw json.RawMessage) string {
	var sb strings.Builder
	for _, b := range blocks(raw) {
		if b.Str("type") == "text" {
			sb.WriteString(b.Str("text"))
		}
	}
	return reader.ValidText(sb.String())
}

// resultText is a tool_call_update's content: text blocks, ACP {type: content, content: {text}}
// wrappers, and {type: diff, path, oldText, newText} blocks, rendered as a minimal diff.
func resultText(raw json.RawMessage) string {
	var sb strings.Builder
	for _, b := range blocks(raw) {
		switch b.Str("type") {
		case "text":
			sb.WriteString(b.Str("text"))
		case "content":
			sb.WriteString(b.Obj("content").Str("text"))
		case "diff":
			sb.WriteString(b.Str("path") + "\n")
			for _, l := range splitLines(b.Str("oldText")) {
				sb.WriteString("- " + l + "\n")
			}
			for _, l := range splitLines(b.Str("newText")) {
				sb.WriteString("+ " + l + "\n")
			}
		}
	}
	return sb.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func blocks(raw json.RawMessage) []reader.JSONObject {
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '{' {
		o, err := reader.DecodeObject(raw)
		if err != nil {
			return nil
		}
		return []reader.JSONObject{o}
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return nil
	}
	var out []reader.JSONObject
	for _, a := range arr {
		if o, err := reader.DecodeObject(a); err == nil {
			out = append(out, o)
		}
	}
	return out
}

func readJSON(path string) reader.JSONObject {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	o, err := reader.DecodeObject(b)
	if err != nil {
		return nil
	}
	return o
}
