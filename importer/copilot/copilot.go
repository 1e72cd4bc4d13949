// Package copilot reads the histories of GitHub Copilot CLI for annals import (docs/IMPORT.md): one
// reader behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package copilot

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

// CopilotCLI imports GitHub Copilot CLI sessions: one events.jsonl per session under
// ~/.copilot/session-state/<session id>/ (older versions wrote <session id>.jsonl directly in
// session-state/). Each line is an event {type, data, id, timestamp, parentId}: session.start
// carries the working directory, repository and branch; user.message and assistant.message the
// conversation; an assistant message lists its toolRequests, whose execution_start and
// execution_complete events follow, linked by toolCallId; events of a sub-agent carry the
// parentToolCallId of the task call that started it.
//
// The file only grows, so it is a LineParser: a tool call is held back until its result line
// arrives, and the session is settled whenever no call waits.
type CopilotCLI struct{}

func (CopilotCLI) Name() string { return "copilot-cli" }

// ResumeCommand is `copilot --resume=<session id>`.
func (CopilotCLI) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("copilot --resume=%s", native)
}

func (CopilotCLI) Detect(path string, head []byte) bool {
	if head == nil {
		return false
	}
	h := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if !bytes.HasPrefix(h, []byte("{")) {
		return false
	}
	if bytes.Contains(h, []byte(`"copilotVersion"`)) || bytes.Contains(h, []byte(`"producer":"copilot-agent"`)) {
		return true
	}
	// A session file whose start line rotated away still has Copilot's event vocabulary.
	return strings.Contains(filepath.ToSlash(path), "/.copilot/session-state/") &&
		(bytes.Contains(h, []byte(`"type":"user.message"`)) || bytes.Contains(h, []byte(`"type":"session.`)) || bytes.Contains(h, []byte(`"type":"assistant.`)))
}

func (CopilotCLI) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".copilot", "session-state", "*", "events.jsonl"),
		filepath.Join(home, ".copilot", "session-state", "*.jsonl"),
	}
}

// copilotState is what a session needs to resume after a settled line.
type copilotState struct {
	ChatID   string    `json:"chat_id"`
	Emitted  bool      `json:"emitted,omitempty"`
	LastTime time.Time `json:"last_time,omitempty"`
	RunID    string    `json:"run_id,omitempty"`
	RunModel string    `json:"run_model,omitempty"`
	RunStart time.Time `json:"run_start,omitempty"`
	// RunOut sums the output tokens of the open turn's messages: usage is recorded on the
	// run, so chat totals count it once.
	RunOut int64 `json:"run_out,omitempty"`
}

func (f CopilotCLI) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	s := &copilotSession{format: f.Name(), open: map[string]*annals.Entry{}, seen: map[string]bool{}}
	if len(state) > 0 {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, fmt.Errorf("copilot-cli: bad import state: %w", err)
		}
	}
	if s.st.ChatID == "" {
		s.st.ChatID = reader.ChatID(f.Name(), copilotPathID(src.Path))
	}
	return s, nil
}

// copilotPathID is the session id a path names: the directory of an events.jsonl, else the
// file's own name.
func copilotPathID(path string) string {
	base := filepath.Base(path)
	if base == "events.jsonl" {
		return filepath.Base(filepath.Dir(path))
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

type copilotSession struct {
	format string
	st     copilotState
	// pending holds the entries read since the first tool call that still waits for its
	// result, in order; open maps those calls' ids to their entries.
	pending []*annals.Entry
	open    map[string]*annals.Entry
	// seen holds the entry ids used in this parse, so a duplicated event id gets a line-based
	// id instead of being dropped as "already stored".
	seen map[string]bool
}

func (s *copilotSession) Settled() bool { return len(s.open) == 0 }

func (s *copilotSession) State() (json.RawMessage, error) {
	b, err := json.Marshal(s.st)
	if err != nil {
		return nil, fmt.Errorf("copilot-cli: saving state: %w", err)
	}
	return b, nil
}

func (s *copilotSession) Finish(ctx context.Context, out reader.Output) error {
	return s.flush(out)
}

// flush emits the held-back entries in their current form.
func (s *copilotSession) flush(out reader.Output) error {
	if len(s.pending) == 0 {
		return nil
	}
	ents := s.pending
	s.pending = nil
	return out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: s.st.ChatID, Entries: ents}})
}

// add queues e behind the entries already held back; Line emits the queue once no tool call
// waits for its result, so the transcript keeps its order.
func (s *copilotSession) add(out reader.Output, e *annals.Entry) error {
	if e.RunID == "" {
		e.RunID = s.st.RunID
	}
	s.pending = append(s.pending, e)
	return nil
}

