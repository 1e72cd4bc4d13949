package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// The remote side of replication on PostgreSQL (docs/REPLICATION.md, migration 0012).

var _ annals.ReplicaStore = (*DB)(nil)

const replicaLaneColumns = `chat_id, tenant_id, last_seq, last_digest, host_id, deleted, updated_at`

// ReplicaLanes returns the remote's record of every lane of the named chats; see
// annals.ReplicaStore.
func (db *DB) ReplicaLanes(ctx context.Context, chatIDs []string) ([]*annals.ReplicaLane, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+replicaLaneColumns+` FROM replica_lanes WHERE chat_id = ANY($1) ORDER BY chat_id, host_id`, chatIDs)
	if err != nil {
		return nil, db.storeErr("read replica lanes", err)
	}
	defer rows.Close()
	out := []*annals.ReplicaLane{}
	for rows.Next() {
		l, err := db.scanReplicaLane(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("read replica lanes", err)
	}
	return out, nil
}

func (db *DB) scanReplicaLane(row pgx.Row) (*annals.ReplicaLane, error) {
	var l annals.ReplicaLane
	var updated int64
	if err := row.Scan(&l.ChatID, &l.TenantID, &l.Seq, &l.Digest, &l.Host, &l.Deleted, &updated); err != nil {
		return nil, db.storeErr("read replica lane", err)
	}
	l.UpdatedAt = fromNano(updated)
	return &l, nil
}

// ReplicaOpsApplied reports which operation ids were applied; see annals.ReplicaStore.
func (db *DB) ReplicaOpsApplied(ctx context.Context, opIDs []string) (map[string]bool, error) {
	rows, err := db.pool.Query(ctx, `SELECT op_id FROM replica_ops WHERE op_id = ANY($1)`, opIDs)
	if err != nil {
		return nil, db.storeErr("read replica operations", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, db.storeErr("read replica operations", err)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("read replica operations", err)
	}
	return out, nil
}

// ApplyReplica applies one replicated change with the record of its id; see
// annals.ReplicaStore. The lane's row is locked first, so deliveries of one lane through any
// number of servers apply one after the other, and a redelivery finds its id recorded.
func (db *DB) ApplyReplica(ctx context.Context, ch *annals.ReplicaChange) (annals.ReplicaOutcome, *annals.ReplicaLane, error) {
	if err := ch.Validate(); err != nil {
		return 0, nil, err
	}
	var outcome annals.ReplicaOutcome
	var lane *annals.ReplicaLane
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		r := newReplicaTx(ctx, db, tx, nil)
		var err error
		outcome, lane, err = storecore.ApplyReplica(r, ch, db.now())
		if err == nil && outcome != annals.ReplicaApplied {
			return storecore.ErrReplicaUnchanged
		}
		if err != nil {
			return err
		}
		return r.send()
	})
	if err != nil && !errors.Is(err, storecore.ErrReplicaUnchanged) {
		return 0, nil, err
	}
	return outcome, lane, nil
}

// ApplyReplicas applies several changes of one lane in one transaction; see
// annals.ReplicaBatchStore. The documents of the chats they append to are refreshed once, before
// the commit, rather than once per change: a lane of a 1,000-entry chat delivered in 21
// operations merges its entries into the chat's last part once instead of 21 times, and the
// request pays one commit (one flush of the WAL to disk) instead of 21. Inside the transaction a
// change costs two round trips in the common case (its savepoint with the previous change's
// records, and its capture's statements) where it cost about ten (replicaTx).
func (db *DB) ApplyReplicas(ctx context.Context, chs []*annals.ReplicaChange) ([]annals.ReplicaResult, error) {
	var out []annals.ReplicaResult
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		r := newReplicaTx(ctx, db, tx, chs)
		r.capture.batch = true
		var err error
		if out, err = storecore.ApplyReplicas(r, chs, db.now()); err != nil {
			return err
		}
		if storecore.ReplicasApplied(out) == 0 {
			return storecore.ErrReplicaUnchanged
		}
		if err := r.send(); err != nil {
			return err
		}
		return db.refreshDocsIn(ctx, tx, r.capture.docs)
	})
	if err != nil && !errors.Is(err, storecore.ErrReplicaUnchanged) {
		return nil, err
	}
	return out, nil
}

// replicaTx is storecore.ReplicaTx over a PostgreSQL transaction. It saves the round trips a
// batch of changes of one lane would repeat for each change:
//   - a lane it locked is held to the commit and changed only through it, so the next change's
//     LockLane answers from the record it last set (lanes);
//   - an operation's id is recorded only by a delivery holding its lane's lock, so once the lane
//     is locked whether the batch's ids are recorded cannot change but through this
//     transaction: the ids of the batch's changes on locked lanes are read in one query (applied);
//   - the records of an applied change (RecordOp, SetLane), which nothing in Go reads back, wait
//     in pending and go with the next statement (the next change's savepoint);
//   - the captures share their transaction's state (captureTx).
//
// A rollback to the savepoint forgets all of it (and the records queued since the savepoint).
type replicaTx struct {
	db  *DB
	ctx context.Context
	tx  pgx.Tx
	// batch is the changes of ApplyReplicas (nil for one change), whose ids applied caches.
	batch   []*annals.ReplicaChange
	lanes   map[laneKey]*annals.ReplicaLane
	applied map[string]bool
	pending *pgx.Batch
	capture *captureTx
}

