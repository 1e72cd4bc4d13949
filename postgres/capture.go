package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// Capture applies ops in order in one transaction; see annals.CaptureStore.
func (db *DB) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	return db.capture(ctx, ops)
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
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		res = annals.CaptureResult{} // a retried transaction starts counting again
		return db.captureIn(ctx, tx, ops, &res)
	})
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
func (db *DB) captureIn(ctx context.Context, tx pgx.Tx, ops []annals.CaptureOp, res *annals.CaptureResult) error {
	return db.captureDocs(ctx, tx, ops, res, nil)
}

// captureTx is what a transaction applying several captures one after the other (a replicated
// batch, ApplyReplicas) keeps from one to the next, so that each capture pays for none of it
// again: the chats whose documents the transaction refreshes once before it commits, the
// statement plan mode set, the outbox host read, and the chats locked. A capture of the batch
// then costs the round trips of its own statements only (a 50-operation request paid four more
// per operation). After a rollback to a savepoint, forget drops what it may have undone.
type captureTx struct {
	// batch defers the document refresh to the caller, which refreshes docs before it commits.
	batch    bool
	docs     []int64
	planned  bool
	hostRead bool
	host     *storecore.OutboxHost
	chats    map[string]*chatRef
}

// forget drops what a rollback to a savepoint, a delete or an update may have changed: the plan
// mode (SET LOCAL is undone with the subtransaction), the host and the chats read.
func (s *captureTx) forget() {
	s.planned, s.hostRead, s.host, s.chats = false, false, nil, nil
}

