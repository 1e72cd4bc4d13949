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
		var err error
		outcome, lane, err = storecore.ApplyReplica(&replicaTx{db: db, ctx: ctx, tx: tx}, ch, db.now())
		if err == nil && outcome != annals.ReplicaApplied {
			return storecore.ErrReplicaUnchanged
		}
		return err
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
// request pays one commit (one flush of the WAL to disk) instead of 21.
func (db *DB) ApplyReplicas(ctx context.Context, chs []*annals.ReplicaChange) ([]annals.ReplicaResult, error) {
	var out []annals.ReplicaResult
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		r := &replicaTx{db: db, ctx: ctx, tx: tx, docs: &[]int64{}}
		var err error
		if out, err = storecore.ApplyReplicas(r, chs, db.now()); err != nil {
			return err
		}
		if storecore.ReplicasApplied(out) == 0 {
			return storecore.ErrReplicaUnchanged
		}
		return db.refreshDocsIn(ctx, tx, *r.docs)
	})
	if err != nil && !errors.Is(err, storecore.ErrReplicaUnchanged) {
		return nil, err
	}
	return out, nil
}

// replicaTx is storecore.ReplicaTx over a PostgreSQL transaction.
type replicaTx struct {
	db  *DB
	ctx context.Context
	tx  pgx.Tx
	// docs, in a batch (ApplyReplicas), collects the chats whose documents the batch refreshes
	// before it commits; nil refreshes them with each change.
	docs *[]int64
}

func (r *replicaTx) Savepoint() error {
	if _, err := r.tx.Exec(r.ctx, `SAVEPOINT replica_change`); err != nil {
		return r.db.storeErr("savepoint", err)
	}
	return nil
}

func (r *replicaTx) RollbackToSavepoint() error {
	if _, err := r.tx.Exec(r.ctx, `ROLLBACK TO SAVEPOINT replica_change`); err != nil {
		return r.db.storeErr("roll back to savepoint", err)
	}
	return nil
}

func (r *replicaTx) LockLane(chatID, host string) (*annals.ReplicaLane, error) {
	// A new lane's row is inserted first, so that its first deliveries queue on it too; a
	// delivery that changes nothing rolls it back.
	if _, err := r.tx.Exec(r.ctx, `INSERT INTO replica_lanes (chat_id, host_id, last_seq, last_digest, updated_at) VALUES ($1, $2, 0, '', 0)
		ON CONFLICT (chat_id, host_id) DO NOTHING`, chatID, host); err != nil {
		return nil, r.db.storeErr("create replica lane", err)
	}
	return r.db.scanReplicaLane(r.tx.QueryRow(r.ctx, `SELECT `+replicaLaneColumns+` FROM replica_lanes WHERE chat_id = $1 AND host_id = $2 FOR UPDATE`, chatID, host))
}

func (r *replicaTx) DropLane(chatID, host string) error {
	if _, err := r.tx.Exec(r.ctx, `DELETE FROM replica_lanes WHERE chat_id = $1 AND host_id = $2`, chatID, host); err != nil {
		return r.db.storeErr("drop replica lane", err)
	}
	return nil
}

// FieldStamps locks the chat's stamps (the chat's row is already locked by the write paths; a
// curation of a chat from two servers queues on it) and returns them.
func (r *replicaTx) FieldStamps(chatID string) (map[string]annals.FieldStamp, error) {
	if _, err := r.tx.Exec(r.ctx, `SELECT 1 FROM chats WHERE id = $1 FOR UPDATE`, chatID); err != nil {
		return nil, r.db.storeErr("lock chat", err)
	}
	return r.db.fieldStamps(r.ctx, r.tx, chatID)
}

func (r *replicaTx) SetFieldStamps(chatID string, fields []string, s annals.FieldStamp) error {
	return r.db.setFieldStamps(r.ctx, r.tx, chatID, fields, s)
}

// FindChat reads the chat, in the transaction (not_found: none).
func (r *replicaTx) FindChat(chatID string) (*annals.Chat, error) {
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

func (r *replicaTx) OpApplied(opID string) (bool, error) {
	var one int
	err := r.tx.QueryRow(r.ctx, `SELECT 1 FROM replica_ops WHERE op_id = $1`, opID).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, r.db.storeErr("read replica operation", err)
	}
	return true, nil
}

func (r *replicaTx) RecordOp(ch *annals.ReplicaChange, at time.Time) error {
	if _, err := r.tx.Exec(r.ctx, `INSERT INTO replica_ops (op_id, chat_id, lane_seq, applied_at) VALUES ($1, $2, $3, $4)`,
		ch.OpID, ch.ChatID, ch.LaneSeq, unixNano(at)); err != nil {
		return r.db.storeErr("record replica operation", err)
	}
	return nil
}

func (r *replicaTx) SetLane(l *annals.ReplicaLane) error {
	if _, err := r.tx.Exec(r.ctx, `UPDATE replica_lanes SET tenant_id = $3, last_seq = $4, last_digest = $5, deleted = $6, updated_at = $7
		WHERE chat_id = $1 AND host_id = $2`, l.ChatID, l.Host, l.TenantID, l.Seq, l.Digest, l.Deleted, unixNano(l.UpdatedAt)); err != nil {
		return r.db.storeErr("write replica lane", err)
	}
	return nil
}

func (r *replicaTx) Capture(ops []annals.CaptureOp) error {
	var res annals.CaptureResult
	return r.db.captureDocs(r.ctx, r.tx, ops, &res, r.docs)
}

func (r *replicaTx) Update(ref annals.ChatRef, upd annals.ChatUpdate, at time.Time) error {
	_, err := r.db.updateChatIn(r.ctx, r.tx, ref, upd, at)
	return err
}

func (r *replicaTx) Delete(ref annals.ChatRef) error { return r.db.deleteChatIn(r.ctx, r.tx, ref) }

func (r *replicaTx) AdoptAgent(ref annals.ChatRef, agent string) error {
	return r.db.adoptAgentIn(r.ctx, r.tx, ref, agent)
}
