// Package qwen reads the histories of Qwen Code for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package qwen

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/gemini"
	"github.com/annals-dev/annals/importer/reader"
)

// QwenCode imports Qwen Code's chat recordings: ~/.qwen/projects/<project>/chats/<session>.jsonl
// (and chats/archive/), one ChatRecord per line. Qwen Code began as a fork of Gemini CLI and its
// records look like Claude Code's at the top level (uuid, parentUuid, sessionId, type, cwd,
// gitBranch), but the message is a Gemini API Content, {role, parts}: text parts (thought parts
// are reasoning), functionCall parts on assistant records, and functionResponse parts on
// tool_result records, which also carry the call's status in toolCallResult. system records
// (chat_compression, slash_command, custom_title, ...) say what happened around the messages.
//
// The file only grows, so it is read incrementally; entry ids are the record uuids.
type QwenCode struct{}

func (QwenCode) Name() string { return "qwen-code" }

// Resume: `qwen --resume <session id>` (qwen-code packages/cli/src/config/top-level-options.ts:
// "Resume a specific session by its ID"; its headless guide shows the same form).
func (QwenCode) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("qwen --resume %s", native)
}

func (QwenCode) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".qwen", "projects", "*", "chats", "**", "*.jsonl")}
}

// Detect claims a .jsonl file in Qwen Code's folder, or one whose first records hold a Gemini
// {role, parts} message or a tool_result record under Claude-Code-like top-level fields.
func (QwenCode) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".jsonl") {
		return false
	}
	if reader.InFolder(path, ".qwen/projects") && reader.InFolder(path, "chats") {
		return true
	}
	for _, line := range reader.HeadLines(head, 8) {
		f, ok := reader.LineFields(line)
		if !ok || !reader.HasFields(f, "uuid", "sessionId", "type") {
			continue
		}
		if reader.FieldString(f, "type") == "tool_result" || (reader.HasFields(f, "message") && reader.GenAIContent(f["message"], line)) {
			return true
		}
	}
	return false
}

// qwRecord is one ChatRecord (the fields annals reads).
type qwRecord struct {
	UUID      string          `json:"uuid"`
	SessionID string          `json:"sessionId"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Subtype   string          `json:"subtype"`
	Cwd       string          `json:"cwd"`
	Version   string          `json:"version"`
	GitBranch string          `json:"gitBranch"`
	Model     string          `json:"model"`
	AgentID   string          `json:"agentId"`
	AgentName string          `json:"agentName"`
	Message   *qwContent      `json:"message"`
	Usage     *qwUsage        `json:"usageMetadata"`
	Result    json.RawMessage `json:"toolCallResult"`
	Payload   json.RawMessage `json:"systemPayload"`
}

type qwContent struct {
	Role  string   `json:"role"`
	Parts []qwPart `json:"parts"`
}

type qwPart struct {
	Text     string          `json:"text"`
	Thought  bool            `json:"thought"`
	Call     *qwCall         `json:"functionCall"`
	Response *qwCall         `json:"functionResponse"`
	Inline   json.RawMessage `json:"inlineData"`
	File     json.RawMessage `json:"fileData"`
}

type qwCall struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"args"`
	Response json.RawMessage `json:"response"`
}

type qwUsage struct {
	Prompt   int64 `json:"promptTokenCount"`
	Output   int64 `json:"candidatesTokenCount"`
	Thoughts int64 `json:"thoughtsTokenCount"`
}

// qwChat is one chat of the file: the session's main conversation, or one sub-agent's.
type qwChat struct {
	chat *annals.Chat
	// entries and runs wait here until nothing of the file waits for a result.
	entries []*annals.Entry
	runs    []*annals.Run
}

// qwState is what a file's parse needs to resume after a settled line.
type qwState struct {
	Created []string  `json:"created,omitempty"`
	Last    time.Time `json:"last,omitempty"`
}

