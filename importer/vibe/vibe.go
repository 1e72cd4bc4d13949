// Package vibe reads the histories of Mistral Vibe for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package vibe

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

// Vibe imports Mistral Vibe's session logs (vibe/core/session/session_logger.py):
// ~/.vibe/logs/session/session_<YYYYmmdd_HHMMSS>_<short id>/ holds messages.jsonl, one
// LLMMessage per line as Vibe appends them ({role: user|assistant|tool, content,
// reasoning_content, tool_calls: [{id, function: {name, arguments}}], name, tool_call_id,
// message_id, injected}), and meta.json, rewritten after every turn ({session_id,
// parent_session_id, start_time, end_time, git_commit, git_branch, environment:
// {working_directory}, title, title_source, config: {active_model}, system_prompt, stats}).
// Messages carry no time (see NewSession for how they are dated). The file is append-only and
// read incrementally (a LineParser). A tool message
// whose content is wrapped in <tool_error> is a failed call. Entry ids are the message_id (or
// L<line> for a tool message, which has none).
type Vibe struct{}

func (Vibe) Name() string { return "mistral-vibe" }

func (Vibe) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".vibe", "logs", "session", "*", "messages.jsonl")}
}

// Detect claims a messages.jsonl beside Vibe's meta.json, or lines carrying Vibe's message_id
// with an OpenAI role.
func (Vibe) Detect(path string, head []byte) bool {
	if head == nil || filepath.Base(path) != "messages.jsonl" {
		return false
	}
	f, ok := reader.FirstRecord(head)
	if !ok || !reader.HasFields(f, "role") {
		return false
	}
	if reader.HasFields(f, "message_id") {
		return true
	}
	_, err := os.Stat(filepath.Join(filepath.Dir(path), "meta.json"))
	return err == nil && reader.InFolder(path, ".vibe/logs/session")
}

// Companion: the session's meta.json.
func (Vibe) Companion(path string) bool {
	return filepath.Base(path) == "meta.json" && reader.InFolder(path, ".vibe/logs")
}

// Resume: `vibe --resume <session id>` (mistral-vibe README, Session Continuation and
// Resumption: "Resume a specific session by ID").
func (Vibe) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("vibe --resume %s", native)
}

// vibeState is what a session needs to resume after a settled line.
type vibeState struct {
	ChatID string `json:"chat_id,omitempty"` // set once the chat was emitted
	Title  string `json:"title,omitempty"`   // the meta.json title last given
}

// NewSession reads messages.jsonl line by line (Vibe appends its messages): only the lines
// appended since the last import are read; meta.json, which Vibe rewrites after every turn,
// is read each time for the chat, its title and the times. Messages carry no time: the system
// prompt and the first message are dated at start_time, a later message at the end_time
// meta.json holds when it is read (the end of the turn that wrote it, or a later one).
func (f Vibe) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	meta := readMeta(filepath.Join(filepath.Dir(src.Path), "meta.json"))
	s := &vibeSession{f: f, dir: filepath.Dir(src.Path), meta: meta, open: map[string]*annals.Entry{}}
	s.start = reader.FirstTime(reader.ParseTime(meta.Str("start_time")), src.ModTime.UTC())
	s.end = reader.FirstTime(reader.ParseTime(meta.Str("end_time")), s.start)
	if len(state) > 0 {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, fmt.Errorf("mistral-vibe: bad import state: %w", err)
		}
	}
	return s, nil
}

type vibeSession struct {
	f          Vibe
	dir        string
	meta       reader.JSONObject
	st         vibeState
	start, end time.Time
	open       map[string]*annals.Entry
	pending    []*annals.Entry
}

func (s *vibeSession) Settled() bool {
	return s.st.ChatID != "" && len(s.open) == 0 && len(s.pending) == 0
}

func (s *vibeSession) State() (json.RawMessage, error) {
	b, err := json.Marshal(s.st)
	if err != nil {
		return nil, fmt.Errorf("mistral-vibe: saving state: %w", err)
	}
	return b, nil
}

func (s *vibeSession) Finish(_ context.Context, out reader.Output) error { return s.flush(out) }

func (s *vibeSession) Line(_ context.Context, n int, line []byte, out reader.Output) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	m, err := reader.DecodeObject(line)
	if err != nil {
		out.Warnf(n, "not a JSON object: %v", err)
		return nil
	}
	t := s.end
	if n == 1 {
		t = s.start
	}
	s.pending = append(s.pending, message(m, n, t, s.open)...)
	if len(s.open) > 0 {
		return nil
	}
	return s.flush(out)
}

