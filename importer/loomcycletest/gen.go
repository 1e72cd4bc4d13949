package loomcycletest

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver GenerateSQLite writes with
)

// Options sizes a generated database.
type Options struct {
	// Sessions is the number of sessions (chats); Turns the runs (user turns) of each.
	Sessions int
	Turns    int
	// Seed makes a different but equally deterministic database.
	Seed int64
	// Big adds, to the first session only, payloads over the importer's limits: a tool
	// result of 3 MiB and a prompt snapshot of 5 MiB.
	Big bool
}

// T0 is the time of the first row, in nanoseconds: a stamp whose last digits a float64 loses.
const T0 = int64(1_781_234_567_123_456_789)

// Call is one tool call as written: its name, input, and the result that answers it.
type Call struct {
	Session, Name, Input, Result string
	IsError, Answered            bool
}

// Stats is what was written, for tests to assert against.
type Stats struct {
	Sessions, Runs, Events int
	// ByType counts the events of each type.
	ByType map[string]int
	// UserTexts are the user turns of each session (its user_input segments' user text and its
	// steer messages), in order, by session id.
	UserTexts map[string][]string
	// Calls are the tool calls by call id; Orphans the tool results no call precedes.
	Calls   map[string]*Call
	Orphans int
}

// GenerateSQLite writes a new SQLite database of loomcycle's schema at path and returns it
// open, with what it holds.
func GenerateSQLite(path string, o Options) (*sql.DB, *Stats, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)")
	if err != nil {
		return nil, nil, err
	}
	st, err := Write(context.Background(), db, SQLite, o)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, st, nil
}

// Write creates loomcycle's tables in db (in its current schema, for Postgres) and fills them.
func Write(ctx context.Context, db *sql.DB, d Dialect, o Options) (*Stats, error) {
	for _, q := range Schema(d) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("loomcycletest: %w", err)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	g := &gen{ctx: ctx, tx: tx, d: d, o: o, r: rand.New(rand.NewSource(o.Seed + 1)), now: T0,
		st: &Stats{ByType: map[string]int{}, UserTexts: map[string][]string{}, Calls: map[string]*Call{}}}
	if err := g.all(); err != nil {
		tx.Rollback()
		return nil, err
	}
	if d == Postgres {
		// The rows carry their seqs; the BIGSERIAL's sequence moves on past them, so the
		// runtime (or a test acting as it) appends the next event where loomcycle would.
		if _, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('events', 'seq'), (SELECT COALESCE(MAX(seq), 0) + 1 FROM events), false)`); err != nil {
			tx.Rollback()
			return nil, fmt.Errorf("loomcycletest: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return g.st, nil
}

type gen struct {
	ctx  context.Context
	tx   *sql.Tx
	d    Dialect
	o    Options
	r    *rand.Rand
	now  int64
	seq  int64
	rows []any // buffered events rows, six values each
	st   *Stats
	err  error
}

// all writes the sessions, then their runs turn by turn, round robin, so that the events of
// different sessions interleave in seq as those of a busy runtime do.
func (g *gen) all() error {
	for s := 0; s < g.o.Sessions; s++ {
		g.session(s)
	}
	for t := 0; t < g.o.Turns && g.err == nil; t++ {
		for s := 0; s < g.o.Sessions && g.err == nil; s++ {
			g.run(s, t)
		}
	}
	g.flush()
	return g.err
}

// tick advances the clock: mostly 1 ms plus a nanosecond, with boundary instants (a whole
// second, one nanosecond past it, one before the next, and repeats of the same instant).
func (g *gen) tick() int64 {
	switch g.r.Intn(12) {
	case 0: // the same instant again
	case 1:
		g.now = (g.now/1e9 + 1) * 1e9
	case 2:
		g.now = (g.now/1e9+1)*1e9 + 1
	case 3:
		g.now = (g.now/1e9+1)*1e9 + 999_999_999
	default:
		g.now += 1_000_001
	}
	return g.now
}

// stamp is a time value as d stores it in a time column.
func (g *gen) stamp(ns int64) any {
	if g.d == Postgres {
		return time.Unix(0, ns).UTC()
	}
	return ns
}

func (g *gen) exec(q string, args ...any) {
	if g.err != nil {
		return
	}
	if g.d == Postgres {
		q = rebind(q)
	}
	_, g.err = g.tx.ExecContext(g.ctx, q, args...)
}

// rebind turns ? placeholders into PostgreSQL's $n.
func rebind(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// event buffers one events row; rows are inserted 500 at a time.
func (g *gen) event(sid, runID, typ string, payload []byte) {
	g.seq++
	g.st.Events++
	g.st.ByType[typ]++
	g.rows = append(g.rows, g.seq, sid, runID, g.stamp(g.tick()), typ, payload)
	if len(g.rows) >= 500*6 {
		g.flush()
	}
}

func (g *gen) flush() {
	if len(g.rows) == 0 {
		return
	}
	n := len(g.rows) / 6
	q := "INSERT INTO events (seq, session_id, run_id, ts, type, payload) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?), ", n), ", ")
	g.exec(q, g.rows...)
	g.rows = g.rows[:0]
}
