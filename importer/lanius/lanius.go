// Package lanius reads the histories of lanius for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package lanius

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
	"github.com/annals-dev/annals/view"
)

// Lanius imports a lanius database (lanius.db): the ledger of bus events and the transcripts
// that lanius's history view reads (reference 003). The schema is lanius's own (db.rs):
//
//	events(id, type, cause_id, correlation_id, payload, state, ..., created_at)
//	messages(id, session_id, role, content, event_id, created_at)
//
// messages.content is lanius's normalized message JSON: {"role":"assistant", "text"?,
// "reasoning"?, "tool_calls": [{"call_id", "fn_name", "fn_arguments"}]} for an assistant, and
// {"role":"tool", "tool_call_id", "name", "content": <string>} for a tool result, which lands on
// the call with that call_id. Older guesses ({"id", "name", "arguments"}, OpenAI's "function",
// {"text"|"output", "is_error"}) are read too.
//
// Each transcript session becomes a chat whose agent is the noun of its in/agent/<noun> events;
// a message takes the type of its event as channel and the event's correlation id. The ledger —
// every event, with its type, cause, state and payload as stored — becomes one chat,
// lanius:ledger, in ledger (id) order: the query view answers conversation from it, and since
// it holds no message it is no session (lanius derives sessions from messages).
type Lanius struct{}

func (Lanius) Name() string { return "lanius" }

func (Lanius) Detect(path string, head []byte) bool {
	return reader.DetectSQLiteTables(path, head, "events", "messages") && !reader.DetectSQLiteTables(path, head, "parts")
}

func (Lanius) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".lanius", "lanius.db"), filepath.Join(home, ".local", "share", "lanius", "lanius.db")}
}

// laniusLedgerID is the session name of the chat holding the ledger.
const laniusLedgerID = "ledger"

// laniusItem is one message of a session's timeline.
type laniusItem struct {
	when time.Time
	msg  map[string]any
}

func (f Lanius) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	db, err := reader.OpenSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("lanius: %w", err)
	}
	defer db.Close()
	tables, err := reader.SQLiteTables(ctx, db)
	if err != nil {
		return fmt.Errorf("lanius: %w", err)
	}
	if !tables["messages"] {
		return fmt.Errorf("lanius: %s has no messages table", src.Path)
	}
	mc, err := reader.TableColumns(ctx, db, "messages")
	if err != nil {
		return fmt.Errorf("lanius: %w", err)
	}
	cols := laniusCols{id: reader.PickColumn(mc, "id", "message_id"), role: reader.PickColumn(mc, "role"),
		content: reader.PickColumn(mc, "content", "body", "data"), event: reader.PickColumn(mc, "event_id", "ledger_id"),
		channel: reader.PickColumn(mc, "channel", "event_type", "type"), corr: reader.PickColumn(mc, "correlation_id", "correlation")}
	mSession := reader.PickColumn(mc, "session_id", "session", "transcript_id", "conversation_id")
	mTime := reader.PickColumn(mc, "created_at", "ts", "timestamp", "time")
	if mSession == "" || cols.role == "" || cols.content == "" {
		return fmt.Errorf("lanius: %s: messages needs session_id, role and content columns (see docs/IMPORT.md)", src.Path)
	}
	var ledger *laniusLedger
	if tables["events"] {
		if ledger, err = readLaniusLedger(ctx, db, out); err != nil {
			return fmt.Errorf("lanius: %w", err)
		}
	}

	ss, err := readLaniusSessions(ctx, db, cols, mSession, mTime, ledger, out)
	if err != nil {
		return fmt.Errorf("lanius: %w", err)
	}
	for _, s := range ss.order {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := f.emitSession(reader.ChatID(f.Name(), s), ss.agentOf[s], ss.timelines[s], cols, out); err != nil {
			return err
		}
	}
	if ledger != nil && len(ledger.order) > 0 {
		return f.emitLedger(ledger, out)
	}
	return nil
}