// qwSession reads one file, line by line. The entries of a line are held back while a tool
// call waits for its tool_result record, so the framework checkpoints only between turns and a
// result read in a later import still lands on its call.
type qwSession struct {
	src     *reader.Source
	chats   map[string]*qwChat
	order   []string
	created map[string]bool
	calls   map[string]*annals.Entry
	last    time.Time
}

func (f QwenCode) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	s := &qwSession{src: src, chats: map[string]*qwChat{}, created: map[string]bool{}, calls: map[string]*annals.Entry{}}
	if len(state) > 0 {
		var st qwState
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("qwen-code: bad import state: %w", err)
		}
		for _, id := range st.Created {
			s.created[id] = true
		}
		s.last = st.Last
	}
	return s, nil
}

func (s *qwSession) Line(ctx context.Context, n int, line []byte, out reader.Output) error {
	if len(line) == 0 {
		return nil
	}
	var rec qwRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		out.Warnf(n, "not a Qwen Code record: %s", reader.ShortJSONErr(err))
		return nil
	}
	if rec.Type == "user" {
		// A new prompt: a call still without a result will not get one.
		clear(s.calls)
	}
	s.record(n, &rec, out)
	if len(s.calls) > 0 {
		return nil
	}
	return s.flush(out, false)
}

func (s *qwSession) Settled() bool {
	for _, c := range s.chats {
		if len(c.entries) > 0 || len(c.runs) > 0 {
			return false
		}
	}
	return true
}

func (s *qwSession) State() (json.RawMessage, error) {
	st := qwState{Last: s.last}
	for id := range s.created {
		st.Created = append(st.Created, id)
	}
	sort.Strings(st.Created)
	b, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("qwen-code: saving state: %w", err)
	}
	return b, nil
}

func (s *qwSession) Finish(ctx context.Context, out reader.Output) error { return s.flush(out, true) }

// chatFor returns the chat a record belongs to: a sub-agent's records (agentId) are a chat of
// their own with parent=<the session's chat>.
func (s *qwSession) chatFor(rec *qwRecord) *qwChat {
	sid := reader.FirstNonEmpty(rec.SessionID, strings.TrimSuffix(filepath.Base(s.src.Path), ".jsonl"))
	id := reader.ChatID("qwen-code", sid)
	attrs := annals.Attributes{"source": "qwen-code", "cwd": rec.Cwd, "git_branch": rec.GitBranch, "qwen_version": rec.Version}
	if rec.AgentID != "" {
		attrs["parent"] = id
		id = reader.ChatID("qwen-code", sid+"/agent-"+rec.AgentID)
	}
	if c := s.chats[id]; c != nil {
		return c
	}
	for k, v := range attrs {
		if v == "" {
			delete(attrs, k)
		}
	}
	c := &qwChat{chat: &annals.Chat{ID: id, Attributes: attrs, CreatedAt: s.when(rec.Timestamp)}}
	if rec.AgentID != "" && rec.AgentName != "" {
		c.chat.Title = reader.Truncated(reader.ValidText(rec.AgentName), annals.MaxTitleBytes)
	}
	s.chats[id] = c
	s.order = append(s.order, id)
	return c
}

// when reads a record's time; a record without one takes the time of the record before it.
func (s *qwSession) when(ts string) time.Time {
	if t := reader.ParseTime(ts); !t.IsZero() {
		s.last = t
	}
	if s.last.IsZero() {
		return s.src.ModTime.UTC()
	}
	return s.last
}

// flush emits what the chats hold: a chat not yet created first, then its runs and entries. A
// chat is created once its first reply is read, so that its model attribute is known (chat
// attributes are immutable), or at the end of what the file holds now.
func (s *qwSession) flush(out reader.Output, final bool) error {
	for _, id := range s.order {
		c := s.chats[id]
		if len(c.entries) == 0 && len(c.runs) == 0 || (!s.created[id] && len(c.runs) == 0 && !final) {
			continue
		}
		if !s.created[id] {
			for _, run := range c.runs {
				if run.Model != "" && c.chat.Attributes["model"] == "" {
					c.chat.Attributes["model"] = run.Model
				}
			}
			if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(c.chat)}); err != nil {
				return err
			}
			s.created[id] = true
		}
		for _, run := range c.runs {
			if err := out.Emit(annals.CaptureOp{Run: run}); err != nil {
				return err
			}
		}
		if len(c.entries) > 0 {
			if err := out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: id, Entries: c.entries}}); err != nil {
				return err
			}
		}
		c.entries, c.runs = nil, nil
	}
	return nil
}

