// Package droid reads the histories of Factory Droid for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package droid

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// FactoryDroid imports Factory's Droid CLI sessions: ~/.factory/sessions/<encoded project
// path>/<session id>.jsonl, a session_start line {type, id, title, sessionTitle, owner,
// version, cwd} and then one {type: "message", id, timestamp, message: {role, content}} line per
// message, content being Anthropic-style blocks (text, thinking, tool_use, tool_result). A
// <session id>.settings.json beside it holds the session's settings (the model among them).
// The file is read whole; a tool result read in a later import than its call is kept as a tool
// entry of its own (never lost), since entry ids are the message ids.
type FactoryDroid struct{}

func (FactoryDroid) Name() string { return "factory-droid" }

// Resume: `droid --resume <session id>` (Droid's CLI, as recorded against droid 0.171.0 by the
// tools that drive it).
func (FactoryDroid) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("droid --resume %s", native)
}

func (FactoryDroid) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".factory", "sessions", "*", "*.jsonl")}
}

func (FactoryDroid) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".jsonl") {
		return false
	}
	f, _ := reader.FirstRecord(head)
	if reader.FieldString(f, "type") == "session_start" && reader.HasFields(f, "id") && (reader.HasFields(f, "sessionTitle") || reader.HasFields(f, "cwd")) {
		return true
	}
	return reader.InFolder(path, ".factory/sessions") && reader.FieldString(f, "type") == "message" && reader.HasFields(f, "message")
}

// Companion: the session's settings beside its transcript.
func (FactoryDroid) Companion(path string) bool {
	return strings.HasSuffix(path, ".settings.json") && reader.InFolder(path, ".factory/sessions")
}

func (f FactoryDroid) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	sid := strings.TrimSuffix(filepath.Base(src.Path), ".jsonl")
	attrs := annals.Attributes{"source": f.Name()}
	chat := &annals.Chat{CreatedAt: src.ModTime.UTC()}
	var entries []*annals.Entry
	open := map[string]*annals.Entry{}
	last := chat.CreatedAt
	err := src.EachObject(ctx, "factory-droid", out, func(n int, o reader.JSONObject) error {
		switch o.Str("type") {
		case "session_start":
			sid = reader.FirstNonEmpty(o.Str("id"), sid)
			chat.Title = reader.Truncated(reader.ValidText(reader.FirstNonEmpty(o.Str("sessionTitle"), o.Str("title"))), annals.MaxTitleBytes)
			if cwd := o.Str("cwd"); cwd != "" {
				attrs["cwd"] = cwd
			}
		case "message":
			m := o.Obj("message")
			last = reader.FirstTime(reader.ParseTime(o.Str("timestamp")), last)
			if len(entries) == 0 {
				chat.CreatedAt = last
			}
			id := reader.SafeID(reader.FirstNonEmpty(o.Str("id"), fmt.Sprintf("L%d", n)), 200)
			ents := reader.AnthropicBlocks(droidBlocks(m), m.Str("role"), id, last, open, func(i int, msg string) { out.Warnf(n, "content[%d]: %s", i, msg) })
			for _, e := range ents {
				e.SourceIDs = []string{id}
				if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Result == "" {
					open[e.Tool.CallID] = e
				}
				if rest, ok := strings.CutPrefix(e.Channel, "cursor/"); ok {
					e.Channel = "factory-droid/" + rest
				}
			}
			entries = append(entries, ents...)
		default:
			entries = append(entries, &annals.Entry{ID: fmt.Sprintf("L%d", n), Kind: annals.KindEvent, Time: last,
				Channel: "factory-droid/" + reader.SanitizeChannel(reader.FirstNonEmpty(o.Str("type"), "line")), Metadata: reader.SafeMeta(map[string]any{"line": reader.Extras(o)})})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("factory-droid: reading %s: %w", src.Path, err)
	}
	if m := droidModel(strings.TrimSuffix(src.Path, ".jsonl") + ".settings.json"); m != "" {
		attrs["model"] = m
	}
	chat.ID, chat.Attributes = reader.ChatID(f.Name(), sid), attrs
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	for len(entries) > 0 {
		k := min(len(entries), annals.MaxBatchEntries)
		if err := out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: chat.ID, Entries: entries[:k]}}); err != nil {
			return err
		}
		entries = entries[k:]
	}
	return nil
}

// droidBlocks returns a message's content as blocks (a string is one text block).
func droidBlocks(m reader.JSONObject) []json.RawMessage {
	if blocks := m.Arr("content"); blocks != nil {
		return blocks
	}
	if s := m.Str("content"); s != "" {
		b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return []json.RawMessage{b}
	}
	return nil
}

// droidModel reads the model from a session's settings file.
func droidModel(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	o, err := reader.DecodeObject(b)
	if err != nil {
		return ""
	}
	return reader.SafeID(o.Str("model"), annals.MaxIDBytes)
}