// laniusSessions are the messages grouped by session, in message-id order.
type laniusSessions struct {
	timelines map[string][]laniusItem
	order     []string
	// agentOf is each session's agent: the noun of its first in/agent/<noun> event.
	agentOf map[string]string
}

// readLaniusSessions reads every message, in id order, into its session's timeline.
func readLaniusSessions(ctx context.Context, db *sql.DB, cols laniusCols, mSession, mTime string, ledger *laniusLedger, out reader.Output) (*laniusSessions, error) {
	order := "rowid"
	if cols.id != "" {
		order = `"` + cols.id + `"`
	}
	msgs, err := reader.QueryMaps(ctx, db, `SELECT rowid AS annals_rowid, * FROM messages ORDER BY `+order)
	if err != nil {
		return nil, fmt.Errorf("reading messages: %w", err)
	}
	ss := &laniusSessions{timelines: map[string][]laniusItem{}, agentOf: map[string]string{}}
	noteAgent := func(session, typ string) {
		if ss.agentOf[session] != "" {
			return
		}
		if rest, ok := strings.CutPrefix(typ, "in/agent/"); ok {
			ss.agentOf[session], _, _ = strings.Cut(rest, "/")
		}
	}
	for i, m := range msgs {
		s := reader.ColString(m, mSession)
		if s == "" {
			out.Warnf(0, "messages row %d: no session; skipped", i+1)
			continue
		}
		if _, ok := ss.timelines[s]; !ok {
			ss.order = append(ss.order, s)
		}
		if cols.event != "" && m[cols.event] != nil && ledger != nil {
			if ev := ledger.byID[reader.ColInt(m, cols.event)]; ev != nil {
				m["annals_event"] = ev
				noteAgent(s, ev.typ)
			}
		}
		if cols.channel != "" {
			noteAgent(s, reader.ColString(m, cols.channel))
		}
		ss.timelines[s] = append(ss.timelines[s], laniusItem{when: reader.ColTime(m, mTime), msg: m})
	}
	return ss, nil
}

type laniusCols struct{ id, role, content, event, channel, corr string }

// emitSession writes one session in lanius's own order, message id order: the order its
// transcript answers in, even where a boundary timestamp is out of step with the ids.
func (f Lanius) emitSession(chatID, agent string, items []laniusItem, cols laniusCols, out reader.Output) error {
	var created time.Time
	for _, it := range items {
		if !it.when.IsZero() {
			created = it.when
			break
		}
	}
	chat := &annals.Chat{ID: chatID, AgentID: reader.SafeID(agent, annals.MaxIDBytes), Attributes: annals.Attributes{"source": f.Name()}, CreatedAt: created}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	open := map[string]*annals.Entry{}
	var entries []*annals.Entry
	last := created
	for _, it := range items {
		when := it.when
		if when.IsZero() {
			when = last
		}
		last = when
		entries = append(entries, f.message(it.msg, when, cols, open, out)...)
	}
	return reader.EmitEntries(chatID, entries, out)
}

// laniusChannel keeps a lanius event type as the channel: both are slash-separated paths.
func laniusChannel(typ string) string {
	if len(typ) > annals.MaxChannelBytes {
		typ = typ[:annals.MaxChannelBytes]
	}
	return strings.Trim(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, reader.ValidText(typ)), "/")
}

