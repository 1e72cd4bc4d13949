// Package droid reads the histories of Factory Droid for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package droid

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// FactoryDroid imports Factory's Droid CLI sessions: ~/.factory/sessions/<encoded project
// path>/<session id>.jsonl, a session_start line {type, id, title, sessionTitle, owner,
// version, cwd} and then one {type: "message", id, timestamp, message: {role, content}} line per
// message, content being Anthropic-style blocks (text, thinking, tool_use, tool_result). A
// <session id>.settings.json beside it holds the session's settings (the model among them).
// The file is append-only and read incrementally (a LineParser); a call waits, unsettled, for
// its result. Entry ids are <message id>#<block>.
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

// droidState is what a session needs to resume after a settled line.
type droidState struct {
	ChatID string    `json:"chat_id,omitempty"` // set once the chat was emitted
	Last   time.Time `json:"last"`
}

// NewSession reads a session file line by line (Droid appends its messages): only the lines
// appended since the last import are read. Nothing is settled while a call waits for its
// result.
func (f FactoryDroid) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	s := &droidSession{f: f, path: src.Path, sid: strings.TrimSuffix(filepath.Base(src.Path), ".jsonl"), attrs: annals.Attributes{"source": f.Name()}, open: map[string]*annals.Entry{}}
	s.st.Last = src.ModTime.UTC()
	if len(state) > 0 {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, fmt.Errorf("factory-droid: bad import state: %w", err)
		}
	}
	return s, nil
}

type droidSession struct {
	f         FactoryDroid
	path, sid string
	st        droidState
	title     string
	attrs     annals.Attributes
	created   time.Time
	open      map[string]*annals.Entry
	entries   []*annals.Entry // read, not yet emitted
}

func (s *droidSession) Settled() bool {
	return s.st.ChatID != "" && len(s.open) == 0 && len(s.entries) == 0
}

func (s *droidSession) State() (json.RawMessage, error) {
	b, err := json.Marshal(s.st)
	if err != nil {
		return nil, fmt.Errorf("factory-droid: saving state: %w", err)
	}
	return b, nil
}

func (s *droidSession) Finish(_ context.Context, out reader.Output) error { return s.flush(out) }

func (s *droidSession) Line(_ context.Context, n int, line []byte, out reader.Output) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	o, err := reader.DecodeObject(line)
	if err != nil {
		out.Warnf(n, "not a JSON object: %v", err)
		return nil
	}
	s.line(n, o, out)
	if len(s.open) > 0 {
		return nil
	}
	return s.flush(out)
}

// flush emits the chat (when not yet: its model from the settings beside the file) and the
// entries read.
func (s *droidSession) flush(out reader.Output) error {
	if len(s.entries) == 0 {
		return nil
	}
	if s.st.ChatID == "" {
		if m := droidModel(strings.TrimSuffix(s.path, ".jsonl") + ".settings.json"); m != "" {
			s.attrs["model"] = m
		}
		s.st.ChatID = reader.ChatID(s.f.Name(), s.sid)
		if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(&annals.Chat{ID: s.st.ChatID, Title: s.title, CreatedAt: s.created, Attributes: s.attrs})}); err != nil {
			return err
		}
	}
	ents := s.entries
	s.entries = nil
	return reader.EmitEntries(s.st.ChatID, ents, out)
}

func (s *droidSession) line(n int, o reader.JSONObject, out reader.Output) {
	switch o.Str("type") {
	case "session_start":
		s.sid = reader.FirstNonEmpty(o.Str("id"), s.sid)
		s.title = reader.Truncated(reader.ValidText(reader.FirstNonEmpty(o.Str("sessionTitle"), o.Str("title"))), annals.MaxTitleBytes)
		if cwd := o.Str("cwd"); cwd != "" {
			s.attrs["cwd"] = cwd
		}
	case "message":
		m := o.Obj("message")
		s.st.Last = reader.FirstTime(reader.ParseTime(o.Str("timestamp")), s.st.Last)
		if s.st.ChatID == "" && len(s.entries) == 0 {
			s.created = s.st.Last
		}
		id := reader.SafeID(reader.FirstNonEmpty(o.Str("id"), fmt.Sprintf("L%d", n)), 200)
		ents := reader.AnthropicBlocks(droidBlocks(m), m.Str("role"), id, s.st.Last, s.open, func(i int, msg string) { out.Warnf(n, "content[%d]: %s", i, msg) })
		for _, e := range ents {
			e.SourceIDs = []string{id}
			if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Result == "" {
				s.open[e.Tool.CallID] = e
			}
			if rest, ok := strings.CutPrefix(e.Channel, "cursor/"); ok {
				e.Channel = "factory-droid/" + rest
			}
		}
		s.entries = append(s.entries, ents...)
	default:
		s.entries = append(s.entries, &annals.Entry{ID: fmt.Sprintf("L%d", n), Kind: annals.KindEvent, Time: s.st.Last,
			Channel: "factory-droid/" + reader.SanitizeChannel(reader.FirstNonEmpty(o.Str("type"), "line")), Metadata: reader.SafeMeta(map[string]any{"line": reader.Extras(o)})})
	}
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
