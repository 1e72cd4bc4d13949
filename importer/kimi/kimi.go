// Package kimi reads the histories of Kimi CLI for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package kimi

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// KimiCLI imports Kimi CLI's sessions: ~/.kimi/sessions/<work dir hash>/<session>/context.jsonl
// (<session>.jsonl in older versions). Each line is one message as Kimi sends it to the model
// ({role, content, tool_calls, tool_call_id}, content a string or a list of text, think and
// media parts), or one of Kimi's bookkeeping lines, whose roles start with an underscore:
// _system_prompt (the system prompt), _checkpoint (a point /undo can return to) and _usage (the
// context's token count). The lines carry no ids and no times.
//
// The file is appended to, and read incrementally. When the user reverts to a checkpoint Kimi
// rewrites it (the old file is kept as context_<n>.jsonl, read as a chat of its own); entry
// ids come from the line number and the line's content, so the rewritten file, read again from
// its start, keeps the entries of the lines still there and appends the lines written since.
type KimiCLI struct{}

func (KimiCLI) Name() string { return "kimi-cli" }

// Resume: `kimi --session <session id>` (-S; Kimi CLI's option to open a saved session).
func (KimiCLI) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("kimi --session %s", native)
}

func (KimiCLI) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".kimi", "sessions", "*", "*", "context*.jsonl"),
		filepath.Join(home, ".kimi", "sessions", "*", "*.jsonl"),
	}
}

// Detect claims a context file in Kimi's folder, or a file whose first lines hold Kimi's
// bookkeeping roles, or a context.jsonl of {role, content} messages.
func (KimiCLI) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".jsonl") {
		return false
	}
	base := filepath.Base(path)
	if reader.InFolder(path, ".kimi/sessions") && base != "wire.jsonl" {
		return true
	}
	for i, line := range reader.HeadLines(head, 8) {
		f, ok := reader.LineFields(line)
		if !ok {
			return false
		}
		role := reader.FieldString(f, "role")
		if role == "_system_prompt" || role == "_checkpoint" || role == "_usage" {
			return true
		}
		if i == 0 && strings.HasPrefix(base, "context") && role != "" && reader.HasFields(f, "content") && !reader.HasFields(f, "message") {
			return true
		}
	}
	return false
}

// Companion: the wire log (the UI's event stream, which repeats the messages) and the session
// state beside a context file.
func (KimiCLI) Companion(path string) bool {
	base := filepath.Base(path)
	return (base == "wire.jsonl" || base == "state.json") && reader.InFolder(path, "sessions") ||
		base == "kimi.json" && reader.IsDir(filepath.Join(filepath.Dir(path), "sessions"))
}

// kimiWorkDir finds a session's work directory in Kimi's metadata, kimi.json in the share
// folder above sessions/: its session_to_workdir map, else the work directory whose MD5 names
// the session's folder.
func kimiWorkDir(contextPath, session string) string {
	// sessions/<hash>/<session>/context.jsonl, or sessions/<hash>/<session>.jsonl of old.
	hashDir := filepath.Dir(filepath.Dir(contextPath))
	if filepath.Base(filepath.Dir(hashDir)) != "sessions" {
		hashDir = filepath.Dir(contextPath)
	}
	hash, share := filepath.Base(hashDir), filepath.Dir(filepath.Dir(hashDir))
	b, err := os.ReadFile(filepath.Join(share, "kimi.json"))
	if err != nil {
		return ""
	}
	var meta struct {
		WorkDirs []struct {
			Path string `json:"path"`
		} `json:"work_dirs"`
		SessionToWorkDir map[string]string `json:"session_to_workdir"`
	}
	if json.Unmarshal(b, &meta) != nil {
		return ""
	}
	if p := meta.SessionToWorkDir[session]; p != "" {
		return p
	}
	for _, w := range meta.WorkDirs {
		if fmt.Sprintf("%x", md5.Sum([]byte(w.Path))) == hash {
			return w.Path
		}
	}
	return ""
}

