package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// lanius imports a lanius database (lanius.db): the ledger of bus events and the transcripts
// that lanius's history view reads (reference 003). Its schema is not published; the importer
// reads the one docs/IMPORT.md describes, inferred from the view's queries, and accepts the
// usual alternative column names:
//
//	events(id, type, correlation_id, session_id?, payload, created_at)
//	messages(id, session_id, event_id?, role, content, created_at)
//
// messages.content is JSON: {"text", "reasoning", "tool_calls": [{"id", "name", "arguments"}]}
// for an assistant, {"tool_call_id", "text"|"output", "is_error"} for a tool result. Each
// transcript session becomes a chat whose agent is the noun of its in/agent/<noun> events; a
// message takes the type of its event as channel and the event's correlation id. Events that
// carry no message become event entries of their session, and events of no session go to one
// chat, lanius:ledger, so nothing of the ledger is lost.
type lanius struct{}

func (lanius) Name() string { return "lanius" }

func (lanius) Detect(path string, head []byte) bool {
	return detectSQLiteTables(path, head, "events", "messages") && !detectSQLiteTables(path, head, "parts")
}

func (lanius) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".lanius", "lanius.db"), filepath.Join(home, ".local", "share", "lanius", "lanius.db")}
}

// laniusEvent is one events row.
type laniusEvent struct {
	id      int64
	typ     string
	corr    string
	session string
	payload string
	when    time.Time
	used    bool // carried by a message
}

// laniusItem is one row of a session's timeline: a message or a free-standing event.
type laniusItem struct {
	when time.Time
	ord  int // read order, for a stable sort among equal times
	msg  map[string]any
	ev   *laniusEvent
}

func (f lanius) ParseFile(ctx context.Context, src *Source, out Output) error {
	db, err := openSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("lanius: %w", err)
	}
	defer db.Close()
	tables, err := sqliteTables(ctx, db)
	if err != nil {
		return fmt.Errorf("lanius: %w", err)
	}
	if !tables["messages"] {
		return fmt.Errorf("lanius: %s has no messages table", src.Path)
	}
	mc, err := tableColumns(ctx, db, "messages")
	if err != nil {
		return fmt.Errorf("lanius: %w", err)
	}
	mID := pickColumn(mc, "id", "message_id")
	mSession := pickColumn(mc, "session_id", "session", "transcript_id", "conversation_id")
	mRole := pickColumn(mc, "role")
	mContent := pickColumn(mc, "content", "body", "data")
	mTime := pickColumn(mc, "created_at", "ts", "timestamp", "time")
	mEvent := pickColumn(mc, "event_id", "ledger_id")
	mChannel := pickColumn(mc, "channel", "event_type", "type")
	mCorr := pickColumn(mc, "correlation_id", "correlation")
	if mSession == "" || mRole == "" || mContent == "" {
		return fmt.Errorf("lanius: %s: messages needs session_id, role and content columns (see docs/IMPORT.md)", src.Path)
	}

	events := map[int64]*laniusEvent{}
	var eventOrder []*laniusEvent
	if tables["events"] {
		ec, err := tableColumns(ctx, db, "events")
		if err != nil {
			return fmt.Errorf("lanius: %w", err)
		}
		eID := pickColumn(ec, "id", "event_id", "seq")
		eType := pickColumn(ec, "type", "event_type", "kind", "channel")
		eCorr := pickColumn(ec, "correlation_id", "correlation")
		eSession := pickColumn(ec, "session_id", "session")
		ePayload := pickColumn(ec, "payload", "data", "body", "content")
		eTime := pickColumn(ec, "created_at", "ts", "timestamp", "time")
		order := "rowid"
		if eID != "" {
			order = `"` + eID + `"`
		}
		rows, err := queryMaps(ctx, db, `SELECT rowid AS annals_rowid, * FROM events ORDER BY `+order)
		if err != nil {
			return fmt.Errorf("lanius: reading events: %w", err)
		}
		for i, m := range rows {
			id := colInt(m, eID)
			if eID == "" {
				id = colInt(m, "annals_rowid")
			}
			ev := &laniusEvent{id: id, typ: colString(m, eType), corr: colString(m, eCorr), session: colString(m, eSession),
				payload: colString(m, ePayload), when: colTime(m, eTime)}
			if ev.typ == "" {
				out.Warnf(0, "events row %d: no event type; kept as type \"unknown\"", i+1)
				ev.typ = "unknown"
			}
			events[id] = ev
			eventOrder = append(eventOrder, ev)
		}
	}

	order := "rowid"
	if mID != "" {
		order = `"` + mID + `"`
	}
	msgs, err := queryMaps(ctx, db, `SELECT rowid AS annals_rowid, * FROM messages ORDER BY `+order)
	if err != nil {
		return fmt.Errorf("lanius: reading messages: %w", err)
	}
	timelines := map[string][]laniusItem{}
	var sessionOrder []string
	agentOf := map[string]string{}
	noteAgent := func(session, typ string) {
		if agentOf[session] != "" {
			return
		}
		if rest, ok := strings.CutPrefix(typ, "in/agent/"); ok {
			agentOf[session], _, _ = strings.Cut(rest, "/")
		}
	}
	for i, m := range msgs {
		s := colString(m, mSession)
		if s == "" {
			out.Warnf(0, "messages row %d: no session; skipped", i+1)
			continue
		}
		if _, ok := timelines[s]; !ok {
			sessionOrder = append(sessionOrder, s)
		}
		if mEvent != "" {
			if ev := events[colInt(m, mEvent)]; ev != nil && m[mEvent] != nil {
				ev.used = true
				m["annals_event"] = ev
				noteAgent(s, ev.typ)
			}
		}
		if mChannel != "" {
			noteAgent(s, colString(m, mChannel))
		}
		timelines[s] = append(timelines[s], laniusItem{when: colTime(m, mTime), ord: i, msg: m})
	}
	var ledger []laniusItem
	for i, ev := range eventOrder {
		if ev.used {
			continue
		}
		item := laniusItem{when: ev.when, ord: len(msgs) + i, ev: ev}
		if ev.session == "" {
			ledger = append(ledger, item)
			continue
		}
		if _, ok := timelines[ev.session]; !ok {
			sessionOrder = append(sessionOrder, ev.session)
		}
		noteAgent(ev.session, ev.typ)
		timelines[ev.session] = append(timelines[ev.session], item)
	}

	cols := laniusCols{id: mID, role: mRole, content: mContent, event: mEvent, channel: mChannel, corr: mCorr}
	for _, s := range sessionOrder {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := f.emitTimeline(ChatID(f.Name(), s), agentOf[s], "", timelines[s], cols, out); err != nil {
			return err
		}
	}
	if len(ledger) > 0 {
		if err := f.emitTimeline(ChatID(f.Name(), "ledger"), "", "lanius ledger (events outside any session)", ledger, cols, out); err != nil {
			return err
		}
	}
	return nil
}