// flush emits the chat with its system prompt (when not yet), a title meta.json gave since,
// and the messages read.
func (s *vibeSession) flush(out reader.Output) error {
	meta := s.meta
	title := reader.Truncated(reader.ValidText(meta.Str("title")), annals.MaxTitleBytes)
	if s.st.ChatID == "" {
		if len(s.pending) == 0 {
			return nil
		}
		sid := reader.FirstNonEmpty(meta.Str("session_id"), filepath.Base(s.dir))
		attrs := annals.Attributes{"source": s.f.Name(), "cwd": meta.Obj("environment").Str("working_directory"), "git_branch": meta.Str("git_branch"),
			"model": reader.SafeID(meta.Obj("config").Str("active_model"), annals.MaxIDBytes)}
		if p := meta.Str("parent_session_id"); p != "" {
			attrs["vibe_parent_session"] = reader.SafeID(p, annals.MaxIDBytes)
		}
		chat := &annals.Chat{ID: reader.ChatID(s.f.Name(), sid), CreatedAt: s.start, Title: title, Attributes: attrs}
		s.st.ChatID, s.st.Title = chat.ID, title
		if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
			return err
		}
		if sp := meta.Obj("system_prompt"); sp != nil {
			s.pending = append([]*annals.Entry{{ID: "system", Kind: annals.KindSystem, Time: s.start, Text: reader.Truncated(reader.ValidText(reader.BlocksText(sp.Raw("content"))), annals.MaxEntryBytes/2),
				Metadata: reader.SafeMeta(map[string]any{"system_prompt": true})}}, s.pending...)
		}
	}
	if title != "" && title != s.st.Title {
		s.st.Title = title
		out.TitleForChat(s.st.ChatID, title)
	}
	ents := s.pending
	s.pending = nil
	return reader.EmitEntries(s.st.ChatID, ents, out)
}

func message(m reader.JSONObject, n int, t time.Time, open map[string]*annals.Entry) []*annals.Entry {
	id := reader.SafeID(reader.FirstNonEmpty(m.Str("message_id"), fmt.Sprintf("L%d", n)), 200)
	text := reader.ValidText(reader.BlocksText(m.Raw("content")))
	meta := reader.SafeMeta(map[string]any{"injected": reader.BoolOrNil(m.Boolean("injected")), "encrypted_reasoning": reader.BoolOrNil(m.Str("reasoning_signature") != "")})
	switch m.Str("role") {
	case "user":
		return []*annals.Entry{{ID: id, Kind: annals.KindUser, Time: t, Text: text, Metadata: meta}}
	case "tool":
		outcome := annals.OutcomeSucceeded
		if strings.HasPrefix(strings.TrimSpace(text), "<tool_error>") {
			outcome = annals.OutcomeFailed
		}
		callID := m.Str("tool_call_id")
		if call := open[callID]; callID != "" && call != nil {
			call.Tool.Result, call.Tool.Outcome = reader.Truncated(text, annals.MaxEntryBytes/4), outcome
			delete(open, callID)
			return nil
		}
		return []*annals.Entry{{ID: id, Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{Name: reader.ToolName(m.Str("name")), CallID: reader.SafeID(callID, annals.MaxIDBytes),
			Result: reader.Truncated(text, annals.MaxEntryBytes/4), Outcome: outcome}, Metadata: reader.SafeMeta(map[string]any{"orphan_result": true})}}
	case "system":
		return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Time: t, Text: text, Metadata: meta}}
	}
	var out []*annals.Entry
	reasoning := reader.ValidText(reader.BlocksText(m.Raw("reasoning_content")))
	if text != "" || reasoning != "" {
		out = append(out, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: t, Text: text, Reasoning: reasoning, Metadata: meta})
	}
	for j, raw := range m.Arr("tool_calls") {
		tc, err := reader.DecodeObject(raw)
		if err != nil {
			continue
		}
		fn := tc.Obj("function")
		e := &annals.Entry{ID: reader.EntryID(id, j+1), Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{Name: reader.ToolName(fn.Str("name")),
			CallID: reader.SafeID(tc.Str("id"), annals.MaxIDBytes), Arguments: reader.CallArgs(fn.Raw("arguments"))}}
		if e.Tool.CallID != "" {
			open[e.Tool.CallID] = e
		}
		out = append(out, e)
	}
	return out
}

func readMeta(path string) reader.JSONObject {
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
