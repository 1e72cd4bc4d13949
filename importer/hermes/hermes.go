// Package hermes reads the histories of Hermes Agent (Nous Research) for annals import
// (docs/IMPORT.md): its archival session documents and its ShareGPT trajectories, two readers
// behind the importer/reader contracts, listed in importer.Formats.
package hermes

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Hermes imports Hermes Agent's archival session logs: ~/.hermes/sessions/session_<id>.json, one
// JSON document per session {session_id, model, base_url, platform, session_start,
// last_updated, system_prompt, tools, message_count, messages}, the messages in OpenAI's chat
// format (assistant tool_calls answered by role "tool" messages with tool_call_id; reasoning in
// "reasoning"; codex_reasoning_items carry encrypted reasoning, which is dropped). Hermes
// rewrites the document as the session goes on, so it is read whole; entry ids are m<index>
// (and m<index>#<call> for a call), stable because the messages are only ever appended.
type Hermes struct{}

func (Hermes) Name() string { return "hermes" }

func (Hermes) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".hermes", "sessions", "session_*.json")}
}

// Detect claims a JSON document naming its session with Hermes's header fields.
func (Hermes) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".json") {
		return false
	}
	f, ok := reader.LineFields(head)
	if !ok {
		// A long system prompt can push the document's end past the head.
		f = reader.PrefixFields(head)
	}
	return reader.HasFields(f, "session_id", "session_start") && (reader.HasFields(f, "platform") || reader.HasFields(f, "messages"))
}

// Resume: `hermes --resume <session_id>` (hermes_cli/main.py's usage: "Resume a specific
// session by ID").
func (Hermes) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("hermes --resume %s", native)
}

func (f Hermes) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	doc, err := readDoc(src)
	if err != nil {
		return fmt.Errorf("hermes: %w", err)
	}
	sid := reader.FirstNonEmpty(doc.Str("session_id"), strings.TrimSuffix(strings.TrimPrefix(filepath.Base(src.Path), "session_"), ".json"))
	start := reader.FirstTime(reader.ParseTime(doc.Str("session_start")), src.ModTime.UTC())
	end := reader.FirstTime(reader.ParseTime(doc.Str("last_updated")), start)
	attrs := annals.Attributes{"source": f.Name(), "model": reader.SafeID(doc.Str("model"), annals.MaxIDBytes), "hermes_platform": reader.SafeID(doc.Str("platform"), annals.MaxIDBytes)}
	chat := &annals.Chat{ID: reader.ChatID(f.Name(), sid), CreatedAt: start, Attributes: attrs}
	var entries []*annals.Entry
	if sp := doc.Str("system_prompt"); sp != "" {
		entries = append(entries, &annals.Entry{ID: "system", Kind: annals.KindSystem, Time: start, Text: reader.Truncated(reader.ValidText(sp), annals.MaxEntryBytes/2),
			Metadata: reader.SafeMeta(map[string]any{"system_prompt": true})})
	}
	msgs := doc.Arr("messages")
	c := newConverter(start)
	for i, raw := range msgs {
		m, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "messages[%d]: %v", i, err)
			continue
		}
		t := start
		if ts := reader.ParseTime(m.Str("timestamp")); !ts.IsZero() {
			t = ts
		} else if i == len(msgs)-1 {
			t = end
		}
		entries = append(entries, c.message(m, fmt.Sprintf("m%d", i), t)...)
	}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chat.ID, entries, out)
}

// converter maps OpenAI-style messages to entries, pairing tool results with their calls.
type converter struct {
	open map[string]*annals.Entry
	last time.Time
}

func newConverter(t time.Time) *converter {
	return &converter{open: map[string]*annals.Entry{}, last: t}
}

// message maps one message; a tool message that answers an open call fills it and makes no
// entry of its own.
func (c *converter) message(m reader.JSONObject, id string, t time.Time) []*annals.Entry {
	text := reader.ValidText(reader.BlocksText(m.Raw("content")))
	switch m.Str("role") {
	case "user":
		return []*annals.Entry{{ID: id, Kind: annals.KindUser, Time: t, Text: text}}
	case "system", "developer":
		return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Time: t, Text: text}}
	case "tool", "function":
		callID := m.Str("tool_call_id")
		outcome := toolOutcome(text)
		if call := c.open[callID]; callID != "" && call != nil {
			call.Tool.Result, call.Tool.Outcome = reader.Truncated(text, annals.MaxEntryBytes/4), outcome
			delete(c.open, callID)
			return nil
		}
		return []*annals.Entry{{ID: id, Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{Name: reader.ToolName(m.Str("name")), CallID: reader.SafeID(callID, annals.MaxIDBytes),
			Result: reader.Truncated(text, annals.MaxEntryBytes/4), Outcome: outcome}, Metadata: reader.SafeMeta(map[string]any{"orphan_result": true})}}
	}
	var out []*annals.Entry
	_, encrypted := reader.ScrubOpaque(m.Raw("codex_reasoning_items"))
	reasoning := reader.ValidText(reader.FirstNonEmpty(m.Str("reasoning"), m.Str("reasoning_content")))
	if text != "" || reasoning != "" {
		out = append(out, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: t, Text: text, Reasoning: reasoning,
			Metadata: reader.SafeMeta(map[string]any{"finish_reason": m.Str("finish_reason"), "encrypted_reasoning": reader.BoolOrNil(encrypted)})})
	}
	for j, raw := range m.Arr("tool_calls") {
		tc, err := reader.DecodeObject(raw)
		if err != nil {
			continue
		}
		fn := tc.Obj("function")
		e := &annals.Entry{ID: reader.EntryID(id, j+1), Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{
			Name: reader.ToolName(fn.Str("name")), CallID: reader.SafeID(reader.FirstNonEmpty(tc.Str("id"), tc.Str("call_id")), annals.MaxIDBytes),
			Arguments: reader.CallArgs(fn.Raw("arguments"))}}
		if e.Tool.CallID != "" {
			c.open[e.Tool.CallID] = e
		}
		out = append(out, e)
	}
	return out
}

// toolOutcome reads Hermes's tool result JSON ({output, exit_code, error}): a non-zero exit code
// or an error is a failure.
func toolOutcome(result string) annals.Outcome {
	o, err := reader.DecodeObject([]byte(result))
	if err != nil {
		return annals.OutcomeSucceeded
	}
	if (o.IsNum("exit_code") && o.Num("exit_code") != 0) || o.Str("error") != "" || (o.Raw("success") != nil && !o.Boolean("success")) {
		return annals.OutcomeFailed
	}
	return annals.OutcomeSucceeded
}

func readDoc(src *reader.Source) (reader.JSONObject, error) {
	r, err := src.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, 1<<30))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", src.Path, err)
	}
	doc, err := reader.DecodeObject(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JSON document: %w", src.Path, err)
	}
	return doc, nil
}