// entryID returns a unique id for an event: its own id, or a line-based one when the id is
// missing or was already used in this file.
func (s *copilotSession) entryID(id string, n, part int) string {
	cand := ""
	if id != "" {
		cand = reader.EntryID(id, part)
	}
	if cand == "" || s.seen[cand] {
		cand = reader.EntryID(fmt.Sprintf("L%d", n), part)
	}
	s.seen[cand] = true
	return cand
}

// ensureChat creates the chat from what the path says when the file has no session.start.
func (s *copilotSession) ensureChat(out reader.Output) error {
	if s.st.Emitted {
		return nil
	}
	s.st.Emitted = true
	return out.Emit(annals.CaptureOp{Chat: reader.CleanChat(&annals.Chat{ID: s.st.ChatID, Attributes: annals.Attributes{"source": s.format}, CreatedAt: s.st.LastTime})})
}

func (s *copilotSession) Line(ctx context.Context, n int, line []byte, out reader.Output) error {
	if err := s.line(n, line, out); err != nil {
		return err
	}
	// Whatever was held back for a call is final once no call waits any more.
	if len(s.open) == 0 {
		return s.flush(out)
	}
	return nil
}

func (s *copilotSession) line(n int, line []byte, out reader.Output) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	ev, err := reader.DecodeObject(line)
	if err != nil {
		out.Warnf(n, "not a JSON object: %v", err)
		return nil
	}
	typ := ev.Str("type")
	data := ev.Obj("data")
	if data == nil {
		data = reader.JSONObject{}
	}
	id := ev.Str("id")
	t := reader.ParseTime(ev.Str("timestamp"))
	if t.IsZero() {
		t = s.st.LastTime
	} else {
		s.st.LastTime = t
	}

	if typ == "session.start" && !s.st.Emitted {
		return s.start(n, data, t, out)
	}
	if err := s.ensureChat(out); err != nil {
		return err
	}

	base := func(kind annals.EntryKind, part int) *annals.Entry {
		e := &annals.Entry{ID: s.entryID(id, n, part), Kind: kind, Time: t}
		if id != "" {
			e.SourceIDs = []string{reader.SafeID(id, annals.MaxIDBytes)}
		}
		if p := data.Str("parentToolCallId"); p != "" {
			// An event of a sub-agent: marked, and tied to the task call that started it.
			e.Channel = "subagent"
			e.CorrelationID = reader.SafeID(p, annals.MaxIDBytes)
		}
		return e
	}

	if handled, err := s.lineMessage(typ, data, n, id, base, out); handled {
		return err
	}
	if handled, err := s.lineLifecycle(typ, data, id, t, base, out); handled {
		return err
	}
	return s.lineOther(typ, ev, data, base, out)
}

// copilotBase makes an entry of a line's event, tied to its sub-agent call when it has one.
type copilotBase = func(kind annals.EntryKind, part int) *annals.Entry

// lineMessage maps the events that are messages; it reports whether typ was one.
func (s *copilotSession) lineMessage(typ string, data reader.JSONObject, n int, id string, base copilotBase, out reader.Output) (bool, error) {
	switch typ {
	case "user.message":
		e := base(annals.KindUser, -1)
		e.Text = reader.ValidText(data.Str("content"))
		tc := data.Str("transformedContent")
		if tc == e.Text {
			tc = ""
		}
		e.Metadata = reader.SafeMeta(map[string]any{"transformed_content": reader.ValidText(tc), "attachments": data.Raw("attachments"),
			"extra": reader.Extras(data, "content", "transformedContent", "attachments")})
		return true, s.add(out, e)

	case "system.message":
		e := base(annals.KindSystem, -1)
		e.Text = reader.ValidText(data.Str("content"))
		e.Metadata = reader.SafeMeta(map[string]any{"extra": reader.Extras(data, "content")})
		return true, s.add(out, e)

	case "assistant.message":
		return true, s.assistant(n, id, data, base, out)

	case "assistant.reasoning":
		e := base(annals.KindAssistant, -1)
		e.Reasoning = reader.ValidText(data.Str("content"))
		e.Metadata = reader.SafeMeta(map[string]any{"extra": reader.Extras(data, "content")})
		return true, s.add(out, e)

	case "session.error":
		e := base(annals.KindSystem, -1)
		e.Text = reader.ValidText(strings.TrimSpace("error: " + data.Str("message")))
		e.Metadata = reader.SafeMeta(map[string]any{"error": reader.Extras(data, "message")})
		return true, s.add(out, e)

	case "session.model_change":
		e := base(annals.KindEvent, -1)
		e.Channel = "copilot-cli/session/model_change"
		e.Text = reader.ValidText(fmt.Sprintf("model changed from %s to %s", reader.FirstNonEmpty(data.Str("previousModel"), "(none)"), data.Str("newModel")))
		e.Metadata = reader.SafeMeta(map[string]any{"data": reader.Extras(data)})
		return true, s.add(out, e)
	}
	return false, nil
}

