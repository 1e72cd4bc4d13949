// Package loomcycle reads the histories of loomcycle (SQLite or PostgreSQL) for annals import
// (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default locations,
// read), listed in importer.Formats.
package loomcycle

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Loomcycle imports a loomcycle runtime's database: sessions with their human layer (migration
// 0057: title, description, tags, pinned, archived_at, summary), the runs of each session, and
// the events each run recorded. It reads loomcycle's own schema, on SQLite (a file) or on
// PostgreSQL (a postgres:// URL, see ServerParser), and still accepts the alternative column
// names of the schema it was first written against (docs/IMPORT.md):
//
//	sessions(id, tenant_id, agent, user_id, created_at, title, description, tags, pinned,
//	         archived_at, summary, summary_updated_at)
//	runs(id, session_id, status, started_at, completed_at, input_tokens, output_tokens,
//	     model, cost, ...)
//	events(seq, session_id, run_id, ts, type, payload)
//
// A session becomes a chat that keeps its tenant, user and agent (loomcycle is multi-tenant,
// and the owner boundary must survive the move), its title, description and tags. A run
// becomes a run; its events become entries in seq order (loomcycle_read.go reads them a
// session at a time), mapped by loomcycle_events.go.
type Loomcycle struct{}

func (Loomcycle) Name() string { return "loomcycle" }

func (Loomcycle) Detect(path string, head []byte) bool {
	return reader.DetectSQLiteTables(path, head, "sessions", "runs", "events")
}

func (Loomcycle) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".loomcycle", "loomcycle.db"), filepath.Join(home, ".local", "share", "loomcycle", "loomcycle.db")}
}

