package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/annals-dev/annals"
)

// factoryDroid imports Factory's Droid CLI sessions: ~/.factory/sessions/<encoded project
// path>/<session id>.jsonl, a session_start line {type, id, title, sessionTitle, owner,
// version, cwd} and then one {type: "message", id, timestamp, message: {role, content}} line per
// message, content being Anthropic-style blocks (text, thinking, tool_use, tool_result). A
// <session id>.settings.json beside it holds the session's settings (the model among them).
// The file is read whole; a tool result read in a later import than its call is kept as a tool
// entry of its own (never lost), since entry ids are the message ids.
type factoryDroid struct{}

func (factoryDroid) Name() string { return "factory-droid" }

func (factoryDroid) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".factory", "sessions", "*", "*.jsonl")}
}

func (factoryDroid) Detect(path string, head []byte) bool {
	if head == nil || !hasExt(path, ".jsonl") {
		return false
	}
	lines := headLines(head, 1)
	if len(lines) == 0 {
		return false
	}
	f, _ := lineFields(lines[0])
	if fieldString(f, "type") == "session_start" && has(f, "id") && (has(f, "sessionTitle") || has(f, "cwd")) {
		return true
	}
	return inFolder(path, ".factory/sessions") && fieldString(f, "type") == "message" && has(f, "message")
}

// Companion: the session's settings beside its transcript.
func (factoryDroid) Companion(path string) bool {
	return strings.HasSuffix(path, ".settings.json") && inFolder(path, ".factory/sessions")
}

func (f factoryDroid) ParseFile(ctx context.Context, src *Source, out Output) error {
	fh, err := os.Open(src.Path)
	if err != nil {
		return fmt.Errorf("factory-droid: %w", err)
	}
	defer fh.Close()
	sid := strings.TrimSuffix(filepath.Base(src.Path), ".jsonl")
	attrs := annals.Attributes{"source": f.Name()}
	chat := &annals.Chat{CreatedAt: src.ModTime.UTC()}
	var entries []*annals.Entry
	open := map[string]*annals.Entry{}
	last := chat.CreatedAt
	err = eachLine(ctx, fh, func(n int, line []byte) error {
		o, err := decodeObject(line)
		if err != nil {
			out.Warnf(n, "not a JSON object: %v", err)
			return nil
		}
		switch o.str("type") {
		case "session_start":
			sid = firstNonEmpty(o.str("id"), sid)
			chat.Title = Truncated(ValidText(firstNonEmpty(o.str("sessionTitle"), o.str("title"))), annals.MaxTitleBytes)
			if cwd := o.str("cwd"); cwd != "" {
				attrs["cwd"] = cwd
			}
		case "message":
			m := o.obj("message")
			last = firstTime(ParseTime(o.str("timestamp")), last)
			if len(entries) == 0 {
				chat.CreatedAt = last
			}
			id := SafeID(firstNonEmpty(o.str("id"), fmt.Sprintf("L%d", n)), 200)
			ents := anthropicBlocks(droidBlocks(m), m.str("role"), id, last, open, func(i int, msg string) { out.Warnf(n, "content[%d]: %s", i, msg) })
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
				Channel: "factory-droid/" + sanitizeChannel(firstNonEmpty(o.str("type"), "line")), Metadata: safeMeta(map[string]any{"line": extras(o)})})
		}
		return nil
	}, out.Warnf)
	if err != nil {
		return fmt.Errorf("factory-droid: reading %s: %w", src.Path, err)
	}
	if m := droidModel(strings.TrimSuffix(src.Path, ".jsonl") + ".settings.json"); m != "" {
		attrs["model"] = m
	}
	chat.ID, chat.Attributes = ChatID(f.Name(), sid), attrs
	if err := out.Emit(annals.CaptureOp{Chat: cleanChat(chat)}); err != nil {
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
func droidBlocks(m jsonObject) []json.RawMessage {
	if blocks := m.arr("content"); blocks != nil {
		return blocks
	}
	if s := m.str("content"); s != "" {
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
	o, err := decodeObject(b)
	if err != nil {
		return ""
	}
	return SafeID(o.str("model"), annals.MaxIDBytes)
}
