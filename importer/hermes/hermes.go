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
	c := reader.NewChatMessages()
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
		entries = append(entries, c.Message(m, fmt.Sprintf("m%d", i), t)...)
	}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chat.ID, entries, out)
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