// kmMessage is one context line.
type kmMessage struct {
	Role       string              `json:"role"`
	Content    json.RawMessage     `json:"content"`
	ToolCalls  []reader.OpenAICall `json:"tool_calls"`
	ToolCallID string              `json:"tool_call_id"`
	Name       string              `json:"name"`
}

type kmPart struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Think     string `json:"think"`
	Encrypted string `json:"encrypted"`
}

// kimiIDs reads a context file's path: the session id (its folder, or the file name in the
// old layout) and the chat id, which names a rotated context_<n>.jsonl apart.
func kimiIDs(path string) (session, chat string) {
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if strings.HasPrefix(base, "context") {
		session = filepath.Base(filepath.Dir(path))
		if base != "context" {
			return session, reader.ChatID("kimi-cli", session+"/"+base)
		}
		return session, reader.ChatID("kimi-cli", session)
	}
	return base, reader.ChatID("kimi-cli", base)
}

// kmState is what a file's parse needs to resume: whether its chat was created.
type kmState struct {
	Created bool `json:"created,omitempty"`
}

// kmSession reads one context file. A line's entries are held back while a tool call waits
// for its tool message, so a result read in a later import still lands on its call.
type kmSession struct {
	src     *reader.Source
	chat    *annals.Chat
	st      kmState
	pending []*annals.Entry
	calls   map[string]*annals.Entry
}

func (f KimiCLI) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	s := &kmSession{src: src, calls: map[string]*annals.Entry{}}
	if len(state) > 0 {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, fmt.Errorf("kimi-cli: bad import state: %w", err)
		}
	}
	session, chatID := kimiIDs(src.Path)
	attrs := annals.Attributes{"source": f.Name(), "session_id": session}
	if parent := reader.ChatID("kimi-cli", session); parent != chatID {
		attrs["parent"] = parent
	}
	if cwd := kimiWorkDir(src.Path, session); cwd != "" {
		attrs["cwd"] = cwd
	}
	s.chat = &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: src.ModTime.UTC(), Title: kimiTitle(filepath.Dir(src.Path))}
	return s, nil
}

func (s *kmSession) Line(ctx context.Context, n int, line []byte, out reader.Output) error {
	if len(line) == 0 {
		return nil
	}
	var m kmMessage
	if err := json.Unmarshal(line, &m); err != nil {
		out.Warnf(n, "not a Kimi CLI message: %s", reader.ShortJSONErr(err))
		return nil
	}
	if m.Role == "user" {
		// A new prompt: a call still without a result will not get one.
		clear(s.calls)
	}
	// The line's content is in its id: after a revert rewrote the file, a different line at
	// the same place is a new entry, not one already stored.
	id := fmt.Sprintf("L%d-%s", n, reader.ShortHash(string(line))[:8])
	for _, e := range kimiEntries(id, &m, s.calls) {
		e.Time = s.src.ModTime.UTC()
		s.pending = append(s.pending, e)
	}
	if len(s.calls) > 0 {
		return nil
	}
	return s.flush(out)
}

func (s *kmSession) Settled() bool { return len(s.pending) == 0 }

func (s *kmSession) State() (json.RawMessage, error) {
	b, err := json.Marshal(s.st)
	if err != nil {
		return nil, fmt.Errorf("kimi-cli: saving state: %w", err)
	}
	return b, nil
}

func (s *kmSession) Finish(ctx context.Context, out reader.Output) error { return s.flush(out) }

func (s *kmSession) flush(out reader.Output) error {
	if len(s.pending) == 0 {
		return nil
	}
	if !s.st.Created {
		if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(s.chat)}); err != nil {
			return err
		}
		s.st.Created = true
	}
	ents := s.pending
	s.pending = nil
	return out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: s.chat.ID, Entries: ents}})
}

