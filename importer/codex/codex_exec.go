package codex

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// This file holds two parts of the Codex reader: the event stream of `codex exec --json`
// (thread.started, turn.started, item.completed, turn.completed, ...), and the gate that drops
// the parent's history a forked or sub-agent rollout replays before its own first turn.

// before handles what comes ahead of the usual line types: the lines of a `codex exec --json`
// stream, and the replay gate of a thread with a parent. It reports whether the line is done.
func (s *cxSession) before(ctx context.Context, n int, raw []byte, ts time.Time, l *cxLine, p *cxPayload, out reader.Output) (bool, error) {
	if len(l.Payload) == 0 && cxExecType(l.Type) {
		if err := s.exec(n, raw, ts, out); err != nil {
			return true, err
		}
		return true, s.flush(out)
	}
	if s.st.Replay != nil && len(l.Payload) > 0 {
		return s.gate(ctx, n, raw, l, p, out)
	}
	return false, nil
}

// agentMessage is a message between the agents of a multi-agent thread: assistant text, with
// who wrote it and to whom.
func (s *cxSession) agentMessage(p *cxPayload, ts time.Time, id string, raw []byte) {
	text, other := cxText(p.Content)
	if strings.TrimSpace(text) == "" && other == 0 {
		return
	}
	var who struct {
		Author    string `json:"author"`
		Recipient string `json:"recipient"`
	}
	_ = json.Unmarshal(cxPayloadOf(raw), &who)
	m := map[string]any{"author": who.Author, "recipient": who.Recipient}
	if other > 0 {
		m["attachments"] = other
	}
	s.push(&annals.Entry{ID: id, Kind: annals.KindAssistant, Time: ts, Text: reader.ValidText(text), RunID: s.st.Turn, Metadata: reader.Metadata(m)})
}

// cxExecTypes are the line types of `codex exec --json`.
func cxExecType(typ string) bool {
	return strings.HasPrefix(typ, "thread.") || strings.HasPrefix(typ, "turn.") || strings.HasPrefix(typ, "item.")
}

// cxExecLine is one event of `codex exec --json`.
type cxExecLine struct {
	Type     string          `json:"type"`
	ThreadID string          `json:"thread_id"`
	Item     json.RawMessage `json:"item"`
	Usage    *struct {
		Input  int64 `json:"input_tokens"`
		Cached int64 `json:"cached_input_tokens"`
		Output int64 `json:"output_tokens"`
	} `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

// cxExecItem is the item of an item.* event.
type cxExecItem struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	Command          string          `json:"command"`
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Status           string          `json:"status"`
	Changes          json.RawMessage `json:"changes"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Result           json.RawMessage `json:"result"`
	Error            json.RawMessage `json:"error"`
	Query            string          `json:"query"`
	Message          string          `json:"message"`
}

// exec handles one line of a `codex exec --json` stream. The stream has no session_meta: the
// thread id of thread.started names the chat ("codex:<thread id>/exec", apart from the rollout
// Codex writes for the same thread, which holds the prompt too).
func (s *cxSession) exec(n int, raw []byte, ts time.Time, out reader.Output) error {
	var l cxExecLine
	if err := json.Unmarshal(raw, &l); err != nil {
		out.Warnf(n, "codex exec event: %s", reader.ShortJSONErr(err))
		return nil
	}
	if ts.IsZero() {
		// The stream carries no times: the file's modification time is the best clock left
		// (the time the stream was last written).
		ts = s.src.ModTime
	}
	id := "h-" + reader.ShortHashBytes(raw)
	switch l.Type {
	case "thread.started":
		if s.st.Chat == "" {
			tid := l.ThreadID
			if tid == "" || reader.Placeholder(tid) {
				tid = ""
			}
			s.meta(&cxPayload{ID: tid}, ts, id, nil)
			if tid != "" {
				s.st.Chat = reader.ChatID("codex", tid+"/exec")
				s.st.Attrs["session_id"] = tid
			}
			s.st.Attrs["exec_stream"] = "true"
		}
	case "turn.started":
		s.ensureExecChat(ts)
		s.create()
		s.startTurn("", ts)
	case "turn.completed":
		if l.Usage != nil && s.st.Turn != "" {
			// input_tokens counts the whole prompt, cached tokens included.
			s.st.TurnIn, s.st.TurnOut = reader.ClampTokens(l.Usage.Input), reader.ClampTokens(l.Usage.Output)
			s.st.TurnCached = min(reader.ClampTokens(l.Usage.Cached), s.st.TurnIn)
		}
		s.endTurn(annals.StatusCompleted, ts)
	case "turn.failed":
		s.ensureExecChat(ts)
		s.push(&annals.Entry{ID: id, Kind: annals.KindSystem, Time: ts, RunID: s.st.Turn, Text: reader.ValidText(cxErrorText(l.Error, l.Message)),
			Metadata: reader.Metadata(map[string]any{"error": true})})
		s.endTurn(annals.StatusFailed, ts)
	case "item.completed":
		s.ensureExecChat(ts)
		var it cxExecItem
		if err := json.Unmarshal(l.Item, &it); err != nil {
			out.Warnf(n, "codex exec item: %s", reader.ShortJSONErr(err))
			return nil
		}
		s.execItem(&it, l.Item, ts, id)
	case "item.started", "item.updated":
		// Announcements and progress of an item whose completed form follows.
	default:
		s.ensureExecChat(ts)
		s.unknown("exec", l.Type, ts, id, json.RawMessage(raw))
	}
	return nil
}