// record maps one record into its chat.
func (r *qwSession) record(n int, rec *qwRecord, out reader.Output) {
	if rec.UUID == "" {
		rec.UUID = fmt.Sprintf("L%d", n)
	}
	c := r.chatFor(rec)
	t := r.when(rec.Timestamp)
	src := []string{reader.SafeID(rec.UUID, annals.MaxIDBytes)}
	add := func(e *annals.Entry) {
		e.Time, e.SourceIDs = t, src
		c.entries = append(c.entries, e)
	}
	switch rec.Type {
	case "user":
		text, media := qwText(rec.Message, false)
		add(&annals.Entry{ID: reader.EntryID(rec.UUID, -1), Kind: annals.KindUser, Text: reader.ValidText(text), Metadata: reader.Metadata(map[string]any{"attachments": media})})
	case "assistant":
		r.assistant(c, rec, add)
	case "tool_result":
		r.toolResult(c, rec, add)
	case "system":
		r.system(c, rec, add, out)
	default:
		add(&annals.Entry{ID: reader.EntryID(rec.UUID, -1), Kind: annals.KindEvent, Channel: "qwen-code/" + reader.SanitizeChannel(reader.FirstNonEmpty(rec.Type, "unknown"))})
		out.Warnf(n, "record type %q is not known; kept as an event", rec.Type)
	}
}