// AcceptsServer takes a PostgreSQL connection URL: loomcycle's other store.
func (Loomcycle) AcceptsServer(dsn string) bool {
	u, err := url.Parse(dsn)
	return err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql")
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

func (f Loomcycle) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	q, d, done, err := lcOpen(ctx, src)
	if err != nil {
		return fmt.Errorf("loomcycle: %w", err)
	}
	defer done()
	c, err := lcReadColumns(ctx, q, d)
	if err != nil {
		return err
	}
	s, r, e := c.s, c.r, c.e
	if s.id == "" || r.id == "" || r.session == "" || e.typ == "" || (e.run == "" && e.session == "") {
		return annals.Errorf(annals.EINVALID, "loomcycle: %s: not a loomcycle database: sessions(id), runs(id, session_id) and events(run_id, type) are required (see docs/IMPORT.md)", src.Path)
	}
	sessions, err := lcReadTable(ctx, q, d, c, "sessions")
	if err != nil {
		return err
	}
	runs, runsOf, err := c.readRuns(ctx, q, d)
	if err != nil {
		return err
	}
	byID := map[string]map[string]any{}
	var order []string
	for _, sm := range sessions {
		if sid := reader.ColString(sm, s.id); sid != "" && byID[sid] == nil {
			byID[sid] = sm
			order = append(order, sid)
		}
	}
	emitted := map[string]bool{}
	err = c.eachSession(ctx, q, d, runs, order, out, func(sid string, evs []*lcEvent) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		sm := byID[sid]
		if sm == nil {
			out.Warnf(0, "%d events of session %s: no such session in the sessions table; skipped", len(evs), sid)
			return nil
		}
		emitted[sid] = true
		return f.session(c, sm, sid, runsOf[sid], evs, out)
	})
	if err != nil {
		return err
	}
	for _, sid := range order {
		if !emitted[sid] {
			if err := f.session(c, byID[sid], sid, runsOf[sid], nil, out); err != nil {
				return err
			}
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

func lcReadColumns(ctx context.Context, q lcQuerier, d lcDialect) (*lcColumns, error) {
	var cols [3]map[string]bool
	for i, table := range []string{"sessions", "runs", "events"} {
		m, err := reader.QueryColumns(ctx, q, d.columns, table)
		if err != nil {
			return nil, fmt.Errorf("loomcycle: %w", err)
		}
		cols[i] = m
	}
	sc, rc, ec := cols[0], cols[1], cols[2]
	c := &lcColumns{}
	c.s.id, c.s.tenant, c.s.user = reader.PickColumn(sc, "id", "session_id"), reader.PickColumn(sc, "tenant_id", "tenant"), reader.PickColumn(sc, "user_id", "user")
	c.s.agent, c.s.created, c.s.updated = reader.PickColumn(sc, "agent", "agent_id", "agent_name"), reader.PickColumn(sc, "created_at", "started_at"), reader.PickColumn(sc, "updated_at", "last_activity")
	c.s.title, c.s.descr, c.s.tags, c.s.pinned = reader.PickColumn(sc, "title", "name"), reader.PickColumn(sc, "description"), reader.PickColumn(sc, "tags"), reader.PickColumn(sc, "pinned")
	c.s.archived, c.s.summary, c.s.summaryAt = reader.PickColumn(sc, "archived_at", "archived"), reader.PickColumn(sc, "summary"), reader.PickColumn(sc, "summary_updated_at")
	c.r.id, c.r.session, c.r.agent = reader.PickColumn(rc, "id", "run_id"), reader.PickColumn(rc, "session_id", "session"), reader.PickColumn(rc, "agent", "agent_id")
	c.r.status, c.r.model, c.r.start = reader.PickColumn(rc, "status", "state"), reader.PickColumn(rc, "model", "model_id"), reader.PickColumn(rc, "started_at", "created_at")
	c.r.end, c.r.in = reader.PickColumn(rc, "completed_at", "ended_at", "finished_at"), reader.PickColumn(rc, "input_tokens", "tokens_in", "prompt_tokens")
	c.r.out, c.r.cost = reader.PickColumn(rc, "output_tokens", "tokens_out", "completion_tokens"), reader.PickColumn(rc, "cost", "cost_usd")
	// loomcycle's events are keyed by seq; the first schema had an id and a per-run seq.
	c.e.id, c.e.run, c.e.session = reader.PickColumn(ec, "id", "event_id", "seq"), reader.PickColumn(ec, "run_id", "run"), reader.PickColumn(ec, "session_id", "session")
	c.e.seq, c.e.typ = reader.PickColumn(ec, "seq", "sequence", "idx"), reader.PickColumn(ec, "type", "event_type", "kind")
	c.e.payload, c.e.when = reader.PickColumn(ec, "payload", "data", "body", "content"), reader.PickColumn(ec, "ts", "created_at", "timestamp", "time")
	return c, nil
}

// readRuns reads the runs by id, and by session in row order.
func (c *lcColumns) readRuns(ctx context.Context, q lcQuerier, d lcDialect) (map[string]*lcRun, map[string][]*lcRun, error) {
	runRows, err := lcReadTable(ctx, q, d, c, "runs")
	if err != nil {
		return nil, nil, err
	}
	runs := map[string]*lcRun{}
	runsOf := map[string][]*lcRun{}
	for i, m := range runRows {
		run := &lcRun{row: m, id: reader.ColString(m, c.r.id), start: lcTime(m, c.r.start), ord: i}
		runs[run.id] = run
		runsOf[reader.ColString(m, c.r.session)] = append(runsOf[reader.ColString(m, c.r.session)], run)
	}
	return runs, runsOf, nil
}

// session emits one session: its chat, its events as entries, then its runs.
func (f Loomcycle) session(c *lcColumns, sm map[string]any, sid string, srs []*lcRun, evs []*lcEvent, out reader.Output) error {
	chatID := reader.ChatID(f.Name(), sid)
	sort.SliceStable(srs, func(i, j int) bool {
		if !srs[i].start.Equal(srs[j].start) {
			return srs[i].start.Before(srs[j].start)
		}
		return srs[i].ord < srs[j].ord
	})
	chat := f.chat(c, sm, chatID, srs)
	// pinned, archived_at and summary travel with the chat: the store takes the human layer
	// of a new chat at creation, so a curated loomcycle history arrives curated.
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	lcSortEvents(evs, c.e.id == "seq")
	b := newLCBuilder(f)
	last := chat.CreatedAt
	for _, ev := range evs {
		if ev.when.IsZero() {
			ev.when = last
		}
		last = ev.when
		b.add(ev, reader.ColString(ev.row, c.e.payload))
	}
	if err := reader.EmitEntries(chatID, b.entries, out); err != nil {
		return err
	}
	if m, ok := out.(reader.ProvisionalMarker); ok {
		if e := b.provisional(f.liveRuns(c, srs)); e != nil {
			m.MarkProvisional(chatID, e.ID)
		}
	}
	for _, run := range srs {
		if err := out.Emit(annals.CaptureOp{Run: f.run(c, run, chatID)}); err != nil {
			return err
		}
	}
	return nil
}

// liveRuns are the annals ids of the runs still going (running, or awaiting input): what they
// recorded so far may still change.
func (f Loomcycle) liveRuns(c *lcColumns, srs []*lcRun) map[string]bool {
	live := map[string]bool{}
	for _, run := range srs {
		switch loomcycleStatus(reader.ColString(run.row, c.r.status)) {
		case annals.StatusRunning, annals.StatusAwaitingInput:
			live[f.runID(run.id)] = true
		}
	}
	return live
}

// run maps a runs row.
func (f Loomcycle) run(c *lcColumns, run *lcRun, chatID string) *annals.Run {
	m, r := run.row, c.r
	rr := &annals.Run{ID: f.runID(run.id), ChatID: chatID, Status: loomcycleStatus(reader.ColString(m, r.status)),
		Model: reader.SafeID(reader.ColString(m, r.model), annals.MaxIDBytes), StartedAt: run.start,
		InputTokens: reader.ColInt(m, r.in), OutputTokens: reader.ColInt(m, r.out), CostUSD: reader.ColFloat(m, r.cost)}
	if end := lcTime(m, r.end); !end.IsZero() && !end.Before(rr.StartedAt) {
		rr.EndedAt = &end
	}
	return rr
}

// chat is a session's chat; srs are its runs, in start order.
func (f Loomcycle) chat(c *lcColumns, sm map[string]any, chatID string, srs []*lcRun) *annals.Chat {
	s := c.s
	attrs := annals.Attributes{"source": f.Name()}
	// No model attribute: the runs carry their models, and an attribute taken from a run
	// could change when an earlier run is read later, which would conflict.
	agent := reader.ColString(sm, s.agent)
	if agent == "" && len(srs) > 0 {
		agent = reader.ColString(srs[0].row, c.r.agent)
	}
	chat := &annals.Chat{
		ID: chatID, TenantID: reader.SafeID(reader.ColString(sm, s.tenant), annals.MaxIDBytes), UserID: reader.SafeID(reader.ColString(sm, s.user), annals.MaxIDBytes),
		AgentID: reader.SafeID(agent, annals.MaxIDBytes), Attributes: attrs, CreatedAt: lcTime(sm, s.created),
		Title: reader.ValidText(reader.ColString(sm, s.title)), Description: reader.ValidText(reader.ColString(sm, s.descr)), Tags: loomcycleTags(reader.ColString(sm, s.tags)),
		Pinned: reader.ColBool(sm, s.pinned), Summary: reader.ValidText(reader.ColString(sm, s.summary)),
	}
	if chat.CreatedAt.IsZero() && len(srs) > 0 {
		chat.CreatedAt = srs[0].start
	}
	if a := lcTime(sm, s.archived); !a.IsZero() {
		chat.ArchivedAt = &a
	} else if s.archived == "archived" && reader.ColBool(sm, s.archived) {
		now := lcTime(sm, s.updated)
		chat.ArchivedAt = &now
	}
	if t := lcTime(sm, s.summaryAt); !t.IsZero() && chat.Summary != "" {
		chat.SummaryUpdatedAt = &t
	}
	return chat
}

// lcSortEvents orders a session's events. Where seq keys the events table (loomcycle's own
// schema), it is the order they were appended in across the runs of the session, the order
// loomcycle's transcript reads them in: seq alone orders them. A per-run seq (the first schema)
// orders events by their run's start (run order on a tie), then by seq, then by row; an event
// without a run keeps its row order.
func lcSortEvents(evs []*lcEvent, globalSeq bool) {
	if globalSeq {
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].seq < evs[j].seq })
		return
	}
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

func (f Loomcycle) runID(id string) string { return reader.SafeID(f.Name()+":"+id, annals.MaxIDBytes) }

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
		t = strings.TrimSpace(reader.ValidText(t))
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
	case "awaiting_input", "waiting", "parked", "paused":
		return annals.StatusAwaitingInput
	case "failed", "error", "errored":
		return annals.StatusFailed
	case "cancelled", "canceled", "aborted", "interrupted":
		return annals.StatusCancelled
	}
	return annals.StatusCompleted
}