// message maps one messages row: a user, assistant or system message (with an assistant's
// tool calls as tool entries waiting in open), or a tool result landing on its call. One row is
// one message: whatever its content's shape, it never becomes several rows of its own kind.
func (f Lanius) message(m map[string]any, when time.Time, cols laniusCols, open map[string]*annals.Entry, out reader.Output) []*annals.Entry {
	mid := reader.ColString(m, cols.id)
	if mid == "" {
		mid = reader.ColString(m, "annals_rowid")
	}
	base := "m" + mid
	role := strings.ToLower(reader.ColString(m, cols.role))
	channel := laniusChannel(reader.ColString(m, cols.channel))
	corr := reader.ColString(m, cols.corr)
	origin := map[string]any{"id": reader.ColInt(m, cols.id)}
	sources := []string{base}
	if ev, ok := m["annals_event"].(*laniusEvent); ok {
		channel = laniusChannel(ev.typ)
		origin["event_id"] = ev.id
		// The event that carried the row, as a source id: the view's event_count counts them.
		sources = append(sources, view.SourceEventPrefix+strconv.FormatInt(ev.id, 10))
		if corr == "" {
			corr = ev.corr
		}
	}
	mk := func(id string, kind annals.EntryKind) *annals.Entry {
		return &annals.Entry{ID: id, Kind: kind, Channel: channel, CorrelationID: reader.SafeID(corr, annals.MaxIDBytes), Time: when, SourceIDs: slices.Clone(sources)}
	}
	content, blocks, text := laniusContent(strings.TrimSpace(reader.ColString(m, cols.content)), func() {
		out.Warnf(0, "messages %s: content is not valid JSON; kept as text", mid)
	})
	if role == "tool" {
		origin[LaniusContentMetaKey] = laniusStoredContent(m, cols.content)
		return f.toolResult(content, m, text, mk(base, annals.KindTool), origin, open)
	}
	kind := annals.KindUser
	switch role {
	case "assistant":
		kind = annals.KindAssistant
	case "system", "developer":
		kind = annals.KindSystem
	case "user", "human":
	default:
		kind = annals.KindEvent
	}
	reasoning, opaque := laniusReasoning(content.Raw("reasoning"))
	e := mk(base, kind)
	e.Text, e.Reasoning = text, reasoning
	meta := map[string]any{"lanius": origin, "encrypted_reasoning": reader.BoolOrNil(opaque),
		"content": reader.Extras(content, "role", "text", "content", "output", "result", "reasoning", "tool_calls")}
	if blocks != nil {
		meta["content"] = blocks
	}
	if kind == annals.KindEvent {
		meta["role"] = role
	}
	meta[LaniusContentMetaKey] = laniusStoredContent(m, cols.content)
	e.Metadata = reader.SafeMeta(meta)
	// The message itself is always an entry, even with no text: it is one row of the session
	// (message counts match lanius's), and the calls below follow it.
	ents := []*annals.Entry{e}
	for i, raw := range content.Arr("tool_calls") {
		c, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "messages %s tool_calls[%d]: not a JSON object", mid, i)
			continue
		}
		te := mk(reader.EntryID(base, i+1), annals.KindTool)
		te.Tool = laniusCall(c)
		te.Metadata = reader.SafeMeta(map[string]any{"call": reader.Extras(c, "call_id", "fn_name", "fn_arguments", "id", "name", "arguments", "input", "function")})
		if te.Tool.CallID != "" {
			open[te.Tool.CallID] = te
		}
		ents = append(ents, te)
	}
	return ents
}

// laniusContent decodes a message's content: a JSON object (lanius's normalized message), a
// JSON array of blocks, a JSON string, or plain text; text is what it says.
func laniusContent(raw string, invalid func()) (content reader.JSONObject, blocks json.RawMessage, text string) {
	switch {
	case strings.HasPrefix(raw, "{"):
		c, err := reader.DecodeObject([]byte(raw))
		if err != nil {
			invalid()
		}
		content = c
	case strings.HasPrefix(raw, "[") && json.Valid([]byte(raw)):
		blocks = json.RawMessage(raw)
	case strings.HasPrefix(raw, `"`):
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			raw = s
		}
	}
	text = raw
	switch {
	case blocks != nil:
		text = reader.BlocksText(blocks)
	case content != nil:
		text = reader.FirstNonEmpty(content.Str("text"), content.Str("content"), content.Str("output"), content.Str("result"))
		if r := content.Raw("content"); text == "" && r != nil && r[0] == '[' {
			text = reader.BlocksText(r)
		}
	}
	return content, blocks, reader.ValidText(text)
}

