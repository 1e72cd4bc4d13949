package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/ingest"
)

// ingestScenario measures entries/s into fresh SQLite databases, each from the same cached
// corpus file: one decode pass alone (an upper bound), the raw baseline (plain SQL), the library
// (ingest.Ingest on the store), and the annals binary (annals ingest, with redaction).
func (b *bench) ingestScenario(ctx context.Context, scratch string) error {
	d := b.data
	entries := d.stats.Entries

	b.logf("ingest: decoding only")
	decoded, err := decodeOnly(ctx, d.corpusPath)
	if err != nil {
		return err
	}
	b.add(benchRow{Scenario: "ingest", Case: "decode only (1 pass, no database)", Backend: "-",
		Rate: rate(entries, decoded), Unit: "entries/s", Note: "the capture-format decoder alone: an upper bound"})

	// The raw baseline and the library run alternately, --ingest-runs times each, and the best
	// rate of each counts: noise from other work on a shared machine only ever slows a run
	// down, and alternating keeps a slow spell from landing on one side only.
	rawPath := filepath.Join(scratch, "raw.db")
	libPath := filepath.Join(scratch, "library.db")
	var rawBest, libBest time.Duration
	var rawEntries, libEntries int
	var rawRates, libRates []string
	for run := range b.cfg.ingestRuns {
		removeDB(rawPath)
		b.logf("ingest: raw baseline (plain SQL) into %s, run %d of %d", rawPath, run+1, b.cfg.ingestRuns)
		raw, err := b.rawIngest(ctx, rawPath, d.corpusPath)
		if err != nil {
			return fmt.Errorf("raw baseline: %w", err)
		}
		rawRates = append(rawRates, groupThousands(rate(raw.entries, raw.duration)))
		if rawBest == 0 || raw.duration < rawBest {
			rawBest, rawEntries = raw.duration, raw.entries
		}

		removeDB(libPath)
		store, err := b.open(ctx, libPath)
		if err != nil {
			return err
		}
		rep, err := b.ingestFile(ctx, store, d.corpusPath, fmt.Sprintf("ingest: library (ingest.Ingest), run %d of %d", run+1, b.cfg.ingestRuns))
		if cerr := store.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		libRates = append(libRates, groupThousands(rate(rep.EntriesAppended, rep.Duration)))
		if libBest == 0 || rep.Duration < libBest {
			libBest, libEntries = rep.Duration, rep.EntriesAppended
		}
	}
	runsNote := func(rates []string) string {
		if len(rates) < 2 {
			return ""
		}
		return fmt.Sprintf("; best of %d runs (%s)", len(rates), strings.Join(rates, ", "))
	}
	rawRate := rate(rawEntries, rawBest)
	b.add(benchRow{Scenario: "ingest", Case: "raw SQL baseline", Backend: "sqlite", Rate: rawRate, Unit: "entries/s",
		Note: fmt.Sprintf("1 decode pass + plain INSERTs, same driver, schema, triggers and %d records per transaction%s", ingest.DefaultBatchSize, runsNote(rawRates))})
	libRate := rate(libEntries, libBest)
	row := benchRow{Scenario: "ingest", Case: "library (ingest.Ingest)", Backend: "sqlite", Rate: libRate, Unit: "entries/s",
		Baseline: &benchBaseline{Name: "raw", Rate: rawRate}, Ratio: ratio(libRate, rawRate),
		Target: fmt.Sprintf(">= %.1fx", targetIngestRatio), Met: boolp(ratio(libRate, rawRate) >= targetIngestRatio),
		Note: "validate + apply passes, no redaction" + runsNote(libRates)}
	if diff := compareDatabases(ctx, libPath, rawPath); diff != "" {
		row.Note += "; raw rows differ: " + diff
	}
	b.add(row)
	removeDB(rawPath)

	if b.cfg.annalsBin == "" {
		b.gap("ingest: annals ingest", "not running from an annals binary (a test binary); pass --annals PATH")
	} else {
		cliPath := filepath.Join(scratch, "cli.db")
		b.logf("ingest: %s ingest into %s", b.cfg.annalsBin, cliPath)
		cli, err := b.cliIngest(ctx, scratch, cliPath, d.corpusPath)
		if err != nil {
			return err
		}
		cliRate := rate(cli.entries, cli.duration)
		b.add(benchRow{Scenario: "ingest", Case: "annals ingest (binary)", Backend: "sqlite", Rate: cliRate, Unit: "entries/s",
			Baseline: &benchBaseline{Name: "raw", Rate: rawRate}, Ratio: ratio(cliRate, rawRate),
			Note: fmt.Sprintf("with redaction; wall %.1f s, max RSS %s", cli.wall.Seconds(), humanBytes(cli.maxRSS))})
		removeDB(cliPath)
	}
	switch {
	case !b.hasCommand("serve"):
		b.gap("ingest: HTTP", "this build has no 'annals serve' (the HTTP server); the row appears once it exists")
	case b.cfg.annalsBin == "":
		b.gap("ingest: HTTP", "not running from an annals binary (a test binary); pass --annals PATH")
	default:
		if err := b.httpIngest(ctx, scratch, rawRate); err != nil {
			return err
		}
	}

	// The library's database is the corpus ingested through the library, which is exactly how
	// the cached bench database starts: reuse it rather than ingest a fourth time.
	if d.meta == nil {
		return b.ensureDatabase(ctx, libPath)
	}
	removeDB(libPath)
	return nil
}

