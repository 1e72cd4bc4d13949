// Package laniustest builds deterministic lanius databases of lanius's real schema (its
// db.rs: events and messages, the history view's two tables) for tests and benchmarks: agents,
// sessions, tool calls with call_id/fn_name/fn_arguments, ledger events with payloads of every
// kind, boundary timestamps and contents over the view's 16 KiB cap. Nothing is fetched; the
// same Options always give the same file.
package laniustest

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver the generated file is written with
)

// Schema is lanius's own DDL for the two tables the history view reads (lanius src/db.rs).
var Schema = []string{
	`CREATE TABLE events (
		id INTEGER PRIMARY KEY, type TEXT NOT NULL, cause_id INTEGER REFERENCES events(id),
		correlation_id TEXT, payload TEXT, state TEXT NOT NULL DEFAULT 'pending',
		emitted_by_dispatch INTEGER, priority INTEGER NOT NULL DEFAULT 0, deadline TEXT,
		default_action TEXT, idempotency_key TEXT UNIQUE, announced INTEGER NOT NULL DEFAULT 1,
		created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), finished_at TEXT)`,
	`CREATE INDEX idx_events_correlation ON events(correlation_id)`,
	`CREATE TABLE messages (
		id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,
		event_id INTEGER REFERENCES events(id),
		created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))`,
	`CREATE INDEX idx_messages_session ON messages(session_id, id)`,
}

// Options sizes a generated database.
type Options struct {
	// Sessions is the number of transcript sessions; Turns the user turns per session.
	Sessions int
	Turns    int
	// Seed makes a different but equally deterministic database.
	Seed int64
}

// Nouns are the agent nouns sessions are linked to; a session of no noun is an orphan.
var Nouns = []string{"main", "ops", "research"}

// T0 is the time of the first event.
var T0 = time.Date(2026, 6, 12, 10, 0, 0, 0, time.UTC)

// Stamp writes a time the way lanius stores it: strftime('%Y-%m-%dT%H:%M:%fZ'), milliseconds.
func Stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

var words = []string{"reactor", "pressure", "pump", "valve", "sigma", "gauge", "coolant", "turbine", "sensor", "relay"}

type gen struct {
	tx      *sql.Tx
	r       *rand.Rand
	now     time.Time
	eventID int64
	msgID   int64
	calls   int
}

func (g *gen) tick() string {
	// 50 ms steps with a few boundary instants: a whole second (.000Z), a .950 (never .95) and
	// runs of equal instants.
	switch g.r.Intn(10) {
	case 0:
	case 1:
		g.now = g.now.Truncate(time.Second).Add(time.Second)
	default:
		g.now = g.now.Add(50 * time.Millisecond)
	}
	return Stamp(g.now)
}

func (g *gen) event(typ, corr string, cause *int64, payload any, state string) int64 {
	g.eventID++
	_, err := g.tx.Exec(`INSERT INTO events (id, type, cause_id, correlation_id, payload, state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		g.eventID, typ, cause, nullable(corr), payload, state, g.tick())
	must(err)
	return g.eventID
}

func (g *gen) message(session, role string, content any, eventID int64) {
	g.msgID++
	b, ok := content.(string)
	if !ok {
		j, err := json.Marshal(content)
		must(err)
		b = string(j)
	}
	_, err := g.tx.Exec(`INSERT INTO messages (id, session_id, role, content, event_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		g.msgID, session, role, b, eventID, Stamp(g.now))
	must(err)
}

func (g *gen) sentence(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[g.r.Intn(len(words))]
	}
	return strings.Join(ws, " ")
}