type laniusCols struct{ id, role, content, event, channel, corr string }

func (f lanius) emitTimeline(chatID, agent, title string, items []laniusItem, cols laniusCols, out Output) error {
	sort.SliceStable(items, func(i, j int) bool {
		if !items[i].when.Equal(items[j].when) && !items[i].when.IsZero() && !items[j].when.IsZero() {
			return items[i].when.Before(items[j].when)
		}
		return items[i].ord < items[j].ord
	})
	var created time.Time
	for _, it := range items {
		if !it.when.IsZero() {
			created = it.when
			break
		}
	}
	chat := &annals.Chat{ID: chatID, AgentID: SafeID(agent, annals.MaxIDBytes), Attributes: annals.Attributes{"source": f.Name()}, CreatedAt: created, Title: title}
	if err := out.Emit(annals.CaptureOp{Chat: cleanChat(chat)}); err != nil {
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
		if it.ev != nil {
			entries = append(entries, laniusEventEntry(it.ev, when))
			continue
		}
		entries = append(entries, f.message(it.msg, when, cols, open, out)...)
	}
	for len(entries) > 0 {
		n := min(len(entries), annals.MaxBatchEntries)
		if err := out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: entries[:n]}}); err != nil {
			return err
		}
		entries = entries[n:]
	}
	return nil
}

// laniusEventEntry maps an event that carries no message.
func laniusEventEntry(ev *laniusEvent, when time.Time) *annals.Entry {
	e := &annals.Entry{ID: fmt.Sprintf("e%d", ev.id), Kind: annals.KindEvent, Channel: laniusChannel(ev.typ),
		CorrelationID: SafeID(ev.corr, annals.MaxIDBytes), Time: when, SourceIDs: []string{fmt.Sprintf("e%d", ev.id)}}
	p, err := decodeObject([]byte(ev.payload))
	if err == nil {
		e.Text = ValidText(firstNonEmpty(p.str("text"), p.str("message"), p.str("content"), p.str("summary")))
		scrubbed, _ := scrubOpaque(json.RawMessage(ev.payload))
		e.Metadata = safeMeta(map[string]any{"payload": scrubbed})
	} else if ev.payload != "" {
		e.Metadata = safeMeta(map[string]any{"payload": rawJSON(ev.payload)})
		if !json.Valid([]byte(strings.TrimSpace(ev.payload))) {
			e.Text = ValidText(ev.payload)
		}
	}
	return e
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
	}, ValidText(typ)), "/")
}

