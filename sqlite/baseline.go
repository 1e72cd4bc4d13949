package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// This file is the benchmark hook: the one place outside the Store that writes or reads this
// package's tables directly. It exists only so that the benchmark harness (package bench, which
// cmd/ hands these functions as bench.SQLiteHooks, so bench imports no store) can
// measure the library's overhead against the least any program must do to fill the same schema,
// and check that both wrote the same data, without the harness knowing a table name. Nothing
// else should use it: it skips every check the Store makes.

// BaselineWriter is the raw baseline for capture: the minimum a program must do to write this
// schema. It inserts the rows of capture ops with plain prepared INSERTs, through the same
// driver and connection settings as the store's writer, into a schema created by the store's
// own migrations (FTS5 triggers included), one transaction per Apply. It keeps seq numbers,
// counters and run aggregates in memory and writes each touched chat's counters once per
// transaction. It skips what the Store adds on top: validation, idempotency checks (a repeated
// entry is inserted twice or fails), truncation, and aggregate recomputation in SQL.
type BaselineWriter struct {
	db      *sql.DB
	chats   map[string]*baselineChat
	entries int
	runs    int
}

// baselineChat and baselineRun are the writer's in-memory view of what it wrote, from which it
// sets the chat counters once per chat per transaction instead of recomputing them in SQL.
type baselineChat struct {
	pk, lastSeq, entries, inTok, outTok, lastActivity int64
	runs                                              map[string]*baselineRun
	dirty                                             bool
}

type baselineRun struct {
	order                int
	status, model        string
	started, ended       int64
	startedKnown, hasEnd bool
	inTok, outTok        int64
	cost                 float64
}

// NewBaselineWriter creates (or migrates) the database at path with Open, so the schema is the
// store's own, and opens one raw connection to it with the writer's settings: WAL, synchronous
// NORMAL, foreign keys, BEGIN IMMEDIATE. The baseline must pay for the same durability.
func NewBaselineWriter(ctx context.Context, path string) (*BaselineWriter, error) {
	s, err := Open(ctx, path, Options{})
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, fmt.Errorf("close after migrating %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn(path, Options{BusyTimeout: 5 * time.Second}, false))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return &BaselineWriter{db: db, chats: map[string]*baselineChat{}}, nil
}

// Entries is the number of entries written so far.
func (w *BaselineWriter) Entries() int { return w.entries }

// Close closes the connection. It does not checkpoint the WAL: the baseline stops where a
// program that only inserts would.
func (w *BaselineWriter) Close() error { return w.db.Close() }

const (
	baselineInsertChat = `INSERT INTO chats (id, tenant_id, user_id, agent_id, attributes, created_at, last_activity, title, title_fold, description, tags)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	baselineInsertTag   = `INSERT INTO chat_tags (chat_pk, tag) VALUES (?, ?)`
	baselineInsertAttr  = `INSERT INTO chat_attributes (chat_pk, key, value) VALUES (?, ?, ?)`
	baselineInsertIDKey = `INSERT INTO chat_id_keys (tenant_id, key, chat_pk) VALUES (?, ?, ?)`
	baselineInsertEntry = `INSERT INTO entries (chat_pk, id, seq, kind, run_id, source_ids, channel, correlation_id, time,
		text, reasoning, tool_name, tool_call_id, tool_args, tool_result, tool_outcome, input_tokens, output_tokens, metadata)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	baselineInsertSource = `INSERT INTO entry_sources (chat_pk, source_id, entry_pk, seq) VALUES (?, ?, ?, ?)`
	baselineUpsertRun    = `INSERT INTO runs (id, chat_pk, status, model, started_at, ended_at, input_tokens, output_tokens, cost_usd)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, model = excluded.model, started_at = excluded.started_at,
			ended_at = excluded.ended_at, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd`
	baselineUpdateChat = `UPDATE chats SET last_seq = ?, entry_count = ?, entry_input_tokens = ?, entry_output_tokens = ?,
		run_count = ?, run_input_tokens = ?, run_output_tokens = ?, cost_usd = ?, status = ?, last_activity = ? WHERE pk = ?`
)

// baselineExec runs one statement in the current transaction, preparing it on first use.
type baselineExec func(q string, args ...any) (sql.Result, error)

// Apply writes one batch of ops in one transaction. It accepts create-chat, append and run ops;
// a truncate op is an error, since the baseline has no rewind to compare.
func (w *BaselineWriter) Apply(ctx context.Context, ops []annals.CaptureOp) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("baseline: begin: %w", err)
	}
	defer tx.Rollback()
	stmts := map[string]*sql.Stmt{}
	defer func() {
		for _, s := range stmts {
			s.Close()
		}
	}()
	exec := func(q string, args ...any) (sql.Result, error) {
		s, ok := stmts[q]
		if !ok {
			if s, err = tx.PrepareContext(ctx, q); err != nil {
				return nil, err
			}
			stmts[q] = s
		}
		return s.ExecContext(ctx, args...)
	}
	for _, op := range ops {
		if err := w.op(exec, op); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}
	if err := w.flushCounters(exec); err != nil {
		return fmt.Errorf("baseline: chat counters: %w", err)
	}
	// The entry indexes and chat search documents are part of what a capture writes, as the
	// triggers are.
	if err := flushEntryIndex(ctx, tx); err != nil {
		return fmt.Errorf("baseline: entry index: %w", err)
	}
	if err := flushChatDocs(ctx, tx, math.MaxInt64); err != nil {
		return fmt.Errorf("baseline: chat documents: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("baseline: commit: %w", err)
	}
	return nil
}

