package importer

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// loomcycle imports a loomcycle database (reference 000): sessions with their human layer
// (title, description, tags, pinned, archived_at, summary), the runs of each session, and the
// events each run recorded. The schema is not published; the importer reads the one
// docs/IMPORT.md describes, inferred from the History tool's description, and accepts the usual
// alternative column names:
//
//	sessions(id, tenant_id, user_id, agent, created_at, title, description, tags, pinned,
//	         archived_at, summary, summary_updated_at)
//	runs(id, session_id, agent, status, model, started_at, ended_at, input_tokens,
//	     output_tokens, cost_usd)
//	events(id, run_id, session_id?, seq, type, payload, created_at)
//
// A session becomes a chat that keeps its tenant, user and agent (loomcycle is multi-tenant,
// and the owner boundary must survive the move), its title, description and tags. A run
// becomes a run; its events become entries in (run start, seq) order: messages, reasoning, tool
// calls joined with their results by call id, compaction summaries, and every other event type
// as an event entry on the channel of its type.
type loomcycle struct{}

func (loomcycle) Name() string { return "loomcycle" }

func (loomcycle) Detect(path string, head []byte) bool {
	return detectSQLiteTables(path, head, "sessions", "runs", "events")
}

func (loomcycle) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".loomcycle", "loomcycle.db"), filepath.Join(home, ".local", "share", "loomcycle", "loomcycle.db")}
}

// lcEvent is one events row with the run it belongs to.
type lcEvent struct {
	row   map[string]any
	run   *lcRun
	ord   int
	seq   int64
	when  time.Time
	typ   string
	event int64
}

type lcRun struct {
	row   map[string]any
	id    string
	start time.Time
	ord   int
}

func (f loomcycle) ParseFile(ctx context.Context, src *Source, out Output) error {
	db, err := openSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("loomcycle: %w", err)
	}
	defer db.Close()
	c, err := lcReadColumns(ctx, db)
	if err != nil {
		return err
	}
	s, r, e := c.s, c.r, c.e
	if s.id == "" || r.id == "" || r.session == "" || e.typ == "" || (e.run == "" && e.session == "") {
		return fmt.Errorf("loomcycle: %s: sessions(id), runs(id, session_id) and events(run_id, type) are required (see docs/IMPORT.md)", src.Path)
	}

	sessions, err := queryMaps(ctx, db, `SELECT * FROM sessions ORDER BY rowid`)
	if err != nil {
		return fmt.Errorf("loomcycle: reading sessions: %w", err)
	}
	runs, runsOf, err := c.readRuns(ctx, db)
	if err != nil {
		return err
	}
	eventsOf, err := c.readEvents(ctx, db, runs, out)
	if err != nil {
		return err
	}
	for _, sm := range sessions {
		if err := ctx.Err(); err != nil {
			return err
		}
		sid := colString(sm, s.id)
		if sid == "" {
			continue
		}
		if err := f.session(c, sm, sid, runsOf[sid], eventsOf[sid], out); err != nil {
			return err
		}
	}
	return nil
}

// lcColumns names the columns of each table, as this database spells them ("" when absent).
type lcColumns struct {
	s struct{ id, tenant, user, agent, created, updated, title, descr, tags, pinned, archived, summary, summaryAt string }
	r struct{ id, session, agent, status, model, start, end, in, out, cost string }
	e struct{ id, run, session, seq, typ, payload, when string }
}

