// Package pi reads the histories of the Pi coding agent (badlogic/pi-mono) for annals import
// (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default locations,
// read), listed in importer.Formats.
package pi

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

// Pi imports Pi's session files: ~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl, a header
// {type: session, version, id, timestamp, cwd, provider, modelId, branchedFrom | parentSession}
// and then entries {type, id, parentId, timestamp, ...} (packages/coding-agent/docs/session.md,
// session-manager.ts): message entries hold an AgentMessage (user; assistant with text,
// thinking and toolCall blocks, model, usage, stopReason; toolResult with toolCallId, isError;
// bashExecution; custom), beside model_change, thinking_level_change, compaction,
// branch_summary, custom, custom_message, label and session_info {name} entries. Version 1
// files have no entry ids. Branches share the file; entries are kept in file order. The file is
// append-only and read incrementally (a LineParser); entry ids are the entries' own (L<line>
// where a version 1 file has none).
type Pi struct{}

func (Pi) Name() string { return "pi" }

func (Pi) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".pi", "agent", "sessions", "*", "*.jsonl")}
}

// Detect claims a JSON Lines file that starts with Pi's session header.
func (Pi) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".jsonl") {
		return false
	}
	f, ok := reader.FirstRecord(head)
	if !ok || reader.FieldString(f, "type") != "session" || !reader.HasFields(f, "id", "timestamp") {
		return false
	}
	return reader.HasFields(f, "cwd") || reader.HasFields(f, "version") || reader.InFolder(path, ".pi/agent/sessions")
}

// Resume: `pi --session <id>` opens the session of that (partial) uuid (packages/coding-agent
// README: "--session <path>  Use specific session file or partial UUID").
func (Pi) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("pi --session %s", native)
}

// piState is what a session needs to resume after a settled line.
type piState struct {
	ChatID string    `json:"chat_id,omitempty"` // set once the chat was emitted
	Sid    string    `json:"sid,omitempty"`
	Last   time.Time `json:"last"`
	Title  string    `json:"title,omitempty"` // the session_info name last given
}

// NewSession reads a session file line by line (Pi appends its entries): only the lines
// appended since the last import are read. The chat is emitted once its model is known (the
// header's, or the first reply's), or at the end of what the file holds now; nothing is settled
// before that, nor while a call waits for its result.
func (f Pi) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	s := &piSession{f: f, path: src.Path, p: &parse{attrs: annals.Attributes{"source": f.Name()}, open: map[string]*annals.Entry{}, chat: &annals.Chat{CreatedAt: src.ModTime.UTC()}}}
	s.p.last = s.p.chat.CreatedAt
	if len(state) > 0 {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, fmt.Errorf("pi: bad import state: %w", err)
		}
		s.p.sid, s.p.last, s.p.chat.Title = s.st.Sid, s.st.Last, s.st.Title
	}
	return s, nil
}

type piSession struct {
	f    Pi
	path string
	st   piState
	p    *parse
}

func (s *piSession) Settled() bool {
	return s.st.ChatID != "" && len(s.p.open) == 0 && len(s.p.entries) == 0 && len(s.p.runs) == 0
}

func (s *piSession) State() (json.RawMessage, error) {
	s.st.Sid, s.st.Last = s.p.sid, s.p.last
	b, err := json.Marshal(s.st)
	if err != nil {
		return nil, fmt.Errorf("pi: saving state: %w", err)
	}
	return b, nil
}

func (s *piSession) Finish(_ context.Context, out reader.Output) error { return s.flush(out, true) }

func (s *piSession) Line(_ context.Context, n int, line []byte, out reader.Output) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	o, err := reader.DecodeObject(line)
	if err != nil {
		out.Warnf(n, "not a JSON object: %v", err)
		return nil
	}
	s.p.line(n, o, out)
	if len(s.p.open) > 0 {
		return nil
	}
	return s.flush(out, false)
}