// laniusCall reads one tool call: lanius's {call_id, fn_name, fn_arguments}, or the
// {id, name, arguments|input} and OpenAI {id, function: {name, arguments}} shapes.
func laniusCall(c reader.JSONObject) *annals.ToolCall {
	fn := c.Obj("function")
	args := c.Raw("fn_arguments")
	for _, k := range []string{"arguments", "input"} {
		if args == nil {
			args = c.Raw(k)
		}
	}
	if args == nil && fn != nil {
		args = fn.Raw("arguments")
	}
	return &annals.ToolCall{Name: reader.ToolName(reader.FirstNonEmpty(c.Str("fn_name"), c.Str("name"), fn.Str("name"))),
		CallID: reader.SafeID(reader.FirstNonEmpty(c.Str("call_id"), c.Str("id")), annals.MaxIDBytes), Arguments: reader.CallArgs(args)}
}

// toolResult lands a tool row on the call it answers (by call_id), or keeps it as a tool entry
// of its own when no call of the session has that id.
func (f Lanius) toolResult(content reader.JSONObject, m map[string]any, text string, e *annals.Entry, origin map[string]any, open map[string]*annals.Entry) []*annals.Entry {
	callID := reader.FirstNonEmpty(content.Str("tool_call_id"), content.Str("call_id"), reader.ColString(m, "tool_call_id"))
	outcome := annals.OutcomeSucceeded
	if content.Boolean("is_error") || content.Boolean("error") || content.Str("error") != "" {
		outcome = annals.OutcomeFailed
		if text == "" {
			text = reader.ValidText(content.Str("error"))
		}
	}
	result := reader.Truncated(text, annals.MaxEntryBytes/4)
	rest := reader.Extras(content, "role", "tool_call_id", "call_id", "text", "content", "output", "result", "is_error", "error", "name", "tool_name")
	if call := open[callID]; callID != "" && call != nil {
		call.Tool.Result, call.Tool.Outcome = result, outcome
		// The entry stands for the tool row in the transcript, so it takes that row's event type,
		// correlation and time; the call's own are the assistant message's, which keeps them.
		call.Channel, call.CorrelationID, call.Time = e.Channel, e.CorrelationID, e.Time
		// The entry is the tool row's too: a rewind to it, or its event, finds it.
		call.SourceIDs = append(call.SourceIDs, e.SourceIDs...)
		stored := origin[LaniusContentMetaKey]
		delete(origin, LaniusContentMetaKey)
		meta := map[string]any{"lanius_result": origin, "result_content": rest, LaniusContentMetaKey: stored}
		if call.Tool.Name == "unknown" {
			call.Tool.Name = reader.ToolName(reader.FirstNonEmpty(content.Str("name"), content.Str("tool_name")))
		}
		call.Metadata = reader.MergeMeta(call.Metadata, meta)
		delete(open, callID)
		return nil
	}
	e.Tool = &annals.ToolCall{Name: reader.ToolName(reader.FirstNonEmpty(content.Str("name"), content.Str("tool_name"))), CallID: reader.SafeID(callID, annals.MaxIDBytes),
		Result: result, Outcome: outcome}
	stored := origin[LaniusContentMetaKey]
	delete(origin, LaniusContentMetaKey)
	e.Metadata = reader.SafeMeta(map[string]any{"lanius": origin, "orphan_result": true, "content": rest, LaniusContentMetaKey: stored})
	return []*annals.Entry{e}
}

// laniusReasoning reads recorded reasoning: a string, or an object with its text (and maybe a
// signature or encrypted blob, which is dropped and flagged, never rendered).
func laniusReasoning(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		return reader.ValidText(reader.TextOf(raw)), false
	}
	o, err := reader.DecodeObject(raw)
	if err != nil {
		if raw[0] == '[' {
			var parts []json.RawMessage
			if json.Unmarshal(raw, &parts) == nil {
				var texts []string
				opaque := false
				for _, p := range parts {
					t, op := laniusReasoning(p)
					opaque = opaque || op
					if t != "" {
						texts = append(texts, t)
					}
				}
				return strings.Join(texts, "\n\n"), opaque
			}
		}
		return "", false
	}
	_, opaque := reader.ScrubOpaque(raw)
	return reader.ValidText(reader.FirstNonEmpty(o.Str("text"), o.Str("content"), o.Str("summary"), o.Str("thinking"))), opaque
}