// lineLifecycle maps the events of turns, tool calls and the process; it reports whether typ
// was one.
func (s *copilotSession) lineLifecycle(typ string, data reader.JSONObject, id string, t time.Time, base copilotBase, out reader.Output) (bool, error) {
	switch typ {
	case "assistant.turn_start":
		runKey := reader.FirstNonEmpty(data.Str("interactionId"), id) + "/" + data.Str("turnId")
		s.st.RunID = reader.SafeID(s.st.ChatID+"/turn/"+runKey, annals.MaxIDBytes)
		s.st.RunStart = t
		s.st.RunOut = 0
		s.st.RunModel = reader.SafeID(data.Str("model"), annals.MaxIDBytes)
		return true, out.Emit(annals.CaptureOp{Run: &annals.Run{ID: s.st.RunID, ChatID: s.st.ChatID, Status: annals.StatusRunning, Model: s.st.RunModel, StartedAt: t}})

	case "assistant.turn_end":
		if m := data.Str("model"); m != "" && s.st.RunModel == "" {
			s.st.RunModel = reader.SafeID(m, annals.MaxIDBytes)
		}
		return true, s.endRun(out, annals.StatusCompleted, t)

	case "tool.execution_start":
		return true, s.toolStart(data, base, out)

	case "tool.execution_complete":
		return true, s.toolComplete(data, t, base, out)

	case "abort":
		// Calls still waiting were cancelled by the abort.
		for k, e := range s.open {
			e.Tool.Outcome = annals.OutcomeCancelled
			delete(s.open, k)
		}
		e := base(annals.KindSystem, -1)
		e.Text = reader.ValidText(strings.TrimSpace("aborted: " + data.Str("reason")))
		e.Metadata = reader.SafeMeta(map[string]any{"extra": reader.Extras(data, "reason")})
		if err := s.add(out, e); err != nil {
			return true, err
		}
		return true, s.endRun(out, annals.StatusCancelled, t)

	case "session.shutdown", "session.resume", "session.start":
		// The process ended or restarted: a call still waiting will never get its result
		// (left without outcome), and must not hold the transcript back forever.
		for k := range s.open {
			delete(s.open, k)
		}
		e := base(annals.KindEvent, -1)
		e.Channel = "copilot-cli/" + reader.SanitizeChannel(typ)
		e.Metadata = reader.SafeMeta(map[string]any{"data": reader.Extras(data)})
		if typ == "session.shutdown" {
			e.Text = reader.ValidText(strings.TrimSpace("session ended " + data.Str("shutdownType")))
		}
		if err := s.add(out, e); err != nil {
			return true, err
		}
		// A turn still open when the process ended or restarted was cut short.
		return true, s.endRun(out, annals.StatusCancelled, t)
	}
	return false, nil
}

func (s *copilotSession) toolStart(data reader.JSONObject, base copilotBase, out reader.Output) error {
	callID := data.Str("toolCallId")
	if e := s.open[callID]; e != nil {
		if len(e.Tool.Arguments) == 0 || string(e.Tool.Arguments) == "{}" {
			if a := reader.CallArgs(data.Raw("arguments")); a != nil {
				e.Tool.Arguments = a
			}
		}
		return nil
	}
	e := base(annals.KindTool, -1)
	e.Tool = &annals.ToolCall{Name: reader.ToolName(data.Str("toolName")), CallID: reader.SafeID(callID, annals.MaxIDBytes), Arguments: reader.CallArgs(data.Raw("arguments"))}
	e.Metadata = reader.SafeMeta(map[string]any{"extra": reader.Extras(data, "toolCallId", "toolName", "arguments", "parentToolCallId")})
	if callID != "" {
		// The start is the first we hear of this call: it waits for its result.
		s.open[callID] = e
	}
	return s.add(out, e)
}