// flush emits the chat (once its model is known, or at the end of the file: final) and what
// was read since; a name the session got after its chat was emitted titles the chat.
func (s *piSession) flush(out reader.Output, final bool) error {
	p := s.p
	if s.st.ChatID == "" {
		if len(p.entries) == 0 || (p.attrs["model"] == "" && !final) {
			return nil
		}
		sid := p.sid
		if sid == "" {
			base := strings.TrimSuffix(filepath.Base(s.path), ".jsonl")
			sid = base[strings.LastIndex(base, "_")+1:]
		}
		if p.entries[0].Time.Before(p.chat.CreatedAt) {
			// A branched session's header is written when it branched, after the messages it copied.
			p.chat.CreatedAt = p.entries[0].Time
		}
		p.chat.ID, p.chat.Attributes = reader.ChatID(s.f.Name(), sid), p.attrs
		s.st.ChatID, s.st.Title = p.chat.ID, p.chat.Title
		if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(p.chat)}); err != nil {
			return err
		}
	}
	if p.chat.Title != s.st.Title {
		s.st.Title = p.chat.Title
		out.TitleForChat(s.st.ChatID, p.chat.Title)
	}
	ents, runs := p.entries, p.runs
	p.entries, p.runs = nil, nil
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

type parse struct {
	sid     string
	attrs   annals.Attributes
	chat    *annals.Chat
	entries []*annals.Entry
	runs    []*annals.Run
	open    map[string]*annals.Entry
	last    time.Time
}

func (p *parse) line(n int, o reader.JSONObject, out reader.Output) {
	p.last = reader.FirstTime(reader.ParseTime(o.Str("timestamp")), p.last)
	id := reader.SafeID(reader.FirstNonEmpty(o.Str("id"), fmt.Sprintf("L%d", n)), 200)
	switch typ := o.Str("type"); typ {
	case "session":
		p.sid = reader.FirstNonEmpty(p.sid, o.Str("id"))
		p.chat.CreatedAt = p.last
		if cwd := o.Str("cwd"); cwd != "" {
			p.attrs["cwd"] = cwd
		}
		if m := o.Str("modelId"); m != "" {
			p.attrs["model"] = reader.SafeID(m, annals.MaxIDBytes)
		}
		if from := reader.FirstNonEmpty(o.Str("parentSession"), o.Str("branchedFrom")); from != "" {
			p.attrs["pi_branched_from"] = reader.Truncated(from, 1024)
		}
	case "message":
		p.message(id, o.Obj("message"), func(msg string) { out.Warnf(n, "%s", msg) })
	case "compaction", "branch_summary":
		p.add(&annals.Entry{ID: id, Kind: annals.KindSystem, Time: p.last, Text: reader.ValidText(o.Str("summary")),
			Metadata: reader.SafeMeta(map[string]any{"compaction": reader.BoolOrNil(typ == "compaction"), "branch_summary": reader.BoolOrNil(typ == "branch_summary"), "extra": reader.Extras(o, "type", "id", "timestamp", "summary")})})
	case "session_info":
		if name := o.Str("name"); name != "" {
			p.chat.Title = reader.Truncated(reader.ValidText(name), annals.MaxTitleBytes)
		}
	case "custom_message":
		p.add(&annals.Entry{ID: id, Kind: annals.KindSystem, Time: p.last, Text: reader.ValidText(reader.BlocksText(o.Raw("content"))),
			Metadata: reader.SafeMeta(map[string]any{"custom_type": o.Str("customType")})})
	default:
		p.add(&annals.Entry{ID: id, Kind: annals.KindEvent, Time: p.last, Channel: "pi/" + reader.SanitizeChannel(reader.FirstNonEmpty(typ, "line")),
			Metadata: reader.SafeMeta(map[string]any{"entry": reader.Extras(o, "type", "id", "timestamp")})})
	}
}

func (p *parse) add(e *annals.Entry) { p.entries = append(p.entries, e) }