// ensureExecChat names the chat of a stream whose thread.started line is missing.
func (s *cxSession) ensureExecChat(ts time.Time) {
	if s.st.Chat != "" {
		return
	}
	s.meta(&cxPayload{}, ts, "", nil)
	s.st.Attrs["exec_stream"] = "true"
}

func (s *cxSession) execItem(it *cxExecItem, raw json.RawMessage, ts time.Time, id string) {
	tool := func(name string, args json.RawMessage, result string, outcome annals.Outcome, meta map[string]any) {
		s.push(&annals.Entry{ID: id, Kind: annals.KindTool, Time: ts, RunID: s.st.Turn, Metadata: reader.Metadata(meta),
			Tool: &annals.ToolCall{Name: reader.SafeID(name, annals.MaxIDBytes), CallID: reader.SafeID(it.ID, annals.MaxIDBytes), Arguments: reader.ValidJSON(args), Result: reader.ValidText(result), Outcome: outcome}})
	}
	switch it.Type {
	case "agent_message", "assistant_message":
		if strings.TrimSpace(it.Text) == "" {
			return
		}
		s.push(&annals.Entry{ID: id, Kind: annals.KindAssistant, Time: ts, RunID: s.st.Turn, Text: reader.ValidText(it.Text)})
	case "reasoning":
		if strings.TrimSpace(it.Text) == "" {
			return
		}
		s.push(&annals.Entry{ID: id, Kind: annals.KindAssistant, Time: ts, RunID: s.st.Turn, Reasoning: reader.ValidText(it.Text)})
	case "command_execution":
		args, _ := json.Marshal(map[string]string{"command": it.Command})
		outcome := cxExecOutcome(it.Status, it.ExitCode)
		meta := map[string]any{}
		if it.ExitCode != nil {
			meta["exit_code"] = *it.ExitCode
		}
		tool("command_execution", args, it.AggregatedOutput, outcome, meta)
	case "file_change":
		tool("file_change", it.Changes, "", cxExecOutcome(it.Status, nil), nil)
	case "mcp_tool_call":
		result := reader.TextOf(it.Result)
		outcome := cxExecOutcome(it.Status, nil)
		if e := cxErrorText(it.Error, ""); e != "" {
			result, outcome = e, annals.OutcomeFailed
		}
		name := it.Tool
		if name == "" {
			name = "mcp_tool_call"
		}
		tool(name, it.Arguments, result, outcome, map[string]any{"server": it.Server})
	case "web_search":
		args, _ := json.Marshal(map[string]string{"query": it.Query})
		tool("web_search", args, "", annals.OutcomeSucceeded, nil)
	case "error":
		s.push(&annals.Entry{ID: id, Kind: annals.KindSystem, Time: ts, RunID: s.st.Turn, Text: reader.ValidText(it.Message), Metadata: reader.Metadata(map[string]any{"error": true})})
	default: // todo_list and types to come: kept whole
		s.unknown("exec/item", it.Type, ts, id, raw)
	}
}

func cxExecOutcome(status string, exit *int) annals.Outcome {
	if exit != nil && *exit != 0 {
		return annals.OutcomeFailed
	}
	if o := cxStatus(status); o != "" {
		return o
	}
	if status == "declined" {
		return annals.OutcomeBlocked
	}
	return annals.OutcomeSucceeded
}