// kimiTitle reads the title a person gave the session (/rename), from its state.json.
func kimiTitle(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return ""
	}
	var st struct {
		Title string `json:"custom_title"`
	}
	if json.Unmarshal(b, &st) != nil {
		return ""
	}
	return reader.Truncated(reader.ValidText(strings.TrimSpace(st.Title)), annals.MaxTitleBytes)
}

// kimiParts reads a message's content: its text, its reasoning, whether encrypted reasoning
// was dropped, and how many media parts it held (not stored).
func kimiParts(raw json.RawMessage) (text, think string, encrypted bool, media int) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, "", false, 0
	}
	var parts []kmPart
	_ = json.Unmarshal(raw, &parts)
	var texts, thinks []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "think":
			thinks = append(thinks, p.Think)
			encrypted = encrypted || p.Encrypted != ""
		default:
			media++
		}
	}
	return strings.Join(texts, "\n"), strings.Join(thinks, "\n"), encrypted, media
}

// kimiEntries maps one line: the system prompt and Kimi's own <system> notes are system
// entries, user and assistant messages their kinds (each tool call a tool entry), and a tool
// message lands on its call. Checkpoint and usage lines are bookkeeping and make no entry.
func kimiEntries(id string, m *kmMessage, calls map[string]*annals.Entry) []*annals.Entry {
	text, think, encrypted, media := kimiParts(m.Content)
	meta := map[string]any{"attachments": media, "encrypted_reasoning": reader.BoolOrNil(encrypted)}
	switch m.Role {
	case "_checkpoint", "_usage":
		return nil
	case "_system_prompt", "system":
		return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Text: reader.ValidText(text)}}
	case "user":
		if inner, ok := reader.StripTag(text, "system"); ok {
			// Kimi writes its own notes (CHECKPOINT 3) as user messages wrapped in <system>.
			return []*annals.Entry{{ID: id, Kind: annals.KindSystem, Text: reader.ValidText(inner), Metadata: reader.Metadata(map[string]any{"kimi_note": true})}}
		}
		return []*annals.Entry{{ID: id, Kind: annals.KindUser, Text: reader.ValidText(text), Metadata: reader.Metadata(meta)}}
	case "assistant":
		var out []*annals.Entry
		if text != "" || think != "" || len(m.ToolCalls) == 0 {
			out = append(out, &annals.Entry{ID: id, Kind: annals.KindAssistant, Text: reader.ValidText(text), Reasoning: reader.ValidText(think), Metadata: reader.Metadata(meta)})
		}
		for i, c := range m.ToolCalls {
			e := &annals.Entry{ID: reader.EntryID(id, i), Kind: annals.KindTool, Tool: &annals.ToolCall{
				Name: reader.ToolName(c.Function.Name), CallID: reader.SafeID(c.ID, annals.MaxIDBytes), Arguments: reader.RawJSON(c.Function.Arguments)}}
			if c.ID != "" {
				calls[c.ID] = e
			}
			out = append(out, e)
		}
		return out
	case "tool":
		outcome := annals.OutcomeSucceeded
		if strings.HasPrefix(strings.TrimSpace(text), "<system>ERROR") {
			outcome = annals.OutcomeFailed
		}
		result := reader.Truncated(reader.ValidText(text), annals.MaxEntryBytes/4)
		if call := calls[m.ToolCallID]; call != nil {
			call.Tool.Result, call.Tool.Outcome = result, outcome
			delete(calls, m.ToolCallID)
			return nil
		}
		return []*annals.Entry{{ID: id, Kind: annals.KindTool, Metadata: reader.Metadata(map[string]any{"orphan_result": true}),
			Tool: &annals.ToolCall{Name: reader.ToolName(m.Name), CallID: reader.SafeID(m.ToolCallID, annals.MaxIDBytes), Result: result, Outcome: outcome}}}
	}
	return []*annals.Entry{{ID: id, Kind: annals.KindEvent, Channel: "kimi-cli/" + reader.SanitizeChannel(reader.FirstNonEmpty(m.Role, "unknown")), Text: reader.ValidText(text)}}
}