func (p *parse) message(id string, m reader.JSONObject, warn func(string)) {
	switch m.Str("role") {
	case "user":
		p.add(&annals.Entry{ID: id, Kind: annals.KindUser, Time: p.last, Text: reader.ValidText(reader.BlocksText(m.Raw("content")))})
	case "assistant":
		p.assistant(id, m, warn)
	case "toolResult":
		result := reader.Truncated(reader.ValidText(reader.BlocksText(m.Raw("content"))), annals.MaxEntryBytes/4)
		outcome := annals.OutcomeSucceeded
		if m.Boolean("isError") {
			outcome = annals.OutcomeFailed
		}
		callID := m.Str("toolCallId")
		if call := p.open[callID]; callID != "" && call != nil {
			call.Tool.Result, call.Tool.Outcome = result, outcome
			call.SourceIDs = append(call.SourceIDs, id)
			// The toolResult message's time is when the result arrived: the call's duration.
			reader.ResultTime(call, p.last)
			delete(p.open, callID)
			return
		}
		p.add(&annals.Entry{ID: id, Kind: annals.KindTool, Time: p.last, Tool: &annals.ToolCall{Name: reader.ToolName(m.Str("toolName")), CallID: reader.SafeID(callID, annals.MaxIDBytes), Result: result, Outcome: outcome},
			Metadata: reader.SafeMeta(map[string]any{"orphan_result": true})})
	case "bashExecution":
		args, _ := json.Marshal(map[string]string{"command": m.Str("command")})
		outcome := annals.OutcomeSucceeded
		switch {
		case m.Boolean("cancelled"):
			outcome = annals.OutcomeCancelled
		case m.IsNum("exitCode") && m.Num("exitCode") != 0:
			outcome = annals.OutcomeFailed
		}
		p.add(&annals.Entry{ID: id, Kind: annals.KindTool, Time: p.last, Tool: &annals.ToolCall{Name: "bash", Arguments: args, Result: reader.Truncated(reader.ValidText(m.Str("output")), annals.MaxEntryBytes/4), Outcome: outcome},
			Metadata: reader.SafeMeta(map[string]any{"user_bash": true})})
	default:
		p.add(&annals.Entry{ID: id, Kind: annals.KindSystem, Time: p.last, Text: reader.ValidText(reader.BlocksText(m.Raw("content"))),
			Metadata: reader.SafeMeta(map[string]any{"role": m.Str("role"), "extra": reader.Extras(m, "role", "content", "timestamp")})})
	}
}

// assistant maps an assistant message: its text and thinking as one entry, each toolCall as a
// tool entry waiting for its toolResult, and the call as a run (model, tokens, cost).
func (p *parse) assistant(id string, m reader.JSONObject, warn func(string)) {
	var text, reasoning []string
	var calls []*annals.Entry
	for i, raw := range m.Arr("content") {
		b, err := reader.DecodeObject(raw)
		if err != nil {
			warn(fmt.Sprintf("content[%d]: not a JSON object", i))
			continue
		}
		switch b.Str("type") {
		case "text":
			text = append(text, b.Str("text"))
		case "thinking":
			reasoning = append(reasoning, b.Str("thinking"))
		case "toolCall":
			e := &annals.Entry{ID: reader.EntryID(id, i), Kind: annals.KindTool, Time: p.last, SourceIDs: []string{id}, Tool: &annals.ToolCall{
				Name: reader.ToolName(b.Str("name")), CallID: reader.SafeID(b.Str("id"), annals.MaxIDBytes), Arguments: reader.CallArgs(b.Raw("arguments"))}}
			if e.Tool.CallID != "" {
				p.open[e.Tool.CallID] = e
			}
			calls = append(calls, e)
		}
	}
	if s := m.Str("content"); s != "" {
		text = append(text, s)
	}
	model := reader.SafeID(m.Str("model"), annals.MaxIDBytes)
	u := m.Obj("usage")
	e := &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: p.last, SourceIDs: []string{id}, Text: reader.ValidText(strings.Join(reader.DropBlank(text), "\n\n")), Reasoning: reader.ValidText(strings.Join(reader.DropBlank(reasoning), "\n\n")),
		InputTokens: reader.ClampTokens(int64(u.Num("input"))), OutputTokens: reader.ClampTokens(int64(u.Num("output"))),
		Metadata: reader.SafeMeta(map[string]any{"stop_reason": m.Str("stopReason"), "error": m.Str("errorMessage"), "provider": m.Str("provider")})}
	if e.Text != "" || e.Reasoning != "" || len(calls) == 0 {
		p.add(e)
	}
	for _, c := range calls {
		p.add(c)
	}
	if model == "" {
		return
	}
	if p.attrs["model"] == "" {
		p.attrs["model"] = model
	}
	status := annals.StatusCompleted
	switch m.Str("stopReason") {
	case "error":
		status = annals.StatusFailed
	case "aborted":
		status = annals.StatusCancelled
	}
	end := p.last
	p.runs = append(p.runs, &annals.Run{ID: id, Status: status, Model: model, StartedAt: p.last, EndedAt: &end,
		InputTokens: e.InputTokens, OutputTokens: e.OutputTokens, CostUSD: u.Obj("cost").Num("total")})
	e.RunID = id
	for _, c := range calls {
		c.RunID = id
	}
}
