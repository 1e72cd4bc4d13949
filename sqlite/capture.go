package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// Capture applies ops in order in one write transaction; see annals.CaptureStore.
func (db *DB) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	return db.capture(ctx, ops)
}

// CaptureEach applies each list of ops as Capture would, all in one transaction; see
// annals.CaptureEachStore.
func (db *DB) CaptureEach(ctx context.Context, lists [][]annals.CaptureOp) ([]*annals.CaptureResult, error) {
	return db.CaptureEachSaving(ctx, lists, nil)
}

// CaptureEachSaving is CaptureEach with the import states that states returns for the results
// saved in the same transaction; see annals.ImportCaptureStore.
func (db *DB) CaptureEachSaving(ctx context.Context, lists [][]annals.CaptureOp, states func([]*annals.CaptureResult) []*annals.ImportSource) ([]*annals.CaptureResult, error) {
	if db.readOnly {
		return nil, errReadOnly()
	}
	for _, ops := range lists {
		for i := range ops {
			if err := ops[i].Validate(); err != nil {
				return nil, &annals.BatchError{Index: i, Err: err}
			}
		}
	}
	res := make([]*annals.CaptureResult, len(lists))
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		for i, ops := range lists {
			res[i] = &annals.CaptureResult{}
			if err := db.captureIn(ctx, tx, ops, res[i]); err != nil {
				return err
			}
		}
		if states == nil {
			return nil
		}
		for _, src := range states(res) {
			if src == nil {
				continue
			}
			if err := checkImportSource(src); err != nil {
				return err
			}
			if err := saveImportSourceIn(ctx, tx, src); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// capture applies ops in one transaction.
func (db *DB) capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	if db.readOnly {
		return nil, errReadOnly()
	}
	for i := range ops {
		if err := ops[i].Validate(); err != nil {
			return nil, &annals.BatchError{Index: i, Err: err}
		}
	}
	var res annals.CaptureResult
	err := db.writeTx(ctx, func(tx *sql.Tx) error { return db.captureIn(ctx, tx, ops, &res) })
	if err != nil {
		return nil, err
	}
	// A one-op batch answers what it stored, for the single-op functions (annals.CreateChat).
	if err := storecore.ReadBack(ctx, db, ops, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// captureIn applies validated ops inside tx, with their replication operations when the outbox
// is on (a replicated change applied on a remote goes through here too).
func (db *DB) captureIn(ctx context.Context, tx *sql.Tx, ops []annals.CaptureOp, res *annals.CaptureResult) error {
	w := &writer{tx: tx, ctx: ctx, now: db.now().UTC(), cached: db.wstmts.of(tx)}
	defer w.close()
	host, err := outboxHost(ctx, tx)
	if err != nil {
		return err
	}
	if host != nil {
		w.changes = &storecore.Changes{}
	}
	for i := range ops {
		w.op = i
		before := *res
		if err := w.apply(&ops[i], res); err != nil {
			return &annals.BatchError{Index: i, Err: err}
		}
		if storecore.CaptureChanged(&before, res) {
			db.feedTouch(tx, storecore.OpChatID(&ops[i]), "", false)
		}
	}
	if err := w.flushRuns(); err != nil {
		return err
	}
	return db.writeOutbox(ctx, tx, host, w.changes)
}

// writer applies capture ops inside one transaction, with the writer's prepared statements
// (writestmts.go): an ingest sends thousands of entries per transaction, an import a file.
type writer struct {
	ctx    context.Context
	rowCtx context.Context // ctx without its cancellation (rowContext)
	tx     *sql.Tx
	now    time.Time
	cached *cachedTx
	// stmts are the statements this transaction prepared itself (the cache did not hold them).
	stmts map[string]*sql.Stmt
	// op is the index of the op being applied.
	op int
	// runChats are the chats whose runs this transaction recorded, in the order first
	// touched; their run totals and status are recomputed once, by flushRuns, before commit.
	runChats []int64
	runTouch map[int64]*runTouch
	// fresh is, per chat, the first seq this transaction appended: a truncation that removes
	// entries from there on takes back the batch's own appends (netAppends).
	fresh map[int64]int64
	// changes collects the replication payloads of the ops applied; nil when the outbox is off.
	changes *storecore.Changes
}

// runTouch is what flushRuns needs about one chat's recorded runs.
type runTouch struct {
	// activity is the latest start or end among the runs recorded, as stored after each record.
	activity int64
	// op is the index of the last op that recorded one, named if the recomputation fails.
	op int
}

func (w *writer) stmt(query string) (*sql.Stmt, error) {
	if s, ok := w.stmts[query]; ok {
		return s, nil
	}
	if s := w.cached.stmt(w.ctx, query); s != nil {
		return s, nil
	}
	s, err := w.tx.PrepareContext(w.ctx, query)
	if err != nil {
		return nil, storeErr("prepare", err)
	}
	if w.stmts == nil {
		w.stmts = map[string]*sql.Stmt{}
	}
	w.stmts[query] = s
	return s, nil
}

func (w *writer) exec(query string, args ...any) (sql.Result, error) {
	s, err := w.stmt(query)
	if err != nil {
		return nil, err
	}
	ctx, err := w.rowContext()
	if err != nil {
		return nil, storeErr("exec", err)
	}
	res, err := s.ExecContext(ctx, args...)
	if err != nil {
		return nil, storeErr("exec", err)
	}
	return res, nil
}

func (w *writer) close() {
	for _, s := range w.stmts {
		s.Close()
	}
}

func (w *writer) apply(op *annals.CaptureOp, res *annals.CaptureResult) error {
	switch {
	case op.Chat != nil:
		return w.createChat(op.Chat, res)
	case op.Append != nil:
		return w.append(op.Append, op.Expect, res)
	case op.Truncate != nil:
		return w.truncate(op.Truncate, op.Expect, res)
	default:
		return w.recordRun(op.Run, op.Expect, res)
	}
}

// chatRef is what the write path needs to know about an existing chat.
type chatRef struct {
	pk           int64
	lastSeq      int64
	lastActivity int64
	owner        annals.ChatOwner
}

// findTarget finds the chat an op writes to. With expect set, a chat of another owner is the
// same not-found as no chat: the caller checked a chat with that owner, and this one (created
// under the same id since) is not it.
func (w *writer) findTarget(id string, expect *annals.ChatOwner) (*chatRef, error) {
	s, err := w.stmt(`SELECT pk, last_seq, last_activity, tenant_id, user_id, agent_id FROM chats WHERE id = ?`)
	if err != nil {
		return nil, err
	}
	ctx, err := w.rowContext()
	if err != nil {
		return nil, storeErr("find chat", err)
	}
	var c chatRef
	err = s.QueryRowContext(ctx, id).Scan(&c.pk, &c.lastSeq, &c.lastActivity, &c.owner.TenantID, &c.owner.UserID, &c.owner.AgentID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && expect != nil && *expect != c.owner) {
		return nil, annals.NotFound(id)
	}
	if err != nil {
		return nil, storeErr("find chat", err)
	}
	return &c, nil
}

func (w *writer) createChat(c *annals.Chat, res *annals.CaptureResult) error {
	existing, err := w.immutableOf(c.ID)
	if err != nil {
		return err
	}
	if existing != nil {
		if !existing.SameImmutable(c) {
			return annals.Errorf(annals.ECONFLICT, "chat %q already exists with different immutable data (tenant, user, agent or attributes cannot change after creation)", c.ID)
		}
		res.ChatsUnchanged++
		return nil
	}
	created := c.CreatedAt
	if created.IsZero() {
		created = w.now
	}
	attrs, err := json.Marshal(nonNilAttrs(c.Attributes))
	if err != nil {
		return annals.Internal("encode attributes", err)
	}
	// The human layer a producer already knows (an importer moving a curated history over) is
	// taken at creation: title, description, tags, pinned, archived_at and summary.
	var archived, summarized *int64
	if c.ArchivedAt != nil {
		v := unixNano(*c.ArchivedAt)
		archived = &v
	}
	if c.Summary != "" {
		v := unixNano(created)
		if c.SummaryUpdatedAt != nil {
			v = unixNano(*c.SummaryUpdatedAt)
		}
		summarized = &v
	}
	r, err := w.exec(`INSERT INTO chats (id, tenant_id, user_id, agent_id, attributes, created_at, last_activity, title, title_fold, description, tags,
			pinned, archived_at, summary, summary_updated_at, incarnation, title_generated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.TenantID, c.UserID, c.AgentID, string(attrs), unixNano(created), unixNano(created),
		c.Title, strings.ToLower(c.Title), c.Description, joinTags(dedupe(c.Tags)),
		c.Pinned, archived, c.Summary, summarized, rand.Int64(), c.Title != "" && c.TitleGenerated)
	if err != nil {
		return err
	}
	pk, err := r.LastInsertId()
	if err != nil {
		return storeErr("chat pk", err)
	}
	if err := w.replaceTags(pk, dedupe(c.Tags)); err != nil {
		return err
	}
	for _, k := range storecore.ChatIDKeys(c.ID) {
		if _, err := w.exec(`INSERT INTO chat_id_keys (tenant_id, key, chat_pk) VALUES (?, ?, ?)`, c.TenantID, k, pk); err != nil {
			return err
		}
	}
	for k, v := range c.Attributes {
		if _, err := w.exec(`INSERT INTO chat_attributes (chat_pk, key, value) VALUES (?, ?, ?)`, pk, k, v); err != nil {
			return err
		}
	}
	if w.changes != nil {
		w.changes.Add(storecore.ChatPayload(c, created))
	}
	res.ChatsCreated++
	return nil
}

// immutableOf returns the immutable data of a stored chat, or nil when there is none.
func (w *writer) immutableOf(id string) (*annals.Chat, error) {
	s, err := w.stmt(`SELECT tenant_id, user_id, agent_id, attributes FROM chats WHERE id = ?`)
	if err != nil {
		return nil, err
	}
	var c annals.Chat
	ctx, err := w.rowContext()
	if err != nil {
		return nil, storeErr("find chat", err)
	}
	var attrs string
	err = s.QueryRowContext(ctx, id).Scan(&c.TenantID, &c.UserID, &c.AgentID, &attrs)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr("find chat", err)
	}
	if err := json.Unmarshal([]byte(attrs), &c.Attributes); err != nil {
		return nil, annals.Internal("decode attributes", err)
	}
	return &c, nil
}

func (w *writer) replaceTags(pk int64, tags []string) error {
	if _, err := w.exec(`DELETE FROM chat_tags WHERE chat_pk = ?`, pk); err != nil {
		return err
	}
	for _, t := range tags {
		if _, err := w.exec(`INSERT OR IGNORE INTO chat_tags (chat_pk, tag) VALUES (?, ?)`, pk, t); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) append(op *annals.AppendOp, expect *annals.ChatOwner, res *annals.CaptureResult) error {
	chat, err := w.findTarget(op.ChatID, expect)
	if err != nil {
		return err
	}
	seq := chat.lastSeq
	lastActivity := chat.lastActivity
	var appended, inTok, outTok int64
	var added []*annals.Entry // the entries appended, as stored, when the outbox is on
	for _, e := range op.Entries {
		t := e.Time
		if t.IsZero() {
			t = w.now
		}
		var tool annals.ToolCall
		if e.Tool != nil {
			tool = *e.Tool
		}
		r, err := w.exec(`INSERT INTO entries (chat_pk, id, seq, kind, run_id, source_ids, channel, correlation_id, time,
				text, reasoning, tool_name, tool_call_id, tool_args, tool_result, tool_outcome, input_tokens, output_tokens, metadata)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (chat_pk, id) DO NOTHING`,
			chat.pk, e.ID, seq+1, string(e.Kind), e.RunID, joinSources(e.SourceIDs), e.Channel, e.CorrelationID, unixNano(t),
			e.Text, e.Reasoning, tool.Name, tool.CallID, string(tool.Arguments), tool.Result, string(tool.Outcome),
			e.InputTokens, e.OutputTokens, string(e.Metadata))
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			res.EntriesSkipped++
			continue
		}
		seq++
		appended++
		if w.changes != nil {
			added = append(added, storecore.AppendedEntry(e, op.ChatID, seq, t))
		}
		inTok += e.InputTokens
		outTok += e.OutputTokens
		if tn := unixNano(t); tn > lastActivity {
			lastActivity = tn
		}
		if len(e.SourceIDs) > 0 {
			pk, err := r.LastInsertId()
			if err != nil {
				return storeErr("entry pk", err)
			}
			for _, src := range e.SourceIDs {
				if _, err := w.exec(`INSERT OR IGNORE INTO entry_sources (chat_pk, source_id, entry_pk, seq) VALUES (?, ?, ?, ?)`, chat.pk, src, pk, seq); err != nil {
					return err
				}
			}
		}
	}
	res.LastSeq = seq
	if appended == 0 {
		return nil
	}
	w.markFresh(chat.pk, seq-appended+1)
	res.EntriesAppended += int(appended)
	if w.changes != nil {
		w.changes.Add(&annals.OpPayload{Append: &annals.AppendOp{ChatID: op.ChatID, Entries: added}})
	}
	// Token counters saturate instead of overflowing: SQLite would store an overflowing integer
	// sum as a float, and CAST turns it back into an integer clamped to the int64 range.
	_, err = w.exec(`UPDATE chats SET last_seq = ?, entry_count = entry_count + ?, revision = revision + ?,
			entry_input_tokens = CAST(entry_input_tokens + ? AS INTEGER), entry_output_tokens = CAST(entry_output_tokens + ? AS INTEGER),
			last_activity = ? WHERE pk = ?`,
		seq, appended, appended, inTok, outTok, lastActivity, chat.pk)
	return err
}

func (w *writer) truncate(op *annals.TruncateOp, expect *annals.ChatOwner, res *annals.CaptureResult) error {
	chat, err := w.findTarget(op.ChatID, expect)
	if err != nil {
		return err
	}
	var from sql.NullInt64
	var what string
	p := op.Point
	switch {
	case p.EntryID != "":
		what = "entry with id " + quote(p.EntryID)
		err = w.tx.QueryRowContext(w.ctx, `SELECT seq FROM entries WHERE chat_pk = ? AND id = ?`, chat.pk, p.EntryID).Scan(&from)
	case p.SourceID != "":
		what = "entry with source id " + quote(p.SourceID)
		err = w.tx.QueryRowContext(w.ctx, `SELECT min(seq) FROM entry_sources WHERE chat_pk = ? AND source_id = ?`, chat.pk, p.SourceID).Scan(&from)
	default:
		what = "entry at seq " + itoa(p.Seq)
		err = w.tx.QueryRowContext(w.ctx, `SELECT seq FROM entries WHERE chat_pk = ? AND seq = ?`, chat.pk, p.Seq).Scan(&from)
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return storeErr("find truncation point", err)
	}
	if !from.Valid {
		return annals.Errorf(annals.ENOTFOUND, "chat %q has no %s to truncate from", op.ChatID, what)
	}
	var own int64
	if first, ok := w.fresh[chat.pk]; ok {
		if err := w.tx.QueryRowContext(w.ctx, `SELECT count(*) FROM entries WHERE chat_pk = ? AND seq >= ?`, chat.pk, max(first, from.Int64)).Scan(&own); err != nil {
			return storeErr("count the batch's own entries", err)
		}
	}
	var fromID string
	if w.changes != nil {
		if err := w.tx.QueryRowContext(w.ctx, `SELECT id FROM entries WHERE chat_pk = ? AND seq = ?`, chat.pk, from.Int64).Scan(&fromID); err != nil {
			return storeErr("find truncation point", err)
		}
	}
	r, err := w.exec(`DELETE FROM entries WHERE chat_pk = ? AND seq >= ?`, chat.pk, from.Int64)
	if err != nil {
		return err
	}
	n, _ := r.RowsAffected()
	netAppends(res, int(n), int(own))
	if w.changes != nil {
		w.changes.Add(&annals.OpPayload{Truncate: &annals.TruncateChange{ChatID: op.ChatID, EntryID: fromID, Seq: from.Int64, Removed: int(n)}})
	}
	res.LastSeq = from.Int64 - 1
	// Recount from the rows that remain rather than subtracting, so counters can never drift;
	// the revision moves on by the entries removed (annals.Chat.Revision).
	_, err = w.exec(`UPDATE chats SET
			last_seq = ? - 1,
			revision = revision + ?,
			entry_count = (SELECT count(*) FROM entries WHERE chat_pk = chats.pk),
			entry_input_tokens = (SELECT CAST(total(input_tokens) AS INTEGER) FROM entries WHERE chat_pk = chats.pk),
			entry_output_tokens = (SELECT CAST(total(output_tokens) AS INTEGER) FROM entries WHERE chat_pk = chats.pk)
		WHERE pk = ?`, from.Int64, n, chat.pk)
	return err
}

func (w *writer) recordRun(run *annals.Run, expect *annals.ChatOwner, res *annals.CaptureResult) error {
	chat, err := w.findTarget(run.ChatID, expect)
	if err != nil {
		return err
	}
	// A prepared statement from the batch's cache: an ingest records a run every few entries.
	stored, err := w.stmt(`SELECT chat_pk, started_at, ended_at, kind FROM runs WHERE id = ?`)
	if err != nil {
		return err
	}
	ctx, err := w.rowContext()
	if err != nil {
		return storeErr("find run", err)
	}
	var owner, storedStart, storedEnd sql.NullInt64
	var storedKind sql.NullString
	if err := stored.QueryRowContext(ctx, run.ID).Scan(&owner, &storedStart, &storedEnd, &storedKind); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return storeErr("find run", err)
	}
	kind := run.Kind // a run keeps the kind it was first recorded with
	if storedKind.Valid {
		kind = annals.RunKind(storedKind.String)
	}
	if owner.Valid && owner.Int64 != chat.pk {
		return annals.Errorf(annals.ECONFLICT, "run %q already belongs to another chat", run.ID)
	}
	started := run.StartedAt
	if started.IsZero() {
		started = w.now
	}
	var ended *int64
	if run.EndedAt != nil {
		e := unixNano(*run.EndedAt)
		ended = &e
	}
	// On update, a zero StartedAt keeps the stored start: a run recorded as running and later
	// as completed often only knows its start the first time.
	_, err = w.exec(`INSERT INTO runs (id, chat_pk, status, model, started_at, ended_at, input_tokens, output_tokens,
			cache_read_tokens, cache_creation_tokens, context_tokens, cost_usd, kind)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status,
			model = CASE WHEN excluded.model <> '' THEN excluded.model ELSE runs.model END,
			started_at = CASE WHEN ? THEN excluded.started_at ELSE runs.started_at END,
			ended_at = coalesce(excluded.ended_at, runs.ended_at),
			input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
			cache_read_tokens = excluded.cache_read_tokens, cache_creation_tokens = excluded.cache_creation_tokens,
			context_tokens = excluded.context_tokens, cost_usd = excluded.cost_usd`,
		run.ID, chat.pk, string(run.Status), run.Model, unixNano(started), ended,
		run.InputTokens, run.OutputTokens, run.CacheReadTokens, run.CacheCreationTokens, run.ContextTokens,
		run.CostUSD, string(kind), !run.StartedAt.IsZero())
	if err != nil {
		return err
	}
	// The run as stored now, by the upsert's rules, for the chat's last activity.
	start, end := unixNano(started), int64(0)
	if run.StartedAt.IsZero() && owner.Valid {
		start = storedStart.Int64
	}
	switch {
	case ended != nil:
		end = *ended
	case owner.Valid && storedEnd.Valid:
		end = storedEnd.Int64
	}
	activity := max(start, end)
	if !kind.Activity() {
		activity = 0 // annals' own call for the chat: its totals, never its activity
	}
	w.touchRuns(chat.pk, activity)
	if w.changes != nil {
		// The start and kind as stored: the remote's upsert then keeps the same ones.
		cp := *run
		cp.StartedAt, cp.Kind = fromNano(start), kind
		w.changes.Add(&annals.OpPayload{Run: &cp})
	}
	res.RunsRecorded++
	return nil
}

// touchRuns notes that a run of the chat was recorded, with its latest start or end.
func (w *writer) touchRuns(chatPK, activity int64) {
	if w.runTouch == nil {
		w.runTouch = map[int64]*runTouch{}
	}
	t, ok := w.runTouch[chatPK]
	if !ok {
		t = &runTouch{activity: activity}
		w.runTouch[chatPK] = t
		w.runChats = append(w.runChats, chatPK)
	}
	t.activity = max(t.activity, activity)
	t.op = w.op
}

// flushRuns recomputes, once per chat and before commit, the run totals and status of every
// chat whose runs the transaction recorded, from its runs, so they can never drift (the status
// from the chat's own runs only, annals.RunKind); and raises its last activity to the latest
// start or end its own runs carried. An ingest records a run
// every few entries, so doing this per chat per transaction rather than per run record, in one
// pass over the runs (count, sums and "any running" together, assigned as a row value) instead
// of a pass per total, takes most of the cost of runs out of an ingest. Token sums use total()
// cast to an integer, which is exact below 2^53 and saturates at the int64 limit where sum()
// would fail the write with an integer overflow. Nothing reads these
// columns between the ops of a transaction; the sums visit the runs in the same order as before
// (the runs_by_chat index), so float totals do not change. It stays a plain single-row UPDATE:
// an UPDATE ... FROM would open a statement journal, and every statement journal makes FTS5
// flush the entries indexed so far in the transaction to a new segment.
func (w *writer) flushRuns() error {
	for _, pk := range w.runChats {
		t := w.runTouch[pk]
		_, err := w.exec(`UPDATE chats SET (run_count, run_input_tokens, run_output_tokens, cost_usd, status) = (
				SELECT count(*), CAST(total(input_tokens) AS INTEGER), CAST(total(output_tokens) AS INTEGER), coalesce(sum(cost_usd), 0),
					CASE WHEN max(status = 'running' AND kind = '') THEN 'running'
						ELSE coalesce((SELECT r.status FROM runs r WHERE r.chat_pk = chats.pk AND r.kind = ''
							ORDER BY r.started_at DESC, r.pk DESC LIMIT 1), '') END
				FROM runs WHERE chat_pk = chats.pk),
			last_activity = max(last_activity, ?)
		WHERE pk = ?`, t.activity, pk)
		if err != nil {
			return &annals.BatchError{Index: t.op, Err: err}
		}
	}
	w.runChats, w.runTouch = nil, nil
	return nil
}

func nonNilAttrs(a annals.Attributes) annals.Attributes {
	if a == nil {
		return annals.Attributes{}
	}
	return a
}

// joinTags stores tags newline-separated: validation forbids control characters inside a tag,
// so the separator can never be ambiguous, and the FTS tokenizer treats it as a word break.
func joinTags(tags []string) string { return strings.Join(tags, "\n") }

func splitTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func joinSources(ids []string) string { return strings.Join(ids, "\n") }

func splitSources(s string) []string { return splitTags(s) }

// markFresh records that this transaction appended to the chat from seq first on.
func (w *writer) markFresh(chatPK, first int64) {
	if w.fresh == nil {
		w.fresh = map[int64]int64{}
	}
	if f, ok := w.fresh[chatPK]; !ok || first < f {
		w.fresh[chatPK] = first
	}
}

// netAppends counts a truncation that removed n entries, own of them appended by the same batch:
// those were neither there before nor are they after, so the batch reports them as neither
// appended nor removed (re-ingesting a file that replays a rewind reports nothing).
func netAppends(res *annals.CaptureResult, n, own int) {
	res.EntriesAppended -= own
	res.EntriesRemoved += n - own
}