func (b *bench) hasCommand(name string) bool {
	for _, c := range b.m.commands() {
		if c.name == name {
			return true
		}
	}
	return false
}

// decodeOnly times one pass of the capture-format decoder over the corpus.
func decodeOnly(ctx context.Context, path string) (time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	start := time.Now()
	dec := ingest.NewDecoder(f)
	for {
		if _, err := dec.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return 0, err
		}
		if dec.LineNumber()%10000 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
	}
	return time.Since(start), nil
}

type ingestRun struct {
	entries  int
	duration time.Duration
	wall     time.Duration
	maxRSS   int64
}

// cliIngest runs 'annals ingest' as a subprocess with the built-in configuration, and takes the
// rate from its own report (both passes, without process start).
func (b *bench) cliIngest(ctx context.Context, scratch, dbPath, corpusPath string) (*ingestRun, error) {
	cfgPath := filepath.Join(scratch, "empty-config.yaml")
	if err := os.WriteFile(cfgPath, []byte("# annals bench: the built-in defaults\n"), 0o600); err != nil {
		return nil, err
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, b.cfg.annalsBin, "ingest", "--db", dbPath, "--config", cfgPath, "--json", "--quiet", corpusPath)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s ingest: %v: %s", b.cfg.annalsBin, err, strings.TrimSpace(errOut.String()))
	}
	wall := time.Since(start)
	var rep struct {
		EntriesAppended int   `json:"entries_appended"`
		DurationNS      int64 `json:"duration_ns"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("annals ingest printed no JSON report: %v: %q", err, out.String())
	}
	return &ingestRun{entries: rep.EntriesAppended, duration: time.Duration(rep.DurationNS), wall: wall, maxRSS: maxRSS(cmd.ProcessState)}, nil
}

// rawDSN opens a database the way the store's writer does (sqlite/db.go): WAL, synchronous
// NORMAL, foreign keys, BEGIN IMMEDIATE. The baseline must pay for the same durability.
func rawDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// rawChat and rawRun are the raw baseline's in-memory view of what it wrote, from which it
// sets the chat counters once per chat per transaction instead of recomputing them in SQL.
type rawChat struct {
	pk, lastSeq, entries, inTok, outTok, lastActivity int64
	runs                                              map[string]*rawRun
	dirty                                             bool
}

type rawRun struct {
	order                int
	status, model        string
	started, ended       int64
	startedKnown, hasEnd bool
	inTok, outTok        int64
	cost                 float64
}

// rawIngest is the raw baseline: the minimum a program must do to put the corpus into the
// store's schema. It reads and decodes the file once with the same decoder, and inserts the
// same rows with plain prepared INSERTs through the same driver, into a schema created by the
// store's own migrations (FTS5 triggers included), in transactions of the same number of
// records. It keeps seq numbers, counters and run aggregates in memory and writes each touched
// chat's counters once per transaction. It skips what the library adds on top: the validation
// pass, idempotency checks, and aggregate recomputation in SQL.
func (b *bench) rawIngest(ctx context.Context, dbPath, corpusPath string) (*ingestRun, error) {
	s, err := b.open(ctx, dbPath) // runs the migrations, so the schema is the store's own
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", rawDSN(dbPath))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	f, err := os.Open(corpusPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	start := time.Now()
	r := &rawWriter{ctx: ctx, db: db, chats: map[string]*rawChat{}}
	dec := ingest.NewDecoder(f)
	batch := make([]annals.CaptureOp, 0, ingest.DefaultBatchSize)
	for {
		line, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		batch = append(batch, line.Op)
		if len(batch) == ingest.DefaultBatchSize {
			if err := r.apply(batch); err != nil {
				return nil, err
			}
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		if err := r.apply(batch); err != nil {
			return nil, err
		}
	}
	return &ingestRun{entries: r.entries, duration: time.Since(start)}, nil
}

type rawWriter struct {
	ctx     context.Context
	db      *sql.DB
	chats   map[string]*rawChat
	entries int
	runs    int
}

const (
	rawInsertChat = `INSERT INTO chats (id, tenant_id, user_id, agent_id, attributes, created_at, last_activity, title, title_fold, description, tags)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	rawInsertTag   = `INSERT INTO chat_tags (chat_pk, tag) VALUES (?, ?)`
	rawInsertAttr  = `INSERT INTO chat_attributes (chat_pk, key, value) VALUES (?, ?, ?)`
	rawInsertEntry = `INSERT INTO entries (chat_pk, id, seq, kind, run_id, source_ids, channel, correlation_id, time,
		text, reasoning, tool_name, tool_call_id, tool_args, tool_result, tool_outcome, input_tokens, output_tokens, metadata)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	rawInsertSource = `INSERT INTO entry_sources (chat_pk, source_id, entry_pk, seq) VALUES (?, ?, ?, ?)`
	rawUpsertRun    = `INSERT INTO runs (id, chat_pk, status, model, started_at, ended_at, input_tokens, output_tokens, cost_usd)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, model = excluded.model, started_at = excluded.started_at,
			ended_at = excluded.ended_at, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd`
	rawUpdateChat = `UPDATE chats SET last_seq = ?, entry_count = ?, entry_input_tokens = ?, entry_output_tokens = ?,
		run_count = ?, run_input_tokens = ?, run_output_tokens = ?, cost_usd = ?, status = ?, last_activity = ? WHERE pk = ?`
)

// apply writes one batch in one transaction.
func (r *rawWriter) apply(ops []annals.CaptureOp) error {
	tx, err := r.db.BeginTx(r.ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts := map[string]*sql.Stmt{}
	exec := func(q string, args ...any) (sql.Result, error) {
		s, ok := stmts[q]
		if !ok {
			if s, err = tx.PrepareContext(r.ctx, q); err != nil {
				return nil, err
			}
			stmts[q] = s
		}
		return s.ExecContext(r.ctx, args...)
	}
	for _, op := range ops {
		switch {
		case op.Chat != nil:
			if err := r.chat(exec, op.Chat); err != nil {
				return err
			}
		case op.Append != nil:
			c := r.chats[op.Append.ChatID]
			if c == nil {
				return fmt.Errorf("entry for unknown chat %q", op.Append.ChatID)
			}
			for _, e := range op.Append.Entries {
				if err := r.entry(exec, c, e); err != nil {
					return err
				}
			}
		case op.Run != nil:
			if err := r.run(exec, op.Run); err != nil {
				return err
			}
		default:
			return errors.New("the raw baseline does not replay truncate records (the corpus has none)")
		}
	}
	for _, c := range r.chats {
		if !c.dirty {
			continue
		}
		c.dirty = false
		var runIn, runOut int64
		var cost float64
		status := ""
		var latest *rawRun
		running := false
		for _, run := range c.runs {
			runIn += run.inTok
			runOut += run.outTok
			cost += run.cost
			if run.status == string(annals.StatusRunning) {
				running = true
			}
			if latest == nil || run.started > latest.started || (run.started == latest.started && run.order > latest.order) {
				latest = run
			}
		}
		switch {
		case running:
			status = string(annals.StatusRunning)
		case latest != nil:
			status = latest.status
		}
		if _, err := exec(rawUpdateChat, c.lastSeq, c.entries, c.inTok, c.outTok, len(c.runs), runIn, runOut, cost, status, c.lastActivity, c.pk); err != nil {
			return err
		}
	}
	for _, s := range stmts {
		s.Close()
	}
	return tx.Commit()
}

type rawExec func(q string, args ...any) (sql.Result, error)

func (r *rawWriter) chat(exec rawExec, c *annals.Chat) error {
	attrs := c.Attributes
	if attrs == nil {
		attrs = annals.Attributes{}
	}
	rawAttrs, err := json.Marshal(attrs)
	if err != nil {
		return err
	}
	created := c.CreatedAt.UnixNano()
	res, err := exec(rawInsertChat, c.ID, c.TenantID, c.UserID, c.AgentID, string(rawAttrs), created, created,
		c.Title, strings.ToLower(c.Title), c.Description, strings.Join(c.Tags, "\n"))
	if err != nil {
		return err
	}
	pk, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for _, t := range c.Tags {
		if _, err := exec(rawInsertTag, pk, t); err != nil {
			return err
		}
	}
	for k, v := range c.Attributes {
		if _, err := exec(rawInsertAttr, pk, k, v); err != nil {
			return err
		}
	}
	r.chats[c.ID] = &rawChat{pk: pk, lastActivity: created, runs: map[string]*rawRun{}}
	return nil
}

func (r *rawWriter) entry(exec rawExec, c *rawChat, e *annals.Entry) error {
	var tool annals.ToolCall
	if e.Tool != nil {
		tool = *e.Tool
	}
	c.lastSeq++
	t := e.Time.UnixNano()
	res, err := exec(rawInsertEntry, c.pk, e.ID, c.lastSeq, string(e.Kind), e.RunID, strings.Join(e.SourceIDs, "\n"), e.Channel,
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
			if _, err := exec(rawInsertSource, c.pk, src, pk, c.lastSeq); err != nil {
				return err
			}
		}
	}
	c.entries++
	c.inTok += e.InputTokens
	c.outTok += e.OutputTokens
	c.lastActivity = max(c.lastActivity, t)
	c.dirty = true
	r.entries++
	return nil
}

func (r *rawWriter) run(exec rawExec, run *annals.Run) error {
	c := r.chats[run.ChatID]
	if c == nil {
		return fmt.Errorf("run for unknown chat %q", run.ChatID)
	}
	st := c.runs[run.ID]
	if st == nil {
		r.runs++
		st = &rawRun{order: r.runs}
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
	if _, err := exec(rawUpsertRun, run.ID, c.pk, st.status, st.model, st.started, ended, st.inTok, st.outTok, st.cost); err != nil {
		return err
	}
	c.lastActivity = max(c.lastActivity, st.started, st.ended)
	c.dirty = true
	return nil
}

// compareDatabases checks that the raw baseline wrote the same data as the library, so the ratio
// compares like with like. It returns "" when the summaries agree, else what differs.
func compareDatabases(ctx context.Context, a, b string) string {
	const q = `SELECT (SELECT count(*) FROM chats), (SELECT count(*) FROM entries), (SELECT count(*) FROM runs),
		(SELECT count(*) FROM chat_tags), (SELECT count(*) FROM chat_attributes), (SELECT count(*) FROM entry_sources),
		(SELECT count(*) FROM entries_fts_docsize), (SELECT count(*) FROM chats_fts_docsize),
		(SELECT sum(entry_count) || '/' || sum(last_seq) || '/' || sum(run_count) || '/' || sum(entry_input_tokens + run_input_tokens) || '/' ||
			sum(entry_output_tokens + run_output_tokens) || '/' || printf('%.4f', sum(cost_usd)) || '/' || sum(last_activity % 1000000007) FROM chats),
		(SELECT group_concat(status || '=' || n) FROM (SELECT status, count(*) AS n FROM chats GROUP BY status ORDER BY status))`
	summary := func(path string) (string, error) {
		db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
		if err != nil {
			return "", err
		}
		defer db.Close()
		var n [8]int64
		var sums, statuses string
		if err := db.QueryRowContext(ctx, q).Scan(&n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &sums, &statuses); err != nil {
			return "", err
		}
		return fmt.Sprintf("chats %d, entries %d, runs %d, tags %d, attributes %d, sources %d, fts %d+%d, counters %s, statuses %s",
			n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], sums, statuses), nil
	}
	sa, err := summary(a)
	if err != nil {
		return "cannot compare: " + err.Error()
	}
	sb, err := summary(b)
	if err != nil {
		return "cannot compare: " + err.Error()
	}
	if sa != sb {
		return fmt.Sprintf("library {%s} raw {%s}", sa, sb)
	}
	return ""
}
