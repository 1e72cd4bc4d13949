package loomcycle

import (
	"context"
	"fmt"
	"github.com/annals-dev/annals/importer/reader"
	"sort"
)

// Reading a loomcycle database's events, a session at a time where the schema allows it.

// streams reports whether the events can be read one session at a time, in order: loomcycle's
// own schema names each event's session (NOT NULL) and keys events by seq, with an index on
// (session_id, seq). Then a deployment of any size is read holding one session's events in
// memory, not all of them. The first schema named only the run, so it is read whole.
func (c *lcColumns) streams() bool { return c.e.session != "" && c.e.id == "seq" }

// eachSession calls fn with each session's events: in session id order when the events
// stream, else in the order of the sessions table (order), then the sessions only events name,
// sorted. An event that belongs to no session is reported and skipped.
func (c *lcColumns) eachSession(ctx context.Context, q lcQuerier, d lcDialect, runs map[string]*lcRun, order []string, out reader.Output, fn func(string, []*lcEvent) error) error {
	if !c.streams() {
		return c.eachSessionWhole(ctx, q, d, runs, order, out, fn)
	}
	var cur string
	var evs []*lcEvent
	i := 0
	// The names are picked columns, never text from the database.
	err := lcEachRow(ctx, q, "SELECT * FROM events ORDER BY "+c.e.session+", "+c.e.id, func(m map[string]any) error {
		ev := c.event(m, i, runs)
		i++
		sid := reader.ColString(m, c.e.session)
		if sid == "" {
			out.Warnf(0, "events row seq %d: names no session; skipped", ev.event)
			return nil
		}
		if sid != cur && len(evs) > 0 {
			if err := fn(cur, evs); err != nil {
				return err
			}
			evs = nil
		}
		cur = sid
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		return fmt.Errorf("loomcycle: reading events: %w", err)
	}
	if len(evs) > 0 {
		return fn(cur, evs)
	}
	return nil
}

// eachSessionWhole reads every event, groups them by session (an event names its session, or
// its run does), and calls fn per session.
func (c *lcColumns) eachSessionWhole(ctx context.Context, q lcQuerier, d lcDialect, runs map[string]*lcRun, order []string, out reader.Output, fn func(string, []*lcEvent) error) error {
	evRows, err := lcReadTable(ctx, q, d, c, "events")
	if err != nil {
		return err
	}
	eventsOf := map[string][]*lcEvent{}
	for i, m := range evRows {
		ev := c.event(m, i, runs)
		sid := reader.ColString(m, c.e.session)
		if sid == "" && ev.run != nil {
			sid = reader.ColString(ev.run.row, c.r.session)
		}
		if sid == "" {
			out.Warnf(0, "events row %d (id %d): belongs to no known run or session; skipped", i+1, ev.event)
			continue
		}
		eventsOf[sid] = append(eventsOf[sid], ev)
	}
	known := map[string]bool{}
	for _, sid := range order {
		known[sid] = true
		if evs := eventsOf[sid]; len(evs) > 0 {
			if err := fn(sid, evs); err != nil {
				return err
			}
		}
	}
	var others []string
	for sid := range eventsOf {
		if !known[sid] {
			others = append(others, sid)
		}
	}
	sort.Strings(others)
	for _, sid := range others {
		if err := fn(sid, eventsOf[sid]); err != nil {
			return err
		}
	}
	return nil
}

// event reads one events row; i is its position in the read.
func (c *lcColumns) event(m map[string]any, i int, runs map[string]*lcRun) *lcEvent {
	e := c.e
	ev := &lcEvent{row: m, ord: i, seq: reader.ColInt(m, e.seq), when: lcTime(m, e.when), typ: reader.ColString(m, e.typ), event: reader.ColInt(m, "annals_rowid")}
	if e.id != "" && m[e.id] != nil {
		ev.event = reader.ColInt(m, e.id)
	}
	ev.run = runs[reader.ColString(m, e.run)]
	return ev
}