// toolComplete puts a result on its call; at is the result's time (annals.MetaResultTime: the
// call's duration in the web UI, from the call's own time, its request or its start).
func (s *copilotSession) toolComplete(data reader.JSONObject, at time.Time, base copilotBase, out reader.Output) error {
	callID := data.Str("toolCallId")
	e := s.open[callID]
	if e == nil {
		// A result without a call in this file (the call was in a rotated part, or the
		// file was cut): the result still becomes a tool entry, so nothing is lost.
		e = base(annals.KindTool, -1)
		name := data.Obj("toolTelemetry").Obj("properties").Str("tool")
		e.Tool = &annals.ToolCall{Name: reader.ToolName(name), CallID: reader.SafeID(callID, annals.MaxIDBytes)}
		copilotResult(e, data)
		return s.add(out, e)
	}
	delete(s.open, callID)
	copilotResult(e, data)
	reader.ResultTime(e, at)
	return nil
}

// lineOther maps a compaction, and keeps everything else as an event.
func (s *copilotSession) lineOther(typ string, ev, data reader.JSONObject, base copilotBase, out reader.Output) error {
	// A compaction: Copilot summarises the context and starts over from the summary.
	if strings.Contains(typ, "compaction") {
		if sum := reader.FirstNonEmpty(data.Str("summaryContent"), data.Str("summary"), data.Str("content")); sum != "" {
			e := base(annals.KindSystem, -1)
			e.Text = reader.ValidText(sum)
			e.Metadata = reader.SafeMeta(map[string]any{"compaction": true, "type": typ, "data": reader.Extras(data, "summaryContent", "summary", "content")})
			return s.add(out, e)
		}
	}

	// Everything else (session.info, hook.*, subagent.*, system.notification, usage
	// checkpoints, truncations, and types newer than this importer) is an event that keeps
	// its data, so nothing is lost.
	if typ == "" {
		typ = "unknown"
	}
	e := base(annals.KindEvent, -1)
	if e.Channel == "" {
		e.Channel = "copilot-cli/" + reader.SanitizeChannel(typ)
	}
	e.Text = reader.ValidText(reader.FirstNonEmpty(data.Str("message"), data.Str("content"), data.Str("agentDisplayName")))
	if tc := data.Str("toolCallId"); tc != "" && e.CorrelationID == "" {
		e.CorrelationID = reader.SafeID(tc, annals.MaxIDBytes)
	}
	meta := map[string]any{"data": reader.Extras(data, "message", "content")}
	if typ == "session.truncation" {
		meta["context_truncation"] = true
	}
	if ev.Str("type") == "" {
		meta["line"] = reader.Extras(ev, "data")
	}
	e.Metadata = reader.Metadata(meta)
	return s.add(out, e)
}

// endRun records the open turn's end with status, if a turn is open.
func (s *copilotSession) endRun(out reader.Output, status annals.RunStatus, t time.Time) error {
	if s.st.RunID == "" {
		return nil
	}
	r := &annals.Run{ID: s.st.RunID, ChatID: s.st.ChatID, Status: status, Model: s.st.RunModel, StartedAt: s.st.RunStart, OutputTokens: s.st.RunOut}
	if !t.IsZero() && !t.Before(r.StartedAt) {
		end := t
		r.EndedAt = &end
	}
	s.st.RunID, s.st.RunModel, s.st.RunStart, s.st.RunOut = "", "", time.Time{}, 0
	return out.Emit(annals.CaptureOp{Run: r})
}

// start handles session.start: it creates the chat with what the session knows of its place.
func (s *copilotSession) start(n int, data reader.JSONObject, t time.Time, out reader.Output) error {
	if sid := data.Str("sessionId"); sid != "" {
		s.st.ChatID = reader.ChatID(s.format, sid)
	}
	attrs := annals.Attributes{"source": s.format}
	c := data.Obj("context")
	if v := c.Str("cwd"); v != "" {
		attrs["cwd"] = v
	}
	if repo := c.Str("repository"); repo != "" {
		host := c.Str("repositoryHost")
		if host == "" && (c.Str("hostType") == "github" || c.Str("hostType") == "cli") && strings.Count(repo, "/") == 1 {
			host = "github.com"
		}
		if host != "" && !strings.HasPrefix(repo, host+"/") {
			repo = host + "/" + repo
		}
		attrs["repository"] = repo
	}
	if v := c.Str("branch"); v != "" {
		attrs["git_branch"] = v
	}
	if v := data.Str("selectedModel"); v != "" {
		attrs["model"] = v
	}
	if v := data.Str("copilotVersion"); v != "" {
		attrs["copilot_version"] = v
	}
	if st := reader.ParseTime(data.Str("startTime")); !st.IsZero() {
		t = st
	}
	s.st.Emitted = true
	return out.Emit(annals.CaptureOp{Chat: reader.CleanChat(&annals.Chat{ID: s.st.ChatID, Attributes: attrs, CreatedAt: t})})
}