// message maps one messages row: a user, assistant or system message (with an assistant's
// tool calls as tool entries waiting in open), or a tool result landing on its call.
func (f lanius) message(m map[string]any, when time.Time, cols laniusCols, open map[string]*annals.Entry, out Output) []*annals.Entry {
	mid := colString(m, cols.id)
	if mid == "" {
		mid = colString(m, "annals_rowid")
	}
	base := "m" + mid
	role := strings.ToLower(colString(m, cols.role))
	channel := laniusChannel(colString(m, cols.channel))
	corr := colString(m, cols.corr)
	if ev, ok := m["annals_event"].(*laniusEvent); ok {
		channel = laniusChannel(ev.typ)
		if corr == "" {
			corr = ev.corr
		}
	}
	mk := func(id string, kind annals.EntryKind) *annals.Entry {
		return &annals.Entry{ID: id, Kind: kind, Channel: channel, CorrelationID: SafeID(corr, annals.MaxIDBytes), Time: when, SourceIDs: []string{base}}
	}
	raw := strings.TrimSpace(colString(m, cols.content))
	var content jsonObject
	var blocks []json.RawMessage
	switch {
	case strings.HasPrefix(raw, "{"):
		c, err := decodeObject([]byte(raw))
		if err != nil {
			out.Warnf(0, "messages %s: content is not valid JSON; kept as text", mid)
		}
		content = c
	case strings.HasPrefix(raw, "["):
		_ = json.Unmarshal([]byte(raw), &blocks)
	case strings.HasPrefix(raw, `"`):
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			raw = s
		}
	}
	if blocks != nil {
		ents := anthropicBlocks(blocks, role, base, when, open, func(i int, msg string) { out.Warnf(0, "messages %s content[%d]: %s", mid, i, msg) })
		for _, e := range ents {
			e.Channel, e.CorrelationID, e.SourceIDs = channel, SafeID(corr, annals.MaxIDBytes), []string{base}
			if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Result == "" {
				open[e.Tool.CallID] = e
			}
		}
		return ents
	}
	text := raw
	if content != nil {
		text = firstNonEmpty(content.str("text"), content.str("content"), content.str("output"), content.str("result"))
		if text == "" {
			if r := content.raw("content"); r != nil && r[0] == '[' {
				text = blocksText(r)
			}
		}
	}
	text = ValidText(text)

	if role == "tool" {
		callID := content.str("tool_call_id")
		if callID == "" {
			callID = colString(m, "tool_call_id")
		}
		outcome := annals.OutcomeSucceeded
		if content.boolean("is_error") || content.boolean("error") || content.str("error") != "" {
			outcome = annals.OutcomeFailed
			if text == "" {
				text = ValidText(content.str("error"))
			}
		}
		if call := open[callID]; callID != "" && call != nil {
			call.Tool.Result, call.Tool.Outcome = Truncated(text, annals.MaxEntryBytes/4), outcome
			delete(open, callID)
			return nil
		}
		e := mk(base, annals.KindTool)
		e.Tool = &annals.ToolCall{Name: copilotToolName(firstNonEmpty(content.str("name"), content.str("tool_name"))), CallID: SafeID(callID, annals.MaxIDBytes),
			Result: Truncated(text, annals.MaxEntryBytes/4), Outcome: outcome}
		e.Metadata = safeMeta(map[string]any{"orphan_result": true, "content": extras(content, "tool_call_id", "text", "content", "output", "result", "is_error", "error", "name", "tool_name")})
		return []*annals.Entry{e}
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
	var ents []*annals.Entry
	reasoning, opaque := laniusReasoning(content.raw("reasoning"))
	e := mk(base, kind)
	e.Text, e.Reasoning = text, reasoning
	meta := map[string]any{"encrypted_reasoning": boolOrNil(opaque),
		"content": extras(content, "text", "content", "output", "result", "reasoning", "tool_calls")}
	if kind == annals.KindEvent {
		meta["role"] = role
	}
	e.Metadata = Metadata(meta)
	calls := content.arr("tool_calls")
	if e.Text != "" || e.Reasoning != "" || len(calls) == 0 {
		ents = append(ents, e)
	}
	for i, raw := range calls {
		c, err := decodeObject(raw)
		if err != nil {
			out.Warnf(0, "messages %s tool_calls[%d]: not a JSON object", mid, i)
			continue
		}
		fn := c.obj("function")
		args := c.raw("arguments")
		if args == nil {
			args = c.raw("input")
		}
		if args == nil && fn != nil {
			args = fn.raw("arguments")
		}
		te := mk(EntryID(base, i+1), annals.KindTool)
		te.Tool = &annals.ToolCall{Name: copilotToolName(firstNonEmpty(c.str("name"), fn.str("name"))), CallID: SafeID(c.str("id"), annals.MaxIDBytes), Arguments: copilotArgs(args)}
		te.Metadata = safeMeta(map[string]any{"call": extras(c, "id", "name", "arguments", "input", "function")})
		if te.Tool.CallID != "" {
			open[te.Tool.CallID] = te
		}
		ents = append(ents, te)
	}
	return ents
}

// laniusReasoning reads recorded reasoning: a string, or an object with its text (and maybe a
// signature or encrypted blob, which is dropped and flagged, never rendered).
func laniusReasoning(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		return ValidText(textOf(raw)), false
	}
	o, err := decodeObject(raw)
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
	_, opaque := scrubOpaque(raw)
	return ValidText(firstNonEmpty(o.str("text"), o.str("content"), o.str("summary"), o.str("thinking"))), opaque
}