func (w *BaselineWriter) op(exec baselineExec, op annals.CaptureOp) error {
	switch {
	case op.Chat != nil:
		return w.chat(exec, op.Chat)
	case op.Append != nil:
		c := w.chats[op.Append.ChatID]
		if c == nil {
			return fmt.Errorf("entry for unknown chat %q", op.Append.ChatID)
		}
		for _, e := range op.Append.Entries {
			if err := w.entry(exec, c, e); err != nil {
				return err
			}
		}
		return nil
	case op.Run != nil:
		return w.run(exec, op.Run)
	}
	return errors.New("the raw baseline does not replay truncate records")
}

// flushCounters writes the counters of every chat the transaction touched.
func (w *BaselineWriter) flushCounters(exec baselineExec) error {
	for _, c := range w.chats {
		if !c.dirty {
			continue
		}
		c.dirty = false
		var runIn, runOut int64
		var cost float64
		for _, run := range c.runs {
			runIn += run.inTok
			runOut += run.outTok
			cost += run.cost
		}
		if _, err := exec(baselineUpdateChat, c.lastSeq, c.entries, c.inTok, c.outTok, len(c.runs), runIn, runOut, cost,
			c.status(), c.lastActivity, c.pk); err != nil {
			return err
		}
	}
	return nil
}

// status is the chat status the store derives from its runs: running while any run is, else
// the status of the latest run (by start, then by arrival), else none.
func (c *baselineChat) status() string {
	var latest *baselineRun
	for _, run := range c.runs {
		if run.status == string(annals.StatusRunning) {
			return string(annals.StatusRunning)
		}
		if latest == nil || run.started > latest.started || (run.started == latest.started && run.order > latest.order) {
			latest = run
		}
	}
	if latest == nil {
		return ""
	}
	return latest.status
}

func (w *BaselineWriter) chat(exec baselineExec, c *annals.Chat) error {
	attrs := c.Attributes
	if attrs == nil {
		attrs = annals.Attributes{}
	}
	rawAttrs, err := json.Marshal(attrs)
	if err != nil {
		return err
	}
	created := c.CreatedAt.UnixNano()
	res, err := exec(baselineInsertChat, c.ID, c.TenantID, c.UserID, c.AgentID, string(rawAttrs), created, created,
		c.Title, strings.ToLower(c.Title), c.Description, strings.Join(c.Tags, "\n"))
	if err != nil {
		return err
	}
	pk, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for _, t := range c.Tags {
		if _, err := exec(baselineInsertTag, pk, t); err != nil {
			return err
		}
	}
	for k, v := range c.Attributes {
		if _, err := exec(baselineInsertAttr, pk, k, v); err != nil {
			return err
		}
	}
	for _, k := range storecore.ChatIDKeys(c.ID) {
		if _, err := exec(baselineInsertIDKey, c.TenantID, k, pk); err != nil {
			return err
		}
	}
	w.chats[c.ID] = &baselineChat{pk: pk, lastActivity: created, runs: map[string]*baselineRun{}}
	return nil
}

func (w *BaselineWriter) entry(exec baselineExec, c *baselineChat, e *annals.Entry) error {
	var tool annals.ToolCall
	if e.Tool != nil {
		tool = *e.Tool
	}
	c.lastSeq++
	t := e.Time.UnixNano()
	res, err := exec(baselineInsertEntry, c.pk, e.ID, c.lastSeq, string(e.Kind), e.RunID, strings.Join(e.SourceIDs, "\n"), e.Channel,
		e.CorrelationID, t, e.Text, e.Reasoning, tool.Name, tool.CallID, string(tool.Arguments), tool.Result, string(tool.Outcome),
		e.InputTokens, e.OutputTokens, string(e.Metadata))
	if err != nil {
		return err
	}
	if len(e.SourceIDs) > 0 {
		pk, err := res.LastInsertId()
		if err != nil {
			return err
		}
		for _, src := range e.SourceIDs {
			if _, err := exec(baselineInsertSource, c.pk, src, pk, c.lastSeq); err != nil {
				return err
			}
		}
	}
	c.entries++
	c.inTok += e.InputTokens
	c.outTok += e.OutputTokens
	c.lastActivity = max(c.lastActivity, t)
	c.dirty = true
	w.entries++
	return nil
}