func lcReadColumns(ctx context.Context, db *sql.DB) (*lcColumns, error) {
	sc, err := tableColumns(ctx, db, "sessions")
	if err != nil {
		return nil, fmt.Errorf("loomcycle: %w", err)
	}
	rc, err := tableColumns(ctx, db, "runs")
	if err != nil {
		return nil, fmt.Errorf("loomcycle: %w", err)
	}
	ec, err := tableColumns(ctx, db, "events")
	if err != nil {
		return nil, fmt.Errorf("loomcycle: %w", err)
	}
	c := &lcColumns{}
	c.s.id, c.s.tenant, c.s.user = pickColumn(sc, "id", "session_id"), pickColumn(sc, "tenant_id", "tenant"), pickColumn(sc, "user_id", "user")
	c.s.agent, c.s.created, c.s.updated = pickColumn(sc, "agent", "agent_id", "agent_name"), pickColumn(sc, "created_at", "started_at"), pickColumn(sc, "updated_at", "last_activity")
	c.s.title, c.s.descr, c.s.tags, c.s.pinned = pickColumn(sc, "title", "name"), pickColumn(sc, "description"), pickColumn(sc, "tags"), pickColumn(sc, "pinned")
	c.s.archived, c.s.summary, c.s.summaryAt = pickColumn(sc, "archived_at", "archived"), pickColumn(sc, "summary"), pickColumn(sc, "summary_updated_at")
	c.r.id, c.r.session, c.r.agent = pickColumn(rc, "id", "run_id"), pickColumn(rc, "session_id", "session"), pickColumn(rc, "agent", "agent_id")
	c.r.status, c.r.model, c.r.start = pickColumn(rc, "status", "state"), pickColumn(rc, "model", "model_id"), pickColumn(rc, "started_at", "created_at")
	c.r.end, c.r.in = pickColumn(rc, "ended_at", "finished_at", "completed_at"), pickColumn(rc, "input_tokens", "tokens_in", "prompt_tokens")
	c.r.out, c.r.cost = pickColumn(rc, "output_tokens", "tokens_out", "completion_tokens"), pickColumn(rc, "cost_usd", "cost")
	c.e.id, c.e.run, c.e.session = pickColumn(ec, "id", "event_id"), pickColumn(ec, "run_id", "run"), pickColumn(ec, "session_id", "session")
	c.e.seq, c.e.typ = pickColumn(ec, "seq", "sequence", "idx"), pickColumn(ec, "type", "event_type", "kind")
	c.e.payload, c.e.when = pickColumn(ec, "payload", "data", "body", "content"), pickColumn(ec, "created_at", "ts", "timestamp", "time")
	return c, nil
}

// readRuns reads the runs by id, and by session in row order.
func (c *lcColumns) readRuns(ctx context.Context, db *sql.DB) (map[string]*lcRun, map[string][]*lcRun, error) {
	runRows, err := queryMaps(ctx, db, `SELECT * FROM runs ORDER BY rowid`)
	if err != nil {
		return nil, nil, fmt.Errorf("loomcycle: reading runs: %w", err)
	}
	runs := map[string]*lcRun{}
	runsOf := map[string][]*lcRun{}
	for i, m := range runRows {
		run := &lcRun{row: m, id: colString(m, c.r.id), start: colTime(m, c.r.start), ord: i}
		runs[run.id] = run
		runsOf[colString(m, c.r.session)] = append(runsOf[colString(m, c.r.session)], run)
	}
	return runs, runsOf, nil
}