// assistant maps an assistant message: its text and reasoning, then one tool entry per tool
// request, each waiting for its result.
func (s *copilotSession) assistant(n int, id string, data reader.JSONObject, base copilotBase, out reader.Output) error {
	text := reader.ValidText(data.Str("content"))
	reasoning := reader.ValidText(data.Str("reasoningText"))
	opaque := data.Str("reasoningOpaque") != "" || data.Str("encryptedContent") != ""
	meta := map[string]any{
		"encrypted_reasoning": reader.BoolOrNil(opaque),
		"extra": reader.Extras(data, "content", "reasoningText", "reasoningOpaque", "encryptedContent", "toolRequests",
			"outputTokens", "parentToolCallId"),
	}
	tokens := int64(data.Num("outputTokens"))
	if s.st.RunID != "" && tokens > 0 {
		// Inside a turn the usage goes to the turn's run; only a message outside any turn
		// keeps it on its entry.
		s.st.RunOut += tokens
		tokens = 0
	}
	reqs := data.Arr("toolRequests")
	if text != "" || reasoning != "" || len(reqs) == 0 {
		e := base(annals.KindAssistant, -1)
		e.Text, e.Reasoning, e.OutputTokens = text, reasoning, tokens
		e.Metadata = reader.Metadata(meta)
		if err := s.add(out, e); err != nil {
			return err
		}
		meta, tokens = nil, 0
	}
	for i, raw := range reqs {
		req, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(n, "toolRequests[%d]: not a JSON object", i)
			continue
		}
		e := base(annals.KindTool, i+1)
		callID := req.Str("toolCallId")
		e.Tool = &annals.ToolCall{Name: reader.ToolName(req.Str("name")), CallID: reader.SafeID(callID, annals.MaxIDBytes), Arguments: reader.CallArgs(req.Raw("arguments"))}
		m := map[string]any{"request": reader.Extras(req, "toolCallId", "name", "arguments")}
		if meta != nil {
			// The message had no text: its fields ride on its first call.
			for k, v := range meta {
				m[k] = v
			}
			e.OutputTokens = tokens
			meta, tokens = nil, 0
		}
		e.Metadata = reader.Metadata(m)
		if callID != "" {
			// A repeated call id replaces the older call in open: a result can only land
			// on the latest call that carries its id.
			s.open[callID] = e
		}
		if err := s.add(out, e); err != nil {
			return err
		}
	}
	return nil
}

// copilotResult puts a tool.execution_complete's result and outcome on the call's entry.
func copilotResult(e *annals.Entry, data reader.JSONObject) {
	res := data.Obj("result")
	text := ""
	detailed := ""
	if res != nil {
		text = reader.TextOf(res.Raw("content"))
		detailed = reader.TextOf(res.Raw("detailedContent"))
	} else {
		text = reader.TextOf(data.Raw("result"))
	}
	errMsg := ""
	if eo := data.Obj("error"); eo != nil {
		errMsg = reader.FirstNonEmpty(eo.Str("message"), reader.TextOf(data.Raw("error")))
	} else {
		errMsg = data.Str("error")
	}
	if text == "" {
		text = errMsg
	}
	e.Tool.Result = reader.Truncated(reader.ValidText(text), annals.MaxEntryBytes/4)
	switch {
	case data.Boolean("success"):
		e.Tool.Outcome = annals.OutcomeSucceeded
	default:
		e.Tool.Outcome = annals.OutcomeFailed
		rt := strings.ToLower(res.Str("resultType"))
		if rt == "rejected" || rt == "denied" || strings.Contains(strings.ToLower(errMsg), "denied") {
			e.Tool.Outcome = annals.OutcomeBlocked
		}
	}
	if _, ok := data["success"]; !ok && errMsg == "" {
		e.Tool.Outcome = annals.OutcomeSucceeded
	}
	m := map[string]any{}
	if len(e.Metadata) > 0 {
		var cur map[string]json.RawMessage
		if json.Unmarshal(e.Metadata, &cur) == nil {
			for k, v := range cur {
				m[k] = v
			}
		}
	}
	if detailed != "" && detailed != text {
		m["detailed_result"] = reader.Truncated(reader.ValidText(detailed), annals.MaxEntryBytes/4)
	}
	if errMsg != "" && errMsg != text {
		m["error"] = reader.ValidText(errMsg)
	}
	m["result"] = reader.Extras(data, "toolCallId", "success", "result", "error", "parentToolCallId")
	e.Metadata = reader.Metadata(m)
}