func (w *BaselineWriter) run(exec baselineExec, run *annals.Run) error {
	c := w.chats[run.ChatID]
	if c == nil {
		return fmt.Errorf("run for unknown chat %q", run.ChatID)
	}
	st := c.runs[run.ID]
	if st == nil {
		w.runs++
		st = &baselineRun{order: w.runs}
		c.runs[run.ID] = st
	}
	// The same merge rules as the store: a zero start keeps the stored one, an empty model
	// keeps the stored one, an end is never cleared.
	switch {
	case !run.StartedAt.IsZero():
		st.started, st.startedKnown = run.StartedAt.UnixNano(), true
	case !st.startedKnown:
		st.started, st.startedKnown = time.Now().UnixNano(), true
	}
	if run.Model != "" {
		st.model = run.Model
	}
	var ended any
	if run.EndedAt != nil {
		st.ended, st.hasEnd = run.EndedAt.UnixNano(), true
	}
	if st.hasEnd {
		ended = st.ended
	}
	st.status, st.inTok, st.outTok, st.cost = string(run.Status), run.InputTokens, run.OutputTokens, run.CostUSD
	if _, err := exec(baselineUpsertRun, run.ID, c.pk, st.status, st.model, st.started, ended, st.inTok, st.outTok, st.cost); err != nil {
		return err
	}
	c.lastActivity = max(c.lastActivity, st.started, st.ended)
	c.dirty = true
	return nil
}

// summaryQuery counts every table and FTS index a capture writes and sums the chat counters,
// so that two databases holding the same data give the same line whatever their row ids.
const summaryQuery = `SELECT (SELECT count(*) FROM chats), (SELECT count(*) FROM entries), (SELECT count(*) FROM runs),
	(SELECT count(*) FROM chat_tags), (SELECT count(*) FROM chat_attributes), (SELECT count(*) FROM entry_sources), (SELECT count(*) FROM chat_id_keys),
	(SELECT count(*) FROM entries_fts_docsize), (SELECT count(*) FROM chats_fts_docsize), (SELECT count(*) FROM chat_fts_docsize),
	(SELECT sum(entry_count) || '/' || sum(last_seq) || '/' || sum(run_count) || '/' || sum(entry_input_tokens + run_input_tokens) || '/' ||
		sum(entry_output_tokens + run_output_tokens) || '/' || printf('%.4f', sum(cost_usd)) || '/' || sum(last_activity % 1000000007) FROM chats),
	(SELECT group_concat(status || '=' || n) FROM (SELECT status, count(*) AS n FROM chats GROUP BY status ORDER BY status))`

// Summarize describes the data in the database at path in one line: row counts of every table
// and FTS index capture writes, sums of the chat counters, and chats per status. The benchmark
// compares the lines of the baseline's database and the library's, so that its ratio compares
// like with like. The file is opened read-only.
func Summarize(ctx context.Context, path string) (string, error) {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return "", fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	var n [10]int64
	var sums, statuses sql.NullString
	if err := db.QueryRowContext(ctx, summaryQuery).Scan(&n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8], &n[9], &sums, &statuses); err != nil {
		return "", fmt.Errorf("summarize %s: %w", path, err)
	}
	return fmt.Sprintf("chats %d, entries %d, runs %d, tags %d, attributes %d, sources %d, id keys %d, fts %d+%d+%d, counters %s, statuses %s",
		n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8], n[9], sums.String, statuses.String), nil
}

// EngineVersion is the version of the SQLite library inside the driver this package uses, for
// a benchmark report to name the engine it measured.
func EngineVersion(ctx context.Context) (string, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return "", fmt.Errorf("open an in-memory database: %w", err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v); err != nil {
		return "", fmt.Errorf("sqlite_version: %w", err)
	}
	return v, nil
}

// OpenReplay opens the database at path read-only with the settings of the store's reader
// connections (the same driver, pragmas and memory map), for a benchmark to replay traced search
// statements through the same driver: annals against its own SQL without the library around it.
func OpenReplay(path string) (*sql.DB, error) {
	registerRankHook() // the traced statements score through rankFunc
	db, err := sql.Open("sqlite", dsn(path, Options{ReadOnly: true, BusyTimeout: 5 * time.Second}, true))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}
