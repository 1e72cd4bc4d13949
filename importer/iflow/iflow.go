// Package iflow reads the histories of iFlow CLI for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package iflow

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// IFlow imports iFlow CLI sessions: ~/.iflow/projects/<encoded cwd>/session-<uuid>.jsonl, one
// line per record in Claude Code's envelope {uuid, parentUuid, sessionId: "session-<uuid>",
// timestamp, type: user|assistant, cwd, gitBranch, version, message} with Anthropic content
// blocks, except that a tool_result's content is Gemini CLI's {callId, responseParts:
// {functionResponse: {response: {output}}}, resultDisplay} (iFlow is a Gemini CLI fork) and
// the record carries toolUseResult {status, toolName}. An assistant record repeats the tool_use
// blocks of the turn's earlier records, so a call is taken once, by its id. The file is read
// whole; entry ids are <uuid>#<block>.
type IFlow struct{}

func (IFlow) Name() string { return "iflow" }

func (IFlow) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".iflow", "projects", "*", "session-*.jsonl")}
}

// Detect claims a JSON Lines file whose records carry iFlow's "session-<uuid>" session id in
// Claude Code's envelope (Claude Code's own ids are bare uuids).
func (IFlow) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".jsonl") {
		return false
	}
	for _, line := range reader.HeadLines(head, 3) {
		f, ok := reader.LineFields(line)
		if !ok {
			continue
		}
		if strings.HasPrefix(reader.FieldString(f, "sessionId"), "session-") && reader.HasFields(f, "uuid", "type", "message") {
			return true
		}
	}
	return false
}

func (f IFlow) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	sid := strings.TrimSuffix(filepath.Base(src.Path), ".jsonl")
	attrs := annals.Attributes{"source": f.Name()}
	chat := &annals.Chat{CreatedAt: src.ModTime.UTC()}
	var entries []*annals.Entry
	open := map[string]*annals.Entry{}
	seen := map[string]bool{}
	var runs []*annals.Run
	last := chat.CreatedAt
	err := src.EachObject(ctx, "iflow", out, func(n int, o reader.JSONObject) error {
		last = reader.FirstTime(reader.ParseTime(o.Str("timestamp")), last)
		if len(entries) == 0 {
			chat.CreatedAt = last
		}
		sid = reader.FirstNonEmpty(o.Str("sessionId"), sid)
		for _, k := range []string{"cwd", "gitBranch"} {
			if v := o.Str(k); v != "" && attrs[attrName(k)] == "" {
				attrs[attrName(k)] = v
			}
		}
		id := reader.SafeID(reader.FirstNonEmpty(o.Str("uuid"), fmt.Sprintf("L%d", n)), 200)
		m := o.Obj("message")
		switch o.Str("type") {
		case "user", "assistant":
		default:
			entries = append(entries, &annals.Entry{ID: id, Kind: annals.KindEvent, Time: last, Channel: "iflow/" + reader.SanitizeChannel(reader.FirstNonEmpty(o.Str("type"), "line")),
				Metadata: reader.SafeMeta(map[string]any{"line": reader.Extras(o)})})
			return nil
		}
		status := o.Obj("toolUseResult").Str("status")
		blocks := iflowBlocks(m, seen, status)
		ents := reader.AnthropicBlocks(blocks, m.Str("role"), id, last, open, func(i int, msg string) { out.Warnf(n, "content[%d]: %s", i, msg) })
		for _, e := range ents {
			e.SourceIDs = []string{id}
			if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Result == "" {
				open[e.Tool.CallID] = e
			}
			if rest, ok := strings.CutPrefix(e.Channel, "cursor/"); ok {
				e.Channel = "iflow/" + rest
			}
		}
		if model := m.Str("model"); model != "" {
			attrs["model"] = reader.FirstNonEmpty(attrs["model"], reader.SafeID(model, annals.MaxIDBytes))
			u := m.Obj("usage")
			end := last
			runs = append(runs, &annals.Run{ID: id, Status: annals.StatusCompleted, Model: reader.SafeID(model, annals.MaxIDBytes), StartedAt: last, EndedAt: &end,
				InputTokens: reader.ClampTokens(int64(u.Num("input_tokens"))), OutputTokens: reader.ClampTokens(int64(u.Num("output_tokens")))})
			for _, e := range ents {
				e.RunID = id
			}
		}
		entries = append(entries, ents...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("iflow: reading %s: %w", src.Path, err)
	}
	chat.ID, chat.Attributes = reader.ChatID(f.Name(), sid), attrs
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	if err := reader.EmitEntries(chat.ID, entries, out); err != nil {
		return err
	}
	for _, r := range runs {
		r.ChatID = chat.ID
		if err := out.Emit(annals.CaptureOp{Run: r}); err != nil {
			return err
		}
	}
	return nil
}

func attrName(k string) string {
	if k == "gitBranch" {
		return "git_branch"
	}
	return k
}

// iflowBlocks returns a message's content blocks, without the tool_use blocks an earlier record
// already held, and with each tool_result's Gemini-style content reduced to its output (and
// marked an error when the record's toolUseResult says the call did not succeed).
func iflowBlocks(m reader.JSONObject, seen map[string]bool, status string) []json.RawMessage {
	raw := m.Arr("content")
	if raw == nil {
		if s := m.Str("content"); s != "" {
			b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
			return []json.RawMessage{b}
		}
		return nil
	}
	var out []json.RawMessage
	for _, r := range raw {
		b, err := reader.DecodeObject(r)
		if err != nil {
			out = append(out, r)
			continue
		}
		switch b.Str("type") {
		case "tool_use":
			if id := b.Str("id"); id != "" {
				if seen[id] {
					continue
				}
				seen[id] = true
			}
		case "tool_result":
			c := b.Obj("content")
			if c == nil {
				break
			}
			fr := c.Obj("responseParts").Obj("functionResponse")
			if fr == nil {
				fr = c.Obj("functionResponse")
			}
			resp := fr.Obj("response")
			text := reader.FirstNonEmpty(resp.Str("output"), resp.Str("error"), c.Str("resultDisplay"))
			if text == "" && resp != nil {
				text = string(fr.Raw("response"))
			}
			isErr := resp.Str("error") != "" || (status != "" && status != "success")
			nb, _ := json.Marshal(map[string]any{"type": "tool_result", "tool_use_id": b.Str("tool_use_id"), "content": text, "is_error": isErr})
			r = nb
		}
		out = append(out, r)
	}
	return out
}
