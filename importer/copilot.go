package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// copilotCLI imports GitHub Copilot CLI sessions: one events.jsonl per session under
// ~/.copilot/session-state/<session id>/ (older versions wrote <session id>.jsonl directly in
// session-state/). Each line is an event {type, data, id, timestamp, parentId}: session.start
// carries the working directory, repository and branch; user.message and assistant.message the
// conversation; an assistant message lists its toolRequests, whose execution_start and
// execution_complete events follow, linked by toolCallId; events of a sub-agent carry the
// parentToolCallId of the task call that started it.
//
// The file only grows, so it is a LineParser: a tool call is held back until its result line
// arrives, and the session is settled whenever no call waits.
type copilotCLI struct{}

func (copilotCLI) Name() string { return "copilot-cli" }

func (copilotCLI) Detect(path string, head []byte) bool {
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

func (copilotCLI) DefaultPaths(home string) []string {
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

func (f copilotCLI) NewSession(src *Source, state json.RawMessage) (LineSession, error) {
	s := &copilotSession{format: f.Name(), open: map[string]*annals.Entry{}, seen: map[string]bool{}}
	if len(state) > 0 {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, fmt.Errorf("copilot-cli: bad import state: %w", err)
		}
	}
	if s.st.ChatID == "" {
		s.st.ChatID = ChatID(f.Name(), copilotPathID(src.Path))
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

func (s *copilotSession) Finish(ctx context.Context, out Output) error {
	return s.flush(out)
}

// flush emits the held-back entries in their current form.
func (s *copilotSession) flush(out Output) error {
	if len(s.pending) == 0 {
		return nil
	}
	ents := s.pending
	s.pending = nil
	return out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: s.st.ChatID, Entries: ents}})
}

// add queues e behind the entries already held back; Line emits the queue once no tool call
// waits for its result, so the transcript keeps its order.
func (s *copilotSession) add(out Output, e *annals.Entry) error {
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
		cand = EntryID(id, part)
	}
	if cand == "" || s.seen[cand] {
		cand = EntryID(fmt.Sprintf("L%d", n), part)
	}
	s.seen[cand] = true
	return cand
}

// ensureChat creates the chat from what the path says when the file has no session.start.
func (s *copilotSession) ensureChat(out Output) error {
	if s.st.Emitted {
		return nil
	}
	s.st.Emitted = true
	return out.Emit(annals.CaptureOp{Chat: cleanChat(&annals.Chat{ID: s.st.ChatID, Attributes: annals.Attributes{"source": s.format}, CreatedAt: s.st.LastTime})})
}

func (s *copilotSession) Line(ctx context.Context, n int, line []byte, out Output) error {
	if err := s.line(n, line, out); err != nil {
		return err
	}
	// Whatever was held back for a call is final once no call waits any more.
	if len(s.open) == 0 {
		return s.flush(out)
	}
	return nil
}