// readEvents reads the events by session: an event names its session, or its run does.
func (c *lcColumns) readEvents(ctx context.Context, db *sql.DB, runs map[string]*lcRun, out Output) (map[string][]*lcEvent, error) {
	e := c.e
	evRows, err := queryMaps(ctx, db, `SELECT rowid AS annals_rowid, * FROM events ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("loomcycle: reading events: %w", err)
	}
	eventsOf := map[string][]*lcEvent{}
	for i, m := range evRows {
		ev := &lcEvent{row: m, ord: i, seq: colInt(m, e.seq), when: colTime(m, e.when), typ: colString(m, e.typ), event: colInt(m, "annals_rowid")}
		if e.id != "" && m[e.id] != nil {
			ev.event = colInt(m, e.id)
		}
		sid := colString(m, e.session)
		if run := runs[colString(m, e.run)]; run != nil {
			ev.run = run
			if sid == "" {
				sid = colString(run.row, c.r.session)
			}
		}
		if sid == "" {
			out.Warnf(0, "events row %d: belongs to no known run or session; skipped", i+1)
			continue
		}
		eventsOf[sid] = append(eventsOf[sid], ev)
	}
	return eventsOf, nil
}

// session emits one session: its chat, its events as entries, then its runs.
func (f loomcycle) session(c *lcColumns, sm map[string]any, sid string, srs []*lcRun, evs []*lcEvent, out Output) error {
	chatID := ChatID(f.Name(), sid)
	sort.SliceStable(srs, func(i, j int) bool {
		if !srs[i].start.Equal(srs[j].start) {
			return srs[i].start.Before(srs[j].start)
		}
		return srs[i].ord < srs[j].ord
	})
	chat := f.chat(c, sm, chatID, srs)
	if err := out.Emit(annals.CaptureOp{Chat: cleanChat(chat)}); err != nil {
		return err
	}
	// pinned, archived_at and summary travel with the chat: the store takes the human layer
	// of a new chat at creation, so a curated loomcycle history arrives curated.

	lcSortEvents(evs)
	open := map[string]*annals.Entry{}
	var entries []*annals.Entry
	last := chat.CreatedAt
	for _, ev := range evs {
		when := ev.when
		if when.IsZero() {
			when = last
		}
		last = when
		ent := f.event(ev, colString(ev.row, c.e.payload), when, open)
		if ent != nil {
			entries = append(entries, ent)
		}
	}
	if err := emitEntries(chatID, entries, out); err != nil {
		return err
	}
	r := c.r
	for _, run := range srs {
		m := run.row
		rr := &annals.Run{ID: f.runID(run.id), ChatID: chatID, Status: loomcycleStatus(colString(m, r.status)),
			Model: SafeID(colString(m, r.model), annals.MaxIDBytes), StartedAt: run.start,
			InputTokens: colInt(m, r.in), OutputTokens: colInt(m, r.out), CostUSD: colFloat(m, r.cost)}
		if end := colTime(m, r.end); !end.IsZero() && !end.Before(rr.StartedAt) {
			rr.EndedAt = &end
		}
		if err := out.Emit(annals.CaptureOp{Run: rr}); err != nil {
			return err
		}
	}
	return nil
}

// chat is a session's chat; srs are its runs, in start order.
func (f loomcycle) chat(c *lcColumns, sm map[string]any, chatID string, srs []*lcRun) *annals.Chat {
	s := c.s
	attrs := annals.Attributes{"source": f.Name()}
	// No model attribute: the runs carry their models, and an attribute taken from a run
	// could change when an earlier run is read later, which would conflict.
	agent := colString(sm, s.agent)
	if agent == "" && len(srs) > 0 {
		agent = colString(srs[0].row, c.r.agent)
	}
	chat := &annals.Chat{
		ID: chatID, TenantID: SafeID(colString(sm, s.tenant), annals.MaxIDBytes), UserID: SafeID(colString(sm, s.user), annals.MaxIDBytes),
		AgentID: SafeID(agent, annals.MaxIDBytes), Attributes: attrs, CreatedAt: colTime(sm, s.created),
		Title: ValidText(colString(sm, s.title)), Description: ValidText(colString(sm, s.descr)), Tags: loomcycleTags(colString(sm, s.tags)),
		Pinned: colBool(sm, s.pinned), Summary: ValidText(colString(sm, s.summary)),
	}
	if chat.CreatedAt.IsZero() && len(srs) > 0 {
		chat.CreatedAt = srs[0].start
	}
	if a := colTime(sm, s.archived); !a.IsZero() {
		chat.ArchivedAt = &a
	} else if s.archived == "archived" && colBool(sm, s.archived) {
		now := colTime(sm, s.updated)
		chat.ArchivedAt = &now
	}
	if t := colTime(sm, s.summaryAt); !t.IsZero() && chat.Summary != "" {
		chat.SummaryUpdatedAt = &t
	}
	return chat
}

// lcSortEvents orders a session's events: by their run's start (run order on a tie), then by
// seq, then by row; an event without a run keeps its row order.
func lcSortEvents(evs []*lcEvent) {
	sort.SliceStable(evs, func(i, j int) bool {
		ri, rj := evs[i].run, evs[j].run
		if ri != rj {
			switch {
			case ri == nil || rj == nil:
				return evs[i].ord < evs[j].ord
			case !ri.start.Equal(rj.start):
				return ri.start.Before(rj.start)
			default:
				return ri.ord < rj.ord
			}
		}
		if evs[i].seq != evs[j].seq {
			return evs[i].seq < evs[j].seq
		}
		return evs[i].ord < evs[j].ord
	})
}

func (f loomcycle) runID(id string) string { return SafeID(f.Name()+":"+id, annals.MaxIDBytes) }

// loomcycleTags reads the tags column: a JSON array, or a comma-separated list.
func loomcycleTags(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	var tags []string
	if strings.HasPrefix(s, "[") {
		if json.Unmarshal([]byte(s), &tags) != nil {
			return nil
		}
	} else {
		tags = strings.Split(s, ",")
	}
	var out []string
	for _, t := range tags {
		t = strings.TrimSpace(ValidText(t))
		if t == "" || strings.ContainsAny(t, "\r\n") || len(t) > annals.MaxTagBytes {
			continue
		}
		out = append(out, t)
		if len(out) == annals.MaxTags {
			break
		}
	}
	return out
}

// loomcycleStatus maps a run status; loomcycle's own names are annals's, other spellings are
// folded onto them, and an unknown one counts as completed rather than failing the run.
func loomcycleStatus(s string) annals.RunStatus {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "running", "queued", "pending", "started", "in_progress":
		return annals.StatusRunning
	case "awaiting_input", "waiting", "parked":
		return annals.StatusAwaitingInput
	case "failed", "error", "errored":
		return annals.StatusFailed
	case "cancelled", "canceled", "aborted", "interrupted":
		return annals.StatusCancelled
	}
	return annals.StatusCompleted
}

// event maps one loomcycle event. A tool result lands on its call (returning nil).
func (f loomcycle) event(ev *lcEvent, payload string, when time.Time, open map[string]*annals.Entry) *annals.Entry {
	id := fmt.Sprintf("ev%d", ev.event)
	e := &annals.Entry{ID: id, Time: when, SourceIDs: []string{id}}
	if ev.run != nil {
		e.RunID = f.runID(ev.run.id)
	}
	p, err := decodeObject([]byte(payload))
	if err != nil && strings.TrimSpace(payload) != "" {
		if json.Valid([]byte(payload)) {
			// A JSON string or array: keep it as text.
			p = jsonObject{"text": json.RawMessage(mustJSON(textOf(json.RawMessage(payload))))}
		} else {
			p = jsonObject{"text": json.RawMessage(mustJSON(payload))}
		}
	}
	typ := strings.ToLower(ev.typ)
	text := ValidText(firstNonEmpty(p.str("text"), p.str("content"), p.str("message"), p.str("delta")))
	role := strings.ToLower(p.str("role"))
	known := []string{"text", "content", "message", "role"}
	switch {
	case typ == "tool_result" || typ == "tool.result" || typ == "tool_call_result" || typ == "tool_output":
		return lcToolResult(e, p, text, open)
	case typ == "tool_call" || typ == "tool.call" || typ == "tool_use" || typ == "tool_call_start":
		e.Kind = annals.KindTool
		args := firstRaw(p, "arguments", "input", "args")
		e.Tool = &annals.ToolCall{Name: copilotToolName(firstNonEmpty(p.str("name"), p.str("tool"), p.str("tool_name"))),
			CallID: SafeID(firstNonEmpty(p.str("id"), p.str("call_id"), p.str("tool_call_id")), annals.MaxIDBytes), Arguments: copilotArgs(args)}
		e.Metadata = safeMeta(map[string]any{"payload": extras(p, "name", "tool", "tool_name", "id", "call_id", "tool_call_id", "arguments", "input", "args")})
		if e.Tool.CallID != "" {
			open[e.Tool.CallID] = e
		}
		return e
	case strings.Contains(typ, "reasoning") || strings.Contains(typ, "thinking"):
		e.Kind = annals.KindAssistant
		e.Reasoning = ValidText(firstNonEmpty(text, p.str("reasoning"), p.str("thinking")))
		_, opaque := scrubOpaque(json.RawMessage(payload))
		e.Metadata = safeMeta(map[string]any{"encrypted_reasoning": boolOrNil(opaque), "payload": extras(p, append(known, "reasoning", "thinking")...)})
		return e
	case strings.Contains(typ, "compact") || typ == "summary":
		e.Kind = annals.KindSystem
		e.Text = ValidText(firstNonEmpty(p.str("summary"), text))
		e.Metadata = safeMeta(map[string]any{"compaction": true, "type": ev.typ, "payload": extras(p, append(known, "summary")...)})
		return e
	case typ == "user_message" || typ == "user" || typ == "input" || typ == "prompt" || (typ == "message" && role == "user"):
		e.Kind = annals.KindUser
	case typ == "assistant_message" || typ == "assistant" || typ == "text" || typ == "output" || typ == "response" || (typ == "message" && (role == "assistant" || role == "")):
		e.Kind = annals.KindAssistant
		if r := p.str("reasoning"); r != "" {
			e.Reasoning = ValidText(r)
			known = append(known, "reasoning")
		}
	case typ == "system" || typ == "system_message" || (typ == "message" && role == "system"):
		e.Kind = annals.KindSystem
	default:
		e.Kind = annals.KindEvent
		e.Channel = "loomcycle/" + sanitizeChannel(ev.typ)
	}
	e.Text = text
	if tk := p.obj("usage"); tk != nil && e.Kind == annals.KindAssistant && ev.run == nil {
		// Usage only when the event has no run: a run carries its own totals.
		e.InputTokens, e.OutputTokens = int64(tk.num("input_tokens")), int64(tk.num("output_tokens"))
	}
	e.Metadata = safeMeta(map[string]any{"payload": extras(p, known...)})
	return e
}

// lcToolResult fills the call in open that a tool result answers and returns nil; otherwise
// it returns e as an orphan result.
func lcToolResult(e *annals.Entry, p jsonObject, text string, open map[string]*annals.Entry) *annals.Entry {
	callID := firstNonEmpty(p.str("tool_call_id"), p.str("call_id"), p.str("tool_use_id"), p.str("id"))
	res := firstNonEmpty(p.str("output"), p.str("result"), text)
	if res == "" {
		res = textOf(firstRaw(p, "output", "result", "content"))
	}
	outcome := annals.OutcomeSucceeded
	switch {
	case p.boolean("is_error") || p.str("error") != "" || strings.EqualFold(p.str("status"), "error") || strings.EqualFold(p.str("status"), "failed"):
		outcome = annals.OutcomeFailed
	case strings.EqualFold(p.str("status"), "blocked") || strings.EqualFold(p.str("status"), "denied"):
		outcome = annals.OutcomeBlocked
	case strings.EqualFold(p.str("status"), "cancelled") || strings.EqualFold(p.str("status"), "canceled"):
		outcome = annals.OutcomeCancelled
	}
	if res == "" {
		res = p.str("error")
	}
	res = Truncated(ValidText(res), annals.MaxEntryBytes/4)
	if call := open[callID]; callID != "" && call != nil {
		call.Tool.Result, call.Tool.Outcome = res, outcome
		delete(open, callID)
		return nil
	}
	e.Kind = annals.KindTool
	e.Tool = &annals.ToolCall{Name: copilotToolName(firstNonEmpty(p.str("name"), p.str("tool"), p.str("tool_name"))), CallID: SafeID(callID, annals.MaxIDBytes), Result: res, Outcome: outcome}
	e.Metadata = safeMeta(map[string]any{"orphan_result": true, "payload": extras(p, "tool_call_id", "call_id", "tool_use_id", "id", "output", "result", "content", "text", "is_error", "status", "name", "tool", "tool_name")})
	return e
}

func firstRaw(o jsonObject, keys ...string) json.RawMessage {
	for _, k := range keys {
		if r := o.raw(k); r != nil {
			return r
		}
	}
	return nil
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