type laneKey struct{ chat, host string }

func newReplicaTx(ctx context.Context, db *DB, tx pgx.Tx, batch []*annals.ReplicaChange) *replicaTx {
	return &replicaTx{db: db, ctx: ctx, tx: tx, batch: batch, capture: &captureTx{},
		lanes: map[laneKey]*annals.ReplicaLane{}, applied: map[string]bool{}}
}

// send sends the queued records, with more statements after them (nil: none) in the same round
// trip.
func (r *replicaTx) send(more ...string) error {
	b := r.pending
	r.pending = nil
	if b == nil {
		b = &pgx.Batch{}
	}
	for _, q := range more {
		b.Queue(q)
	}
	if b.Len() == 0 {
		return nil
	}
	if err := r.tx.SendBatch(r.ctx, b).Close(); err != nil {
		return r.db.storeErr("apply replica", err)
	}
	return nil
}

// queue adds a record to send with the next statement.
func (r *replicaTx) queue(query string, args ...any) {
	if r.pending == nil {
		r.pending = &pgx.Batch{}
	}
	r.pending.Queue(query, args...)
}

// forget drops what was read or queued since the last savepoint (or ever): after a rollback to
// it, or a change of a chat outside capture.
func (r *replicaTx) forget() {
	r.lanes, r.applied, r.pending = map[laneKey]*annals.ReplicaLane{}, map[string]bool{}, nil
	r.capture.forget()
}

func (r *replicaTx) Savepoint() error {
	return r.send(`SAVEPOINT replica_change`)
}

func (r *replicaTx) RollbackToSavepoint() error {
	r.forget()
	if _, err := r.tx.Exec(r.ctx, `ROLLBACK TO SAVEPOINT replica_change`); err != nil {
		return r.db.storeErr("roll back to savepoint", err)
	}
	return nil
}