func (s *copilotSession) line(n int, line []byte, out Output) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	ev, err := decodeObject(line)
	if err != nil {
		out.Warnf(n, "not a JSON object: %v", err)
		return nil
	}
	typ := ev.str("type")
	data := ev.obj("data")
	if data == nil {
		data = jsonObject{}
	}
	id := ev.str("id")
	t := ParseTime(ev.str("timestamp"))
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
			e.SourceIDs = []string{SafeID(id, annals.MaxIDBytes)}
		}
		if p := data.str("parentToolCallId"); p != "" {
			// An event of a sub-agent: marked, and tied to the task call that started it.
			e.Channel = "subagent"
			e.CorrelationID = SafeID(p, annals.MaxIDBytes)
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
func (s *copilotSession) lineMessage(typ string, data jsonObject, n int, id string, base copilotBase, out Output) (bool, error) {
	switch typ {
	case "user.message":
		e := base(annals.KindUser, -1)
		e.Text = ValidText(data.str("content"))
		tc := data.str("transformedContent")
		if tc == e.Text {
			tc = ""
		}
		e.Metadata = safeMeta(map[string]any{"transformed_content": ValidText(tc), "attachments": data.raw("attachments"),
			"extra": extras(data, "content", "transformedContent", "attachments")})
		return true, s.add(out, e)

	case "system.message":
		e := base(annals.KindSystem, -1)
		e.Text = ValidText(data.str("content"))
		e.Metadata = safeMeta(map[string]any{"extra": extras(data, "content")})
		return true, s.add(out, e)

	case "assistant.message":
		return true, s.assistant(n, id, data, base, out)

	case "assistant.reasoning":
		e := base(annals.KindAssistant, -1)
		e.Reasoning = ValidText(data.str("content"))
		e.Metadata = safeMeta(map[string]any{"extra": extras(data, "content")})
		return true, s.add(out, e)

	case "session.error":
		e := base(annals.KindSystem, -1)
		e.Text = ValidText(strings.TrimSpace("error: " + data.str("message")))
		e.Metadata = safeMeta(map[string]any{"error": extras(data, "message")})
		return true, s.add(out, e)

	case "session.model_change":
		e := base(annals.KindEvent, -1)
		e.Channel = "copilot-cli/session/model_change"
		e.Text = ValidText(fmt.Sprintf("model changed from %s to %s", firstNonEmpty(data.str("previousModel"), "(none)"), data.str("newModel")))
		e.Metadata = safeMeta(map[string]any{"data": extras(data)})
		return true, s.add(out, e)
	}
	return false, nil
}

// lineLifecycle maps the events of turns, tool calls and the process; it reports whether typ
// was one.
func (s *copilotSession) lineLifecycle(typ string, data jsonObject, id string, t time.Time, base copilotBase, out Output) (bool, error) {
	switch typ {
	case "assistant.turn_start":
		runKey := firstNonEmpty(data.str("interactionId"), id) + "/" + data.str("turnId")
		s.st.RunID = SafeID(s.st.ChatID+"/turn/"+runKey, annals.MaxIDBytes)
		s.st.RunStart = t
		s.st.RunOut = 0
		s.st.RunModel = SafeID(data.str("model"), annals.MaxIDBytes)
		return true, out.Emit(annals.CaptureOp{Run: &annals.Run{ID: s.st.RunID, ChatID: s.st.ChatID, Status: annals.StatusRunning, Model: s.st.RunModel, StartedAt: t}})

	case "assistant.turn_end":
		if m := data.str("model"); m != "" && s.st.RunModel == "" {
			s.st.RunModel = SafeID(m, annals.MaxIDBytes)
		}
		return true, s.endRun(out, annals.StatusCompleted, t)

	case "tool.execution_start":
		return true, s.toolStart(data, base, out)

	case "tool.execution_complete":
		return true, s.toolComplete(data, base, out)

	case "abort":
		// Calls still waiting were cancelled by the abort.
		for k, e := range s.open {
			e.Tool.Outcome = annals.OutcomeCancelled
			delete(s.open, k)
		}
		e := base(annals.KindSystem, -1)
		e.Text = ValidText(strings.TrimSpace("aborted: " + data.str("reason")))
		e.Metadata = safeMeta(map[string]any{"extra": extras(data, "reason")})
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
		e.Channel = "copilot-cli/" + sanitizeChannel(typ)
		e.Metadata = safeMeta(map[string]any{"data": extras(data)})
		if typ == "session.shutdown" {
			e.Text = ValidText(strings.TrimSpace("session ended " + data.str("shutdownType")))
		}
		if err := s.add(out, e); err != nil {
			return true, err
		}
		// A turn still open when the process ended or restarted was cut short.
		return true, s.endRun(out, annals.StatusCancelled, t)
	}
	return false, nil
}

func (s *copilotSession) toolStart(data jsonObject, base copilotBase, out Output) error {
	callID := data.str("toolCallId")
	if e := s.open[callID]; e != nil {
		if len(e.Tool.Arguments) == 0 || string(e.Tool.Arguments) == "{}" {
			if a := copilotArgs(data.raw("arguments")); a != nil {
				e.Tool.Arguments = a
			}
		}
		return nil
	}
	e := base(annals.KindTool, -1)
	e.Tool = &annals.ToolCall{Name: copilotToolName(data.str("toolName")), CallID: SafeID(callID, annals.MaxIDBytes), Arguments: copilotArgs(data.raw("arguments"))}
	e.Metadata = safeMeta(map[string]any{"extra": extras(data, "toolCallId", "toolName", "arguments", "parentToolCallId")})
	if callID != "" {
		// The start is the first we hear of this call: it waits for its result.
		s.open[callID] = e
	}
	return s.add(out, e)
}

func (s *copilotSession) toolComplete(data jsonObject, base copilotBase, out Output) error {
	callID := data.str("toolCallId")
	e := s.open[callID]
	if e == nil {
		// A result without a call in this file (the call was in a rotated part, or the
		// file was cut): the result still becomes a tool entry, so nothing is lost.
		e = base(annals.KindTool, -1)
		name := data.obj("toolTelemetry").obj("properties").str("tool")
		e.Tool = &annals.ToolCall{Name: copilotToolName(name), CallID: SafeID(callID, annals.MaxIDBytes)}
		copilotResult(e, data)
		return s.add(out, e)
	}
	delete(s.open, callID)
	copilotResult(e, data)
	return nil
}

// lineOther maps a compaction, and keeps everything else as an event.
func (s *copilotSession) lineOther(typ string, ev, data jsonObject, base copilotBase, out Output) error {
	// A compaction: Copilot summarises the context and starts over from the summary.
	if strings.Contains(typ, "compaction") {
		if sum := firstNonEmpty(data.str("summaryContent"), data.str("summary"), data.str("content")); sum != "" {
			e := base(annals.KindSystem, -1)
			e.Text = ValidText(sum)
			e.Metadata = safeMeta(map[string]any{"compaction": true, "type": typ, "data": extras(data, "summaryContent", "summary", "content")})
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
		e.Channel = "copilot-cli/" + sanitizeChannel(typ)
	}
	e.Text = ValidText(firstNonEmpty(data.str("message"), data.str("content"), data.str("agentDisplayName")))
	if tc := data.str("toolCallId"); tc != "" && e.CorrelationID == "" {
		e.CorrelationID = SafeID(tc, annals.MaxIDBytes)
	}
	meta := map[string]any{"data": extras(data, "message", "content")}
	if typ == "session.truncation" {
		meta["context_truncation"] = true
	}
	if ev.str("type") == "" {
		meta["line"] = extras(ev, "data")
	}
	e.Metadata = Metadata(meta)
	return s.add(out, e)
}

// endRun records the open turn's end with status, if a turn is open.
func (s *copilotSession) endRun(out Output, status annals.RunStatus, t time.Time) error {
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
func (s *copilotSession) start(n int, data jsonObject, t time.Time, out Output) error {
	if sid := data.str("sessionId"); sid != "" {
		s.st.ChatID = ChatID(s.format, sid)
	}
	attrs := annals.Attributes{"source": s.format}
	c := data.obj("context")
	if v := c.str("cwd"); v != "" {
		attrs["cwd"] = v
	}
	if repo := c.str("repository"); repo != "" {
		host := c.str("repositoryHost")
		if host == "" && (c.str("hostType") == "github" || c.str("hostType") == "cli") && strings.Count(repo, "/") == 1 {
			host = "github.com"
		}
		if host != "" && !strings.HasPrefix(repo, host+"/") {
			repo = host + "/" + repo
		}
		attrs["repository"] = repo
	}
	if v := c.str("branch"); v != "" {
		attrs["git_branch"] = v
	}
	if v := data.str("selectedModel"); v != "" {
		attrs["model"] = v
	}
	if v := data.str("copilotVersion"); v != "" {
		attrs["copilot_version"] = v
	}
	if st := ParseTime(data.str("startTime")); !st.IsZero() {
		t = st
	}
	s.st.Emitted = true
	return out.Emit(annals.CaptureOp{Chat: cleanChat(&annals.Chat{ID: s.st.ChatID, Attributes: attrs, CreatedAt: t})})
}

// assistant maps an assistant message: its text and reasoning, then one tool entry per tool
// request, each waiting for its result.
func (s *copilotSession) assistant(n int, id string, data jsonObject, base copilotBase, out Output) error {
	text := ValidText(data.str("content"))
	reasoning := ValidText(data.str("reasoningText"))
	opaque := data.str("reasoningOpaque") != "" || data.str("encryptedContent") != ""
	meta := map[string]any{
		"encrypted_reasoning": boolOrNil(opaque),
		"extra": extras(data, "content", "reasoningText", "reasoningOpaque", "encryptedContent", "toolRequests",
			"outputTokens", "parentToolCallId"),
	}
	tokens := int64(data.num("outputTokens"))
	if s.st.RunID != "" && tokens > 0 {
		// Inside a turn the usage goes to the turn's run; only a message outside any turn
		// keeps it on its entry.
		s.st.RunOut += tokens
		tokens = 0
	}
	reqs := data.arr("toolRequests")
	if text != "" || reasoning != "" || len(reqs) == 0 {
		e := base(annals.KindAssistant, -1)
		e.Text, e.Reasoning, e.OutputTokens = text, reasoning, tokens
		e.Metadata = Metadata(meta)
		if err := s.add(out, e); err != nil {
			return err
		}
		meta, tokens = nil, 0
	}
	for i, raw := range reqs {
		req, err := decodeObject(raw)
		if err != nil {
			out.Warnf(n, "toolRequests[%d]: not a JSON object", i)
			continue
		}
		e := base(annals.KindTool, i+1)
		callID := req.str("toolCallId")
		e.Tool = &annals.ToolCall{Name: copilotToolName(req.str("name")), CallID: SafeID(callID, annals.MaxIDBytes), Arguments: copilotArgs(req.raw("arguments"))}
		m := map[string]any{"request": extras(req, "toolCallId", "name", "arguments")}
		if meta != nil {
			// The message had no text: its fields ride on its first call.
			for k, v := range meta {
				m[k] = v
			}
			e.OutputTokens = tokens
			meta, tokens = nil, 0
		}
		e.Metadata = Metadata(m)
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

// copilotArgs keeps a call's arguments as JSON: an object as is, and a JSON-encoded string (the
// OpenAI wire form) decoded when it holds JSON.
func copilotArgs(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return rawJSON(s)
		}
	}
	return validJSON(raw)
}

func copilotToolName(name string) string {
	name = SafeID(name, annals.MaxIDBytes)
	if name == "" {
		return "unknown"
	}
	return name
}

// copilotResult puts a tool.execution_complete's result and outcome on the call's entry.
func copilotResult(e *annals.Entry, data jsonObject) {
	res := data.obj("result")
	text := ""
	detailed := ""
	if res != nil {
		text = textOf(res.raw("content"))
		detailed = textOf(res.raw("detailedContent"))
	} else {
		text = textOf(data.raw("result"))
	}
	errMsg := ""
	if eo := data.obj("error"); eo != nil {
		errMsg = firstNonEmpty(eo.str("message"), textOf(data.raw("error")))
	} else {
		errMsg = data.str("error")
	}
	if text == "" {
		text = errMsg
	}
	e.Tool.Result = Truncated(ValidText(text), annals.MaxEntryBytes/4)
	switch {
	case data.boolean("success"):
		e.Tool.Outcome = annals.OutcomeSucceeded
	default:
		e.Tool.Outcome = annals.OutcomeFailed
		rt := strings.ToLower(res.str("resultType"))
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
		m["detailed_result"] = Truncated(ValidText(detailed), annals.MaxEntryBytes/4)
	}
	if errMsg != "" && errMsg != text {
		m["error"] = ValidText(errMsg)
	}
	m["result"] = extras(data, "toolCallId", "success", "result", "error", "parentToolCallId")
	e.Metadata = Metadata(m)
}