// Generate writes a database to path (which must not exist) and returns it open for reading.
func Generate(path string, o Options) (*sql.DB, error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, err
	}
	for _, s := range Schema {
		if _, err := db.Exec(s); err != nil {
			db.Close()
			return nil, fmt.Errorf("lanius schema: %w", err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		db.Close()
		return nil, err
	}
	g := &gen{tx: tx, r: rand.New(rand.NewSource(o.Seed + 1)), now: T0}
	if err := g.run(o); err != nil {
		_ = tx.Rollback()
		db.Close()
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func (g *gen) run(o Options) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("generating: %v", r)
		}
	}()
	g.ledgerOnly("boot")
	for s := 0; s < o.Sessions; s++ {
		g.session(s, o.Turns)
		if s%3 == 0 {
			g.ledgerOnly(fmt.Sprintf("cron-%d", s))
		}
	}
	return nil
}

// session writes one session: each turn a user message, an assistant message with tool calls,
// their tool results and a closing assistant message, all on one correlation id.
func (g *gen) session(s, turns int) {
	sid := fmt.Sprintf("s-%08x", uint32(s)*2654435761)
	noun := ""
	if s%5 != 4 { // every fifth session is an orphan: no in/agent/... event
		noun = Nouns[s%len(Nouns)]
	}
	in, out := "signal/webhook", "signal/reply"
	if noun != "" {
		in, out = "in/agent/"+noun+"/"+sid, "out/agent/"+noun
	}
	for t := 0; t < turns; t++ {
		corr := fmt.Sprintf("corr-%d-%d", s, t)
		user := g.event(in, corr, nil, fmt.Sprintf(`{"text":%q}`, g.sentence(6)), "done")
		switch {
		case t == 0 && s%7 == 3:
			g.message(sid, "user", `"restart the pump"`, user) // a bare JSON string
		case t == 0 && s%7 == 5:
			g.message(sid, "user", `[{"type":"text","text":"first block"},{"type":"text","text":"second block"}]`, user)
		default:
			g.message(sid, "user", map[string]any{"role": "user", "text": g.sentence(8)}, user)
		}
		reply := g.event(out, corr, &user, `{}`, "done")
		n := 1 + g.r.Intn(2)
		calls := make([]map[string]any, n)
		for i := range calls {
			g.calls++
			calls[i] = map[string]any{"call_id": fmt.Sprintf("call_%d", g.calls), "fn_name": "read_sensor",
				"fn_arguments": map[string]any{"sensor": words[g.r.Intn(len(words))], "unit": "bar"}}
		}
		a := map[string]any{"role": "assistant", "tool_calls": calls}
		if g.r.Intn(2) == 0 {
			a["text"] = "checking " + g.sentence(3)
		}
		if g.r.Intn(3) == 0 {
			a["reasoning"] = "need " + g.sentence(2)
		}
		g.message(sid, "assistant", a, reply)
		for _, c := range calls {
			res := g.event("tool/read_sensor", corr, &reply, `{}`, "done")
			content := "value=" + g.sentence(2)
			if g.r.Intn(50) == 0 {
				content = strings.Repeat("x", 20000) // over the 16 KiB cap
			}
			g.message(sid, "tool", map[string]any{"role": "tool", "tool_call_id": c["call_id"], "name": "read_sensor", "content": content}, res)
		}
		g.message(sid, "assistant", map[string]any{"role": "assistant", "text": "done: " + g.sentence(5)}, reply)
		g.ledgerOnly(corr)
	}
}

// ledgerOnly writes events no message points at, with payloads of every kind: a JSON object, a
// raw string that is not JSON, NULL, a number, and one over the 16 KiB cap.
func (g *gen) ledgerOnly(corr string) {
	payloads := []any{`{"beat":1}`, "not json at all", nil, "42", `{"big":"` + strings.Repeat("y", 17000) + `"}`}
	p := payloads[g.r.Intn(len(payloads))]
	var cause *int64
	if g.eventID > 0 {
		c := g.eventID
		cause = &c
	}
	g.event("bus/heartbeat", corr, cause, p, []string{"pending", "done", "failed", "waiting_on_human"}[g.r.Intn(4)])
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