// cxErrorText reads an error given as a string or as {"message": ...}.
func cxErrorText(raw json.RawMessage, fallback string) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return fallback
	}
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Message != "" {
		return e.Message
	}
	if t := reader.TextOf(raw); t != "" {
		return t
	}
	return string(raw)
}

// cxReplay is the state of the replay gate. A forked rollout (forked_from_id) and a sub-agent's
// rollout start with a copy of their parent's history, written again at the fork with new
// timestamps: the parent's session_meta, its turns, messages and token counts. That copy is the
// parent's chat, already imported from the parent's file; here it would be a second copy and a
// second count of its tokens. The copy ends where the thread's own first turn begins: turn ids
// are UUIDv7 values minted when a turn ran, so a copied turn's id predates the fork (the
// thread's own UUIDv7 id, or its session_meta time) and the thread's own first turn does not.
type cxReplay struct {
	// Since is when the thread was created.
	Since time.Time `json:"since"`
	// Proven is set once a copied line was recognised: the parent's session_meta, or a turn
	// older than the thread.
	Proven  bool `json:"proven,omitempty"`
	Dropped int  `json:"dropped,omitempty"`
}

type cxHeld struct {
	n   int
	raw []byte
}

// armReplay starts the gate for a thread that has a parent.
func (s *cxSession) armReplay(id string, ts time.Time) {
	since := ts
	if t, ok := uuidV7Time(id); ok {
		since = t
	}
	if since.IsZero() {
		return // no clock to tell copied turns from the thread's own: nothing is dropped
	}
	s.st.Replay = &cxReplay{Since: since}
}

// gate decides a line of a thread with a parent before the thread's own first turn. It
// reports true when the line was consumed (dropped as copied history, or held until it is
// known whether it is). Lines before the first recognised copy are held, never dropped on a
// guess: a thread whose start copies nothing gets them back in order.
func (s *cxSession) gate(ctx context.Context, n int, raw []byte, l *cxLine, p *cxPayload, out reader.Output) (bool, error) {
	r := s.st.Replay
	turnMark := l.Type == "turn_context" || (l.Type == "event_msg" && p.Type == "task_started")
	switch {
	case l.Type == "session_meta":
		r.Proven = true // the parent's own session_meta, copied in
	case turnMark:
		if t, ok := uuidV7Time(p.TurnID); !ok || !t.Before(r.Since) {
			// The thread's own first turn.
			return false, s.endReplay(ctx, out)
		}
		r.Proven = true
	case !r.Proven:
		s.held = append(s.held, cxHeld{n: n, raw: append([]byte(nil), raw...)})
		return true, nil
	}
	r.Dropped += len(s.held) + 1
	s.held = nil
	return true, nil
}

// endReplay opens the gate: a proven copy is noted in one event entry (the lines are in the
// parent's chat); held lines that were not shown to be copies are read as the thread's own.
func (s *cxSession) endReplay(ctx context.Context, out reader.Output) error {
	r := s.st.Replay
	s.st.Replay = nil
	held := s.held
	s.held = nil
	if r.Proven {
		r.Dropped += len(held)
		m := map[string]any{"replayed_lines": r.Dropped}
		if p := s.st.Attrs["forked_from"]; p != "" {
			m["forked_from"] = p
		}
		if p := s.st.Attrs["parent"]; p != "" {
			m["parent"] = p
		}
		s.push(&annals.Entry{ID: "replayed-history", Kind: annals.KindEvent, Channel: "codex/replayed_history", Time: r.Since, Metadata: reader.Metadata(m)})
		return nil
	}
	for _, h := range held {
		if err := s.Line(ctx, h.n, h.raw, out); err != nil {
			return err
		}
	}
	return nil
}

// uuidV7Time returns the creation time of a version-7 UUID (its first 48 bits are Unix
// milliseconds).
func uuidV7Time(id string) (time.Time, bool) {
	h := strings.ReplaceAll(id, "-", "")
	if len(h) != 32 || h[12] != '7' {
		return time.Time{}, false
	}
	b, err := hex.DecodeString(h[:12])
	if err != nil {
		return time.Time{}, false
	}
	var ms int64
	for _, c := range b {
		ms = ms<<8 | int64(c)
	}
	return time.UnixMilli(ms).UTC(), true
}
