// Package iflow reads the histories of iFlow CLI for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package iflow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// IFlow imports iFlow CLI sessions: ~/.iflow/projects/<encoded cwd>/session-<uuid>.jsonl, one
// line per record in Claude Code's envelope {uuid, parentUuid, sessionId: "session-<uuid>",
// timestamp, type: user|assistant, cwd, gitBranch, version, message} with Anthropic content
// blocks, except that a tool_result's content is Gemini CLI's {callId, responseParts:
// {functionResponse: {response: {output}}}, resultDisplay} (iFlow is a Gemini CLI fork) and
// the record carries toolUseResult {status, toolName}. An assistant record repeats the tool_use
// blocks of the turn's earlier records, so a call is taken once, by its id. The file is
// append-only and read incrementally (a LineParser); entry ids are <uuid>#<block>.
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

// iflowState is what a session needs to resume after a settled line: the chat, once emitted,
// the last time read, and the tool_use ids already taken (iFlow repeats them in later records).
type iflowState struct {
	ChatID string    `json:"chat_id,omitempty"`
	Last   time.Time `json:"last"`
	Seen   []string  `json:"seen,omitempty"`
}

// NewSession reads a session file line by line (iFlow appends its records): only the lines
// appended since the last import are read. The chat is emitted once its model is known (the
// first reply), or at the end of what the file holds now; until then nothing is settled.
func (f IFlow) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	s := &iflowSession{f: f, sid: strings.TrimSuffix(filepath.Base(src.Path), ".jsonl"), attrs: annals.Attributes{"source": f.Name()},
		open: map[string]*annals.Entry{}, seen: map[string]bool{}}
	s.st.Last = src.ModTime.UTC()
	s.created = s.st.Last
	if len(state) > 0 {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, fmt.Errorf("iflow: bad import state: %w", err)
		}
		for _, id := range s.st.Seen {
			s.seen[id] = true
		}
	}
	return s, nil
}

type iflowSession struct {
	f       IFlow
	st      iflowState
	sid     string
	attrs   annals.Attributes
	created time.Time
	open    map[string]*annals.Entry
	seen    map[string]bool
	pending []*annals.Entry
	runs    []*annals.Run
}

func (s *iflowSession) Settled() bool {
	return s.st.ChatID != "" && len(s.open) == 0 && len(s.pending) == 0 && len(s.runs) == 0
}

func (s *iflowSession) State() (json.RawMessage, error) {
	s.st.Seen = s.st.Seen[:0]
	for id := range s.seen {
		s.st.Seen = append(s.st.Seen, id)
	}
	sort.Strings(s.st.Seen)
	b, err := json.Marshal(s.st)
	if err != nil {
		return nil, fmt.Errorf("iflow: saving state: %w", err)
	}
	return b, nil
}

func (s *iflowSession) Finish(_ context.Context, out reader.Output) error { return s.flush(out, true) }

func (s *iflowSession) Line(_ context.Context, n int, line []byte, out reader.Output) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	o, err := reader.DecodeObject(line)
	if err != nil {
		out.Warnf(n, "not a JSON object: %v", err)
		return nil
	}
	s.record(n, o, out)
	if len(s.open) > 0 || (s.st.ChatID == "" && s.attrs["model"] == "") {
		return nil // a call waits for its result, or the chat for its model
	}
	return s.flush(out, false)
}

// flush emits the chat (when not yet) and what is held back; at the end of the file (final)
// even a chat whose model is not known yet.
func (s *iflowSession) flush(out reader.Output, final bool) error {
	if s.st.ChatID == "" {
		if len(s.pending) == 0 && !final {
			return nil
		}
		s.st.ChatID = reader.ChatID(s.f.Name(), s.sid)
		if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(&annals.Chat{ID: s.st.ChatID, CreatedAt: s.created, Attributes: s.attrs})}); err != nil {
			return err
		}
	}
	ents, runs := s.pending, s.runs
	s.pending, s.runs = nil, nil
	if err := reader.EmitEntries(s.st.ChatID, ents, out); err != nil {
		return err
	}
	for _, r := range runs {
		r.ChatID = s.st.ChatID
		if err := out.Emit(annals.CaptureOp{Run: r}); err != nil {
			return err
		}
	}
	return nil
}

// record maps one record: its entries (a tool call waiting in open for its result) and, for a
// reply that names its model, a run.
func (s *iflowSession) record(n int, o reader.JSONObject, out reader.Output) {
	s.st.Last = reader.FirstTime(reader.ParseTime(o.Str("timestamp")), s.st.Last)
	if s.st.ChatID == "" && len(s.pending) == 0 {
		s.created = s.st.Last
	}
	s.sid = reader.FirstNonEmpty(o.Str("sessionId"), s.sid)
	for _, k := range []string{"cwd", "gitBranch"} {
		if v := o.Str(k); v != "" && s.attrs[attrName(k)] == "" {
			s.attrs[attrName(k)] = v
		}
	}
	id := reader.SafeID(reader.FirstNonEmpty(o.Str("uuid"), fmt.Sprintf("L%d", n)), 200)
	m := o.Obj("message")
	switch o.Str("type") {
	case "user", "assistant":
	default:
		s.pending = append(s.pending, &annals.Entry{ID: id, Kind: annals.KindEvent, Time: s.st.Last, Channel: "iflow/" + reader.SanitizeChannel(reader.FirstNonEmpty(o.Str("type"), "line")),
			Metadata: reader.SafeMeta(map[string]any{"line": reader.Extras(o)})})
		return
	}
	status := o.Obj("toolUseResult").Str("status")
	blocks := iflowBlocks(m, s.seen, status)
	ents := reader.AnthropicBlocks(blocks, m.Str("role"), id, s.st.Last, s.open, func(i int, msg string) { out.Warnf(n, "content[%d]: %s", i, msg) })
	for _, e := range ents {
		e.SourceIDs = []string{id}
		if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Result == "" {
			s.open[e.Tool.CallID] = e
		}
		if rest, ok := strings.CutPrefix(e.Channel, "cursor/"); ok {
			e.Channel = "iflow/" + rest
		}
	}
	if model := m.Str("model"); model != "" {
		s.attrs["model"] = reader.FirstNonEmpty(s.attrs["model"], reader.SafeID(model, annals.MaxIDBytes))
		u := m.Obj("usage")
		end := s.st.Last
		s.runs = append(s.runs, &annals.Run{ID: id, Status: annals.StatusCompleted, Model: reader.SafeID(model, annals.MaxIDBytes), StartedAt: s.st.Last, EndedAt: &end,
			InputTokens: reader.ClampTokens(int64(u.Num("input_tokens"))), OutputTokens: reader.ClampTokens(int64(u.Num("output_tokens")))})
		for _, e := range ents {
			e.RunID = id
		}
	}
	s.pending = append(s.pending, ents...)
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