func (r *replicaTx) LockLane(chatID, host string) (*annals.ReplicaLane, error) {
	key := laneKey{chatID, host}
	if l, ok := r.lanes[key]; ok {
		cp := *l
		return &cp, nil
	}
	if err := r.send(); err != nil {
		return nil, err
	}
	// A new lane's row is inserted first, so that its first deliveries queue on it too; a
	// delivery that changes nothing rolls it back. Both statements go in one round trip.
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO replica_lanes (chat_id, host_id, last_seq, last_digest, updated_at) VALUES ($1, $2, 0, '', 0)
		ON CONFLICT (chat_id, host_id) DO NOTHING`, chatID, host)
	b.Queue(`SELECT `+replicaLaneColumns+` FROM replica_lanes WHERE chat_id = $1 AND host_id = $2 FOR UPDATE`, chatID, host)
	br := r.tx.SendBatch(r.ctx, b)
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return nil, r.db.storeErr("create replica lane", err)
	}
	l, err := r.db.scanReplicaLane(br.QueryRow())
	if cerr := br.Close(); err == nil && cerr != nil {
		err = r.db.storeErr("lock replica lane", cerr)
	}
	if err != nil {
		return nil, err
	}
	cp := *l
	r.lanes[key] = &cp
	return l, nil
}

func (r *replicaTx) DropLane(chatID, host string) error {
	delete(r.lanes, laneKey{chatID, host})
	if err := r.send(); err != nil {
		return err
	}
	if _, err := r.tx.Exec(r.ctx, `DELETE FROM replica_lanes WHERE chat_id = $1 AND host_id = $2`, chatID, host); err != nil {
		return r.db.storeErr("drop replica lane", err)
	}
	return nil
}

// FieldStamps locks the chat's stamps (the chat's row is already locked by the write paths; a
// curation of a chat from two servers queues on it) and returns them.
func (r *replicaTx) FieldStamps(chatID string) (map[string]annals.FieldStamp, error) {
	if err := r.send(); err != nil {
		return nil, err
	}
	if _, err := r.tx.Exec(r.ctx, `SELECT 1 FROM chats WHERE id = $1 FOR UPDATE`, chatID); err != nil {
		return nil, r.db.storeErr("lock chat", err)
	}
	return r.db.fieldStamps(r.ctx, r.tx, chatID)
}

func (r *replicaTx) SetFieldStamps(chatID string, fields []string, s annals.FieldStamp) error {
	if err := r.send(); err != nil {
		return err
	}
	return r.db.setFieldStamps(r.ctx, r.tx, chatID, fields, s)
}

// FindChat reads the chat, in the transaction (not_found: none).
func (r *replicaTx) FindChat(chatID string) (*annals.Chat, error) {
	if err := r.send(); err != nil {
		return nil, err
	}
	return r.db.findChatByID(r.ctx, r.tx, chatID)
}

// fieldStamps reads the stamps of a chat's human layer (replica_fields).
func (db *DB) fieldStamps(ctx context.Context, tx querier, chatID string) (map[string]annals.FieldStamp, error) {
	rows, err := tx.Query(ctx, `SELECT field, hlc, host_id FROM replica_fields WHERE chat_id = $1`, chatID)
	if err != nil {
		return nil, db.storeErr("read field stamps", err)
	}
	defer rows.Close()
	out := map[string]annals.FieldStamp{}
	for rows.Next() {
		var field string
		var s annals.FieldStamp
		if err := rows.Scan(&field, &s.HLC, &s.Host); err != nil {
			return nil, db.storeErr("read field stamps", err)
		}
		out[field] = s
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("read field stamps", err)
	}
	return out, nil
}

// setFieldStamps stores the stamp of the named fields of a chat's human layer.
func (db *DB) setFieldStamps(ctx context.Context, tx pgx.Tx, chatID string, fields []string, s annals.FieldStamp) error {
	if _, err := tx.Exec(ctx, `INSERT INTO replica_fields (chat_id, field, hlc, host_id) SELECT $1, f, $3, $4 FROM unnest($2::text[]) AS f
		ON CONFLICT (chat_id, field) DO UPDATE SET hlc = excluded.hlc, host_id = excluded.host_id`, chatID, fields, s.HLC, s.Host); err != nil {
		return db.storeErr("write field stamps", err)
	}
	return nil
}

// OpApplied answers from the ids of the batch's changes on the lanes this transaction holds,
// read in one query the first time one of them is asked for (replicaTx).
func (r *replicaTx) OpApplied(opID string) (bool, error) {
	if known, ok := r.applied[opID]; ok {
		return known, nil
	}
	if err := r.send(); err != nil {
		return false, err
	}
	ids := []string{opID}
	for _, ch := range r.batch {
		if _, held := r.lanes[laneKey{ch.ChatID, ch.Host}]; held && ch.OpID != opID {
			if _, ok := r.applied[ch.OpID]; !ok {
				ids = append(ids, ch.OpID)
			}
		}
	}
	rows, err := r.tx.Query(r.ctx, `SELECT op_id FROM replica_ops WHERE op_id = ANY($1)`, ids)
	if err != nil {
		return false, r.db.storeErr("read replica operations", err)
	}
	defer rows.Close()
	found := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return false, r.db.storeErr("read replica operations", err)
		}
		found[id] = true
	}
	if err := rows.Err(); err != nil {
		return false, r.db.storeErr("read replica operations", err)
	}
	for _, id := range ids {
		r.applied[id] = found[id]
	}
	return found[opID], nil
}

// RecordOp queues the record of the operation's id, sent with the next statement.
func (r *replicaTx) RecordOp(ch *annals.ReplicaChange, at time.Time) error {
	r.queue(`INSERT INTO replica_ops (op_id, chat_id, lane_seq, applied_at) VALUES ($1, $2, $3, $4)`,
		ch.OpID, ch.ChatID, ch.LaneSeq, unixNano(at))
	r.applied[ch.OpID] = true
	return nil
}

// SetLane queues the lane's new record, sent with the next statement, and answers the lane's
// next LockLane from it: the lane is locked until the commit.
func (r *replicaTx) SetLane(l *annals.ReplicaLane) error {
	r.queue(`UPDATE replica_lanes SET tenant_id = $3, last_seq = $4, last_digest = $5, deleted = $6, updated_at = $7
		WHERE chat_id = $1 AND host_id = $2`, l.ChatID, l.Host, l.TenantID, l.Seq, l.Digest, l.Deleted, unixNano(l.UpdatedAt))
	cp := *l
	r.lanes[laneKey{l.ChatID, l.Host}] = &cp
	return nil
}

func (r *replicaTx) Capture(ops []annals.CaptureOp) error {
	if err := r.send(); err != nil {
		return err
	}
	var res annals.CaptureResult
	return r.db.captureDocs(r.ctx, r.tx, ops, &res, r.capture)
}

// Update, Delete and AdoptAgent change a chat outside capture (its row, its owner, or whether it
// exists): the chats the captures locked and read are read again after them.
func (r *replicaTx) Update(ref annals.ChatRef, upd annals.ChatUpdate, at time.Time) error {
	if err := r.send(); err != nil {
		return err
	}
	r.capture.chats = nil
	_, err := r.db.updateChatIn(r.ctx, r.tx, ref, upd, at)
	return err
}

func (r *replicaTx) Delete(ref annals.ChatRef) error {
	if err := r.send(); err != nil {
		return err
	}
	r.capture.chats = nil
	return r.db.deleteChatIn(r.ctx, r.tx, ref)
}

func (r *replicaTx) AdoptAgent(ref annals.ChatRef, agent string) error {
	if err := r.send(); err != nil {
		return err
	}
	r.capture.chats = nil
	return r.db.adoptAgentIn(r.ctx, r.tx, ref, agent)
}