// captureDocs is captureIn, which, given a batch's st, adds to st.docs the chats whose documents need a
// refresh (refreshDocsIn) instead of refreshing them, and keeps in st what the next capture of
// the same transaction reuses: the caller applies more in the same transaction.
func (db *DB) captureDocs(ctx context.Context, tx pgx.Tx, ops []annals.CaptureOp, res *annals.CaptureResult, st *captureTx) error {
	if st == nil {
		st = &captureTx{}
	}
	w := &writer{db: db, tx: tx, ctx: ctx, now: db.now().UTC(), res: res, chats: st.chats, goDocs: !st.batch}
	// A capture's statements are lookups by key whatever their values, so they keep one plan
	// per connection (PL/pgSQL's, too) instead of planning each run, as the connection's
	// force_custom_plan (for searches, db.go) would have them do.
	if !st.planned {
		if _, err := tx.Exec(ctx, `SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
			return db.storeErr("capture", err)
		}
		st.planned = true
	}
	if !st.hostRead {
		host, err := db.outboxHost(ctx, tx)
		if err != nil {
			return err
		}
		st.host, st.hostRead = host, true
	}
	host := st.host
	if host != nil {
		w.changes = &storecore.Changes{}
	}
	if err := w.lockChats(ops); err != nil {
		return err
	}
	for i := range ops {
		w.op = i
		before := *res
		if err := w.apply(&ops[i], res); err != nil {
			return w.batchError(i, err)
		}
		if storecore.CaptureChanged(&before, res) {
			db.feedMarks.Touch(tx, storecore.OpChatID(&ops[i]), "", false)
		}
	}
	w.emitAppends(res)
	if err := w.recountRuns(); err != nil {
		return err
	}
	if st.batch {
		st.docs = addChats(st.docs, w.docChats)
		w.docChats = nil
	}
	st.chats = w.chats
	if err := w.refreshDocs(); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	return db.writeOutbox(ctx, tx, host, w.changes)
}

// writer applies capture ops inside one transaction. Statements whose results no later op
// needs in Go (entry inserts, run upserts, counter updates) are queued and sent together in one
// round trip (flush): in order, inside the transaction, so they see each other's writes exactly
// as if run one by one, and a failure still rolls back the whole batch. Each queued statement
// remembers its op, so the error names the op that failed.
type writer struct {
	db  *DB
	ctx context.Context
	tx  pgx.Tx
	now time.Time
	// op is the index of the op being applied.
	op int
	// chats caches the chats this transaction has locked (or created). The row lock is held until
	// the transaction ends, so a batch of many ops on one chat locks and reads it once.
	chats map[string]*chatRef
	// pending are the queued statements, readers their result checks, in order.
	pending *pgx.Batch
	readers []pendingResult
	// docChats are the chats whose documents refreshDocs brings up to date before commit, by
	// SQL (annals_refresh_chat_docs).
	docChats []int64
	// goDocs has the documents of the chats a transaction only appends to merged in Go
	// (search_docs_build.go), the new entries' vectors kept in docNew; a batch whose caller
	// refreshes once at its end (captureTx.batch) leaves them to SQL.
	goDocs bool
	docNew map[int64]*docAppend
	// fresh is, per chat, the first seq this transaction appended: a truncation that removes
	// entries from there on takes back the batch's own appends (netAppends).
	fresh map[int64]int64
	// changes collects the replication payloads of the ops applied; nil when the outbox is off.
	changes *storecore.Changes
	// res is the batch's result, which queued statements' readers fill in.
	res *annals.CaptureResult
	// appends are the appends not sent yet (capture_append.go).
	appends appendBuf
	// runChats are the chats whose run totals and status recountRuns brings up to date before
	// the transaction's statements end, with the latest activity of their runs (capture_runs.go).
	runChats map[int64]*runActivity
}

// pendingResult reads one queued statement's result; op is the index of the op that queued it.
type pendingResult struct {
	op   int
	read func(br pgx.BatchResults) error
}

// maxPending bounds the queue: a capture batch of thousands of ops is sent in a few round trips,
// not held whole in memory twice.
const maxPending = 256

// queue adds a statement (with ? placeholders) and the function that checks its result.
func (w *writer) queue(read func(br pgx.BatchResults) error, query string, args ...any) error {
	w.enqueue(w.op, read, query, args...)
	if w.pending.Len() >= maxPending {
		return w.flush()
	}
	return nil
}

// enqueue adds a statement queued for op, without flushing.
func (w *writer) enqueue(op int, read func(br pgx.BatchResults) error, query string, args ...any) {
	if w.pending == nil {
		w.pending = &pgx.Batch{}
	}
	w.pending.Queue(rebind(query), args...)
	w.readers = append(w.readers, pendingResult{op: op, read: read})
}

// execResult is the reader of a statement whose only result is success.
func execResult(br pgx.BatchResults) error {
	_, err := br.Exec()
	return err
}

// flush sends the buffered appends and the queued statements and checks their results in
// order. The first failure is returned as a *annals.BatchError naming the op that queued the
// statement (for the appends, the first op of the buffer).
func (w *writer) flush() error {
	w.emitAppends(w.res)
	if w.pending == nil || w.pending.Len() == 0 {
		return nil
	}
	b, readers := w.pending, w.readers
	w.pending, w.readers = nil, nil
	br := w.tx.SendBatch(w.ctx, b)
	var first error
	for _, r := range readers {
		if err := r.read(br); err != nil {
			first = w.batchError(r.op, err)
			break
		}
	}
	if err := br.Close(); err != nil && first == nil {
		first = w.db.storeErr("flush", err)
	}
	return first
}

// batchError wraps an op's failure, classifying driver errors.
func (w *writer) batchError(op int, err error) error {
	var be *annals.BatchError
	if errors.As(err, &be) {
		return err
	}
	return &annals.BatchError{Index: op, Err: w.db.storeErr("capture", err)}
}

func (w *writer) exec(query string, args ...any) (int64, error) {
	tag, err := w.tx.Exec(w.ctx, rebind(query), args...)
	if err != nil {
		return 0, w.db.storeErr("exec", err)
	}
	return tag.RowsAffected(), nil
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

// lockChats locks, in id order, every existing chat that ops write to, before any op runs. Two
// batches that touch the same chats in different orders would otherwise deadlock (each holding
// one chat the other needs); taking the locks in one global order makes them queue instead.
func (w *writer) lockChats(ops []annals.CaptureOp) error {
	seen := map[string]bool{}
	var ids []string
	for _, op := range ops {
		if id := op.TargetID(); id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) < 2 {
		return nil // one chat: findChat takes its lock, and there is no order to get wrong
	}
	if _, err := w.tx.Exec(w.ctx, `SELECT 1 FROM (SELECT id FROM chats WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE) l`, ids); err != nil {
		return w.db.storeErr("lock chats", err)
	}
	return nil
}

// chatRef is what the write path needs to know about an existing chat.
type chatRef struct {
	pk       int64
	tenantID string
	owner    annals.ChatOwner
}

// findTarget finds and locks the chat an op writes to. With expect set, a chat of another owner
// is the same not-found as no chat: the caller checked a chat with that owner, and this one
// (created under the same id since) is not it. The row lock holds until commit, so the owner
// seen here is the owner the write lands on.
func (w *writer) findTarget(id string, expect *annals.ChatOwner) (*chatRef, error) {
	c, err := w.findChat(id)
	if err != nil {
		return nil, err
	}
	if expect != nil && *expect != c.owner {
		return nil, annals.NotFound(id)
	}
	return c, nil
}

// findChat reads a chat and locks its row until the transaction ends: every write to a chat's
// entries, runs or counters goes through here first, so concurrent writers to one chat (from
// any number of servers) queue on this lock and each sees the rows the previous one committed.
func (w *writer) findChat(id string) (*chatRef, error) {
	if c, ok := w.chats[id]; ok {
		return c, nil
	}
	var c chatRef
	err := w.tx.QueryRow(w.ctx, `SELECT pk, tenant_id, user_id, agent_id FROM chats WHERE id = $1 FOR UPDATE`, id).Scan(&c.pk, &c.tenantID, &c.owner.UserID, &c.owner.AgentID)
	c.owner.TenantID = c.tenantID
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, annals.NotFound(id)
	}
	if err != nil {
		return nil, w.db.storeErr("find chat", err)
	}
	if w.chats == nil {
		w.chats = map[string]*chatRef{}
	}
	w.chats[id] = &c
	return &c, nil
}

func (w *writer) createChat(c *annals.Chat, res *annals.CaptureResult) error {
	created := c.CreatedAt
	if created.IsZero() {
		created = w.now
	}
	attrs, err := json.Marshal(nonNilAttrs(c.Attributes))
	if err != nil {
		return annals.Internal("encode attributes", err)
	}
	tags := dedupe(c.Tags)
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
	// ON CONFLICT DO NOTHING waits for a concurrent creator of the same id to finish, then skips:
	// two servers creating one chat at once both succeed, one of them as "unchanged".
	var pk int64
	err = w.tx.QueryRow(w.ctx, rebind(`INSERT INTO chats (id, tenant_id, user_id, agent_id, attributes, created_at, last_activity,
			title, title_fold, description, tags, pinned, archived_at, summary, summary_updated_at, incarnation, title_generated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING RETURNING pk`),
		c.ID, c.TenantID, c.UserID, c.AgentID, string(attrs), unixNano(created), unixNano(created),
		[]byte(c.Title), []byte(strings.ToLower(c.Title)), []byte(c.Description), tags,
		c.Pinned, archived, []byte(c.Summary), summarized, rand.Int64(), c.Title != "" && c.TitleGenerated).Scan(&pk)
	if errors.Is(err, pgx.ErrNoRows) {
		existing, err := w.immutableOf(c.ID)
		if err != nil {
			return err
		}
		if existing == nil || !existing.SameImmutable(c) {
			return annals.Errorf(annals.ECONFLICT, "chat %q already exists with different immutable data (tenant, user, agent or attributes cannot change after creation)", c.ID)
		}
		res.ChatsUnchanged++
		return nil
	}
	if err != nil {
		return w.db.storeErr("create chat", err)
	}
	if w.chats == nil {
		w.chats = map[string]*chatRef{}
	}
	// The new row is this transaction's until it commits: as good as locked.
	w.chats[c.ID] = &chatRef{pk: pk, tenantID: c.TenantID, owner: c.OwnedBy()}
	if w.changes != nil {
		w.changes.Add(storecore.ChatPayload(c, created))
	}
	res.ChatsCreated++
	if err := w.queue(execResult, `INSERT INTO chat_meta (chat_pk, tenant_id, tags, meta_tsv) VALUES (?, ?, ?, ?)`,
		pk, c.TenantID, tags, metaTSV(c.Title, c.Description, c.Summary, tags)); err != nil {
		return err
	}
	if err := w.queue(execResult, `INSERT INTO chat_id_keys (tenant_id, key, chat_pk) SELECT ?, k, ? FROM unnest(?::text[]) AS a(k)`,
		c.TenantID, pk, storecore.ChatIDKeys(c.ID)); err != nil {
		return err
	}
	if len(c.Attributes) > 0 {
		keys := make([]string, 0, len(c.Attributes))
		values := make([][]byte, 0, len(c.Attributes))
		for k, v := range c.Attributes {
			keys = append(keys, k)
			values = append(values, []byte(v))
		}
		return w.queue(execResult, `INSERT INTO chat_attributes (tenant_id, chat_pk, key, value)
			SELECT ?, ?, k, v FROM unnest(?::text[], ?::bytea[]) AS a(k, v)`, c.TenantID, pk, keys, values)
	}
	return nil
}

// immutableOf returns the immutable data of a stored chat, or nil when there is none.
func (w *writer) immutableOf(id string) (*annals.Chat, error) {
	var c annals.Chat
	var attrs string
	err := w.tx.QueryRow(w.ctx, `SELECT tenant_id, user_id, agent_id, attributes FROM chats WHERE id = $1`, id).
		Scan(&c.TenantID, &c.UserID, &c.AgentID, &attrs)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, w.db.storeErr("find chat", err)
	}
	if err := json.Unmarshal([]byte(attrs), &c.Attributes); err != nil {
		return nil, annals.Internal("decode attributes", err)
	}
	return &c, nil
}

// appendPayload is the payload of an append that stored the entries ids names, numbered from
// base+1: each the first entry of op with its id, with its time as stamped (times, by position).
func appendPayload(op *annals.AppendOp, ids []string, base int64, times []int64) *annals.OpPayload {
	first := make(map[string]int, len(op.Entries))
	for i, e := range op.Entries {
		if _, ok := first[e.ID]; !ok {
			first[e.ID] = i
		}
	}
	added := make([]*annals.Entry, 0, len(ids))
	for i, id := range ids {
		at := first[id]
		added = append(added, storecore.AppendedEntry(op.Entries[at], op.ChatID, base+int64(i)+1, fromNano(times[at])))
	}
	return &annals.OpPayload{Append: &annals.AppendOp{ChatID: op.ChatID, Entries: added}}
}

func (w *writer) truncate(op *annals.TruncateOp, expect *annals.ChatOwner, res *annals.CaptureResult) error {
	chat, err := w.findTarget(op.ChatID, expect)
	if err != nil {
		return err
	}
	// The truncation point is looked up in Go, among the rows queued appends write.
	if err := w.flush(); err != nil {
		return err
	}
	var from *int64
	var what string
	p := op.Point
	switch {
	case p.EntryID != "":
		what = "entry with id " + quote(p.EntryID)
		err = w.tx.QueryRow(w.ctx, `SELECT seq FROM entries WHERE chat_pk = $1 AND id = $2`, chat.pk, p.EntryID).Scan(&from)
	case p.SourceID != "":
		what = "entry with source id " + quote(p.SourceID)
		err = w.tx.QueryRow(w.ctx, `SELECT min(seq) FROM entry_sources WHERE chat_pk = $1 AND source_id = $2`, chat.pk, p.SourceID).Scan(&from)
	default:
		what = "entry at seq " + itoa(p.Seq)
		err = w.tx.QueryRow(w.ctx, `SELECT seq FROM entries WHERE chat_pk = $1 AND seq = $2`, chat.pk, p.Seq).Scan(&from)
	}
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return w.db.storeErr("find truncation point", err)
	}
	if from == nil {
		return annals.Errorf(annals.ENOTFOUND, "chat %q has no %s to truncate from", op.ChatID, what)
	}
	var own int64
	if first, ok := w.fresh[chat.pk]; ok {
		if err := w.tx.QueryRow(w.ctx, `SELECT count(*) FROM entries WHERE chat_pk = $1 AND seq >= $2`, chat.pk, max(first, *from)).Scan(&own); err != nil {
			return w.db.storeErr("count the batch's own entries", err)
		}
	}
	var fromID string
	if w.changes != nil {
		if err := w.tx.QueryRow(w.ctx, `SELECT id FROM entries WHERE chat_pk = $1 AND seq = $2`, chat.pk, *from).Scan(&fromID); err != nil {
			return w.db.storeErr("find truncation point", err)
		}
	}
	n, err := w.exec(`DELETE FROM entries WHERE chat_pk = ? AND seq >= ?`, chat.pk, *from)
	if err != nil {
		return err
	}
	netAppends(res, int(n), int(own))
	if w.changes != nil {
		w.changes.Add(&annals.OpPayload{Truncate: &annals.TruncateChange{ChatID: op.ChatID, EntryID: fromID, Seq: *from, Removed: int(n)}})
	}
	res.LastSeq = *from - 1
	if err := w.docChanged(chat.pk, true); err != nil {
		return err
	}
	// Recount from the rows that remain rather than subtracting, so counters can never drift;
	// the revision moves on by the entries removed (annals.Chat.Revision).
	_, err = w.exec(`UPDATE chats SET
			last_seq = ? - 1,
			revision = revision + ?,
			entry_count = (SELECT count(*) FROM entries WHERE chat_pk = chats.pk),
			entry_input_tokens = (SELECT least(coalesce(sum(input_tokens), 0), 9223372036854775807) FROM entries WHERE chat_pk = chats.pk),
			entry_output_tokens = (SELECT least(coalesce(sum(output_tokens), 0), 9223372036854775807) FROM entries WHERE chat_pk = chats.pk)
		WHERE pk = ?`, *from, n, chat.pk)
	return err
}

func nonNilAttrs(a annals.Attributes) annals.Attributes {
	if a == nil {
		return annals.Attributes{}
	}
	return a
}

func dedupe(tags []string) []string {
	seen := make(map[string]bool, len(tags))
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

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