// qwText joins the text parts of a message (thought parts when thoughts is set, the others
// when not) and counts its inline and file parts, which are not stored.
func qwText(m *qwContent, thoughts bool) (string, int) {
	if m == nil {
		return "", 0
	}
	var parts []string
	media := 0
	for _, p := range m.Parts {
		if p.Inline != nil || p.File != nil {
			media++
		}
		if p.Text != "" && p.Thought == thoughts {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n"), media
}

// assistant maps a model reply: its text and thoughts as one entry, each functionCall as a tool
// entry waiting for its tool_result record, and its usage as a run.
func (r *qwSession) assistant(c *qwChat, rec *qwRecord, add func(*annals.Entry)) {
	runID := ""
	if rec.Usage != nil || rec.Model != "" {
		runID = reader.SafeID(c.chat.ID+"/"+rec.UUID, annals.MaxIDBytes)
		run := &annals.Run{ID: runID, ChatID: c.chat.ID, Status: annals.StatusCompleted, Model: reader.SafeID(rec.Model, annals.MaxIDBytes), StartedAt: r.last}
		if rec.Usage != nil {
			run.InputTokens, run.OutputTokens = rec.Usage.Prompt, rec.Usage.Output+rec.Usage.Thoughts
		}
		c.runs = append(c.runs, run)
	}
	text, _ := qwText(rec.Message, false)
	thought, _ := qwText(rec.Message, true)
	if text != "" || thought != "" {
		add(&annals.Entry{ID: reader.EntryID(rec.UUID, -1), Kind: annals.KindAssistant, Text: reader.ValidText(text), Reasoning: reader.ValidText(thought), RunID: runID})
	}
	if rec.Message == nil {
		return
	}
	for i, p := range rec.Message.Parts {
		if p.Call == nil {
			continue
		}
		e := &annals.Entry{ID: reader.EntryID(rec.UUID, i), Kind: annals.KindTool, RunID: runID, Tool: &annals.ToolCall{
			Name: reader.ToolName(p.Call.Name), CallID: reader.SafeID(p.Call.ID, annals.MaxIDBytes), Arguments: reader.CallArgs(p.Call.Args)}}
		add(e)
		if p.Call.ID != "" {
			r.calls[p.Call.ID] = e
		}
	}
}

// toolResult puts a tool_result record on its call: the functionResponse output (or error)
// as result, toolCallResult.status as outcome. A result whose call is unknown is an entry of
// its own.
func (r *qwSession) toolResult(c *qwChat, rec *qwRecord, add func(*annals.Entry)) {
	var info struct {
		CallID string `json:"callId"`
		Status string `json:"status"`
		Error  any    `json:"error"`
	}
	_ = json.Unmarshal(rec.Result, &info)
	var resp *qwCall
	if rec.Message != nil {
		for _, p := range rec.Message.Parts {
			if p.Response != nil {
				resp = p.Response
				break
			}
		}
	}
	callID, name, result := info.CallID, "", ""
	if resp != nil {
		callID, name = reader.FirstNonEmpty(callID, resp.ID), resp.Name
		result = qwResponseText(resp.Response)
	}
	outcome := gemini.Outcome(info.Status)
	if outcome == "" && info.Error != nil {
		outcome = annals.OutcomeFailed
	}
	if outcome == "" {
		outcome = annals.OutcomeSucceeded
	}
	result = reader.Truncated(reader.ValidText(result), annals.MaxEntryBytes/4)
	if call := r.calls[callID]; callID != "" && call != nil {
		call.Tool.Result, call.Tool.Outcome = result, outcome
		call.SourceIDs = append(call.SourceIDs, reader.SafeID(rec.UUID, annals.MaxIDBytes))
		// The tool_result record's own time is when the result arrived: the call's duration.
		if ts := reader.ParseTime(rec.Timestamp); !ts.IsZero() {
			reader.ResultTime(call, ts)
		}
		delete(r.calls, callID)
		return
	}
	add(&annals.Entry{ID: reader.EntryID(rec.UUID, -1), Kind: annals.KindTool, Metadata: reader.Metadata(map[string]any{"orphan_result": true}),
		Tool: &annals.ToolCall{Name: reader.ToolName(name), CallID: reader.SafeID(callID, annals.MaxIDBytes), Result: result, Outcome: outcome}})
}

// qwResponseText renders a functionResponse's response: its output (or error) when it has
// one, else its JSON.
func qwResponseText(raw json.RawMessage) string {
	o, err := reader.DecodeObject(raw)
	if err != nil {
		return reader.TextOf(raw)
	}
	for _, k := range []string{"output", "error", "content"} {
		if v := o.Raw(k); v != nil {
			return reader.BlocksText(v)
		}
	}
	return string(raw)
}

// system maps a system record: a chat compression is a compaction, a custom title names the
// chat, the rest are events keeping their payload.
func (r *qwSession) system(c *qwChat, rec *qwRecord, add func(*annals.Entry), out reader.Output) {
	id := reader.EntryID(rec.UUID, -1)
	switch rec.Subtype {
	case "chat_compression":
		// The compressed history the model went on with holds the summary.
		var p struct {
			History []qwContent `json:"compressedHistory"`
		}
		_ = json.Unmarshal(rec.Payload, &p)
		var texts []string
		for i := range p.History {
			if t, _ := qwText(&p.History[i], false); t != "" {
				texts = append(texts, t)
			}
		}
		add(&annals.Entry{ID: id, Kind: annals.KindSystem, Text: reader.ValidText(strings.Join(texts, "\n\n")), Metadata: reader.Metadata(map[string]any{"compaction": true})})
	case "custom_title":
		var p struct {
			Title string `json:"customTitle"`
		}
		if json.Unmarshal(rec.Payload, &p) == nil && strings.TrimSpace(p.Title) != "" {
			out.TitleForChat(c.chat.ID, reader.Truncated(reader.ValidText(p.Title), annals.MaxTitleBytes))
		}
	default:
		add(&annals.Entry{ID: id, Kind: annals.KindEvent, Channel: "qwen-code/" + reader.SanitizeChannel(reader.FirstNonEmpty(rec.Subtype, "system")),
			Metadata: reader.Metadata(map[string]any{"payload": reader.SizedJSON(rec.Payload)})})
	}
}
