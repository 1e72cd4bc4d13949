// Package cursor reads the histories of Cursor (agent CLI transcripts and store.db) for annals
// import (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default
// locations, read), listed in importer.Formats.
package cursor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Cursor imports Cursor's agent transcripts: one JSON Lines file per conversation under
// ~/.cursor/projects/<project>/agent-transcripts/ (<id>.jsonl, or <id>/<id>.jsonl; a sub-agent's
// transcript sits in a subagents/ directory under its parent's). Each line is one message
// {"role", "message": {"content": [blocks]}} with Anthropic-style blocks (text, thinking,
// tool_use, tool_result). The lines carry no ids and no times, and tool calls no ids either, so
// entry ids come from line numbers (stable, since the file only grows) and entry times from
// the file's modification time.
type Cursor struct{}

func (Cursor) Name() string { return "cursor" }

func (Cursor) Detect(path string, head []byte) bool {
	if head == nil || !strings.HasSuffix(path, ".jsonl") {
		return false
	}
	h := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if !bytes.HasPrefix(h, []byte(`{"role":`)) || !bytes.Contains(h, []byte(`"message":{"content":`)) {
		return false
	}
	return true
}

func (Cursor) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".cursor", "projects", "*", "agent-transcripts", "**", "*.jsonl"),
	}
}

// cursorState is what a transcript needs to resume: the chat exists once emitted.
type cursorState struct {
	Emitted bool `json:"emitted,omitempty"`
}

func (f Cursor) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	s := &cursorSession{format: f.Name(), path: src.Path, when: src.ModTime.UTC()}
	if len(state) > 0 {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, fmt.Errorf("cursor: bad import state: %w", err)
		}
	}
	id, parent, project := cursorPathIDs(src.Path)
	s.chatID = reader.ChatID(f.Name(), id)
	s.attrs = annals.Attributes{"source": f.Name()}
	if parent != "" {
		s.attrs["parent"] = reader.ChatID(f.Name(), parent)
	}
	if project != "" {
		s.attrs["project"] = project
	}
	return s, nil
}

// cursorPathIDs reads a transcript path: the conversation id (the file name), the parent
// conversation of a sub-agent transcript, and the project directory's name.
func cursorPathIDs(path string) (id, parent, project string) {
	base := filepath.Base(path)
	id = strings.TrimSuffix(base, filepath.Ext(base))
	parts := strings.Split(filepath.ToSlash(filepath.Dir(path)), "/")
	for i, p := range parts {
		if p == "agent-transcripts" && i > 0 {
			project = parts[i-1]
		}
		if p == "subagents" && i > 0 {
			parent = parts[i-1]
		}
	}
	return id, parent, project
}

type cursorSession struct {
	format string
	path   string
	when   time.Time
	chatID string
	attrs  annals.Attributes
	st     cursorState
	// open holds the tool calls of the previous line that have ids, waiting for a result on
	// the next line; they are emitted with that line.
	open    map[string]*annals.Entry
	pending []*annals.Entry
}

func (s *cursorSession) Settled() bool { return len(s.pending) == 0 }

func (s *cursorSession) State() (json.RawMessage, error) {
	b, err := json.Marshal(s.st)
	if err != nil {
		return nil, fmt.Errorf("cursor: saving state: %w", err)
	}
	return b, nil
}

func (s *cursorSession) Finish(ctx context.Context, out reader.Output) error { return s.flush(out) }

func (s *cursorSession) flush(out reader.Output) error {
	s.open = nil
	if len(s.pending) == 0 {
		return nil
	}
	ents := s.pending
	s.pending = nil
	return out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: s.chatID, Entries: ents}})
}

func (s *cursorSession) Line(ctx context.Context, n int, line []byte, out reader.Output) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	if !s.st.Emitted {
		s.st.Emitted = true
		if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(&annals.Chat{ID: s.chatID, Attributes: s.attrs, CreatedAt: s.when})}); err != nil {
			return err
		}
	}
	obj, err := reader.DecodeObject(line)
	if err != nil {
		out.Warnf(n, "not a JSON object: %v", err)
		return nil
	}
	msg := obj.Obj("message")
	role := reader.FirstNonEmpty(obj.Str("role"), msg.Str("role"))
	t := reader.FirstTime(reader.ParseTime(obj.Str("timestamp")), reader.ParseTime(obj.Str("createdAt")), s.when)
	meta := reader.Extras(obj, "role", "message", "timestamp", "createdAt")
	blocks := msg.Arr("content")
	if blocks == nil {
		if str := msg.Str("content"); str != "" {
			b, _ := json.Marshal(map[string]string{"type": "text", "text": str})
			blocks = []json.RawMessage{b}
		}
	}
	// Calls of the previous line wait only for this line: Cursor records results, when it
	// records them at all, right after their call.
	hasResult := false
	for _, b := range blocks {
		if bo, err := reader.DecodeObject(b); err == nil && (bo.Str("type") == "tool_result" || bo.Str("type") == "tool-result") {
			hasResult = true
		}
	}
	if !hasResult {
		if err := s.flush(out); err != nil {
			return err
		}
	}
	ents := reader.AnthropicBlocks(blocks, role, fmt.Sprintf("L%d", n), t, s.open, func(i int, msg string) { out.Warnf(n, "content[%d]: %s", i, msg) })
	if len(ents) == 0 && meta != nil {
		ents = append(ents, &annals.Entry{ID: reader.EntryID(fmt.Sprintf("L%d", n), -1), Kind: annals.KindEvent, Channel: "cursor/" + reader.SanitizeChannel(reader.FirstNonEmpty(role, "unknown")), Time: t})
	}
	if len(ents) > 0 && meta != nil {
		ents[0].Metadata = reader.MergeMeta(ents[0].Metadata, map[string]any{"line": meta})
	}
	for _, e := range ents {
		if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Outcome == "" && e.Tool.Result == "" {
			if s.open == nil {
				s.open = map[string]*annals.Entry{}
			}
			s.open[e.Tool.CallID] = e
		}
	}
	s.pending = append(s.pending, ents...)
	if len(s.open) == 0 {
		return s.flush(out)
	}
	return nil
}
