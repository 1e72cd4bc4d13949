package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// The remote side of replication on SQLite (docs/REPLICATION.md, migration 0018).

var _ annals.ReplicaStore = (*DB)(nil)

// ReplicaLanes returns the remote's record of every lane of the named chats; see
// annals.ReplicaStore.
func (db *DB) ReplicaLanes(ctx context.Context, chatIDs []string) ([]*annals.ReplicaLane, error) {
	out := []*annals.ReplicaLane{}
	for start := 0; start < len(chatIDs); start += 500 {
		part := chatIDs[start:min(start+500, len(chatIDs))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := db.reader.QueryContext(ctx, `SELECT `+replicaLaneColumns+`
			FROM replica_lanes WHERE chat_id IN (`+placeholders(len(part))+`) ORDER BY chat_id, host_id`, args...)
		if err != nil {
			return nil, storeErr("read replica lanes", err)
		}
		for rows.Next() {
			l, err := scanReplicaLane(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, l)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, storeErr("read replica lanes", err)
		}
	}
	return out, nil
}

const replicaLaneColumns = `chat_id, tenant_id, last_seq, last_digest, host_id, deleted, updated_at`

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func scanReplicaLane(s scanner) (*annals.ReplicaLane, error) {
	var l annals.ReplicaLane
	var updated int64
	if err := s.Scan(&l.ChatID, &l.TenantID, &l.Seq, &l.Digest, &l.Host, &l.Deleted, &updated); err != nil {
		return nil, storeErr("read replica lane", err)
	}
	l.UpdatedAt = fromNano(updated)
	return &l, nil
}

// ReplicaOpsApplied reports which operation ids were applied; see annals.ReplicaStore.
func (db *DB) ReplicaOpsApplied(ctx context.Context, opIDs []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, id := range opIDs {
		var one int
		err := db.reader.QueryRowContext(ctx, `SELECT 1 FROM replica_ops WHERE op_id = ?`, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, storeErr("read replica operations", err)
		}
		out[id] = true
	}
	return out, nil
}

// ApplyReplica applies one replicated change with the record of its id; see
// annals.ReplicaStore.
func (db *DB) ApplyReplica(ctx context.Context, ch *annals.ReplicaChange) (annals.ReplicaOutcome, *annals.ReplicaLane, error) {
	if err := ch.Validate(); err != nil {
		return 0, nil, err
	}
	var outcome annals.ReplicaOutcome
	var lane *annals.ReplicaLane
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
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
// annals.ReplicaBatchStore. The transaction's chat documents and entry indexes are brought up
// to date once, before the commit, instead of once per change.
func (db *DB) ApplyReplicas(ctx context.Context, chs []*annals.ReplicaChange) ([]annals.ReplicaResult, error) {
	var out []annals.ReplicaResult
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		if out, err = storecore.ApplyReplicas(&replicaTx{db: db, ctx: ctx, tx: tx}, chs, db.now()); err != nil {
			return err
		}
		if storecore.ReplicasApplied(out) == 0 {
			return storecore.ErrReplicaUnchanged
		}
		return nil
	})
	if err != nil && !errors.Is(err, storecore.ErrReplicaUnchanged) {
		return nil, err
	}
	return out, nil
}

func (r *replicaTx) Savepoint() error {
	_, err := r.tx.ExecContext(r.ctx, `SAVEPOINT replica_change`)
	return storeErrOrNil("savepoint", err)
}

func (r *replicaTx) RollbackToSavepoint() error {
	_, err := r.tx.ExecContext(r.ctx, `ROLLBACK TO replica_change`)
	return storeErrOrNil("roll back to savepoint", err)
}

// replicaTx is storecore.ReplicaTx over a SQLite write transaction, whose single writer already
// holds every lane.
type replicaTx struct {
	db  *DB
	ctx context.Context
	tx  *sql.Tx
}

func (r *replicaTx) LockLane(chatID, host string) (*annals.ReplicaLane, error) {
	l, err := scanReplicaLane(r.tx.QueryRowContext(r.ctx, `SELECT `+replicaLaneColumns+`
		FROM replica_lanes WHERE chat_id = ? AND host_id = ?`, chatID, host))
	if errors.Is(err, sql.ErrNoRows) {
		return &annals.ReplicaLane{ChatID: chatID, Host: host}, nil
	}
	return l, err
}

func (r *replicaTx) DropLane(chatID, host string) error {
	_, err := r.tx.ExecContext(r.ctx, `DELETE FROM replica_lanes WHERE chat_id = ? AND host_id = ?`, chatID, host)
	return storeErrOrNil("drop replica lane", err)
}

func (r *replicaTx) FieldStamps(chatID string) (map[string]annals.FieldStamp, error) {
	return fieldStamps(r.ctx, r.tx, chatID)
}

func (r *replicaTx) SetFieldStamps(chatID string, fields []string, s annals.FieldStamp) error {
	return setFieldStamps(r.ctx, r.tx, chatID, fields, s)
}

// FindChat reads the chat, in the transaction (not_found: none).
func (r *replicaTx) FindChat(chatID string) (*annals.Chat, error) {
	return findChatByID(r.ctx, r.tx, chatID)
}

// fieldStamps reads the stamps of a chat's human layer (replica_fields).
func fieldStamps(ctx context.Context, tx querier, chatID string) (map[string]annals.FieldStamp, error) {
	rows, err := tx.QueryContext(ctx, `SELECT field, hlc, host_id FROM replica_fields WHERE chat_id = ?`, chatID)
	if err != nil {
		return nil, storeErr("read field stamps", err)
	}
	defer rows.Close()
	out := map[string]annals.FieldStamp{}
	for rows.Next() {
		var field string
		var s annals.FieldStamp
		if err := rows.Scan(&field, &s.HLC, &s.Host); err != nil {
			return nil, storeErr("read field stamps", err)
		}
		out[field] = s
	}
	return out, storeErrOrNil("read field stamps", rows.Err())
}

// setFieldStamps stores the stamp of the named fields of a chat's human layer.
func setFieldStamps(ctx context.Context, tx *sql.Tx, chatID string, fields []string, s annals.FieldStamp) error {
	for _, f := range fields {
		if _, err := tx.ExecContext(ctx, `INSERT INTO replica_fields (chat_id, field, hlc, host_id) VALUES (?, ?, ?, ?)
			ON CONFLICT (chat_id, field) DO UPDATE SET hlc = excluded.hlc, host_id = excluded.host_id`, chatID, f, s.HLC, s.Host); err != nil {
			return storeErr("write field stamp", err)
		}
	}
	return nil
}

func (r *replicaTx) OpApplied(opID string) (bool, error) {
	var one int
	err := r.tx.QueryRowContext(r.ctx, `SELECT 1 FROM replica_ops WHERE op_id = ?`, opID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, storeErr("read replica operation", err)
	}
	return true, nil
}

func (r *replicaTx) RecordOp(ch *annals.ReplicaChange, at time.Time) error {
	_, err := r.tx.ExecContext(r.ctx, `INSERT INTO replica_ops (op_id, chat_id, lane_seq, applied_at) VALUES (?, ?, ?, ?)`,
		ch.OpID, ch.ChatID, ch.LaneSeq, unixNano(at))
	return storeErrOrNil("record replica operation", err)
}

func (r *replicaTx) SetLane(l *annals.ReplicaLane) error {
	_, err := r.tx.ExecContext(r.ctx, `INSERT INTO replica_lanes (chat_id, tenant_id, last_seq, last_digest, host_id, deleted, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (chat_id, host_id) DO UPDATE SET tenant_id = excluded.tenant_id, last_seq = excluded.last_seq,
			last_digest = excluded.last_digest, deleted = excluded.deleted, updated_at = excluded.updated_at`,
		l.ChatID, l.TenantID, l.Seq, l.Digest, l.Host, l.Deleted, unixNano(l.UpdatedAt))
	return storeErrOrNil("write replica lane", err)
}

func (r *replicaTx) Capture(ops []annals.CaptureOp) error {
	var res annals.CaptureResult
	return r.db.captureIn(r.ctx, r.tx, ops, &res)
}

func (r *replicaTx) Update(ref annals.ChatRef, upd annals.ChatUpdate, at time.Time) error {
	_, err := r.db.updateChatIn(r.ctx, r.tx, ref, upd, at)
	return err
}

func (r *replicaTx) Delete(ref annals.ChatRef) error { return r.db.deleteChatIn(r.ctx, r.tx, ref) }

func (r *replicaTx) AdoptAgent(ref annals.ChatRef, agent string) error {
	return r.db.adoptAgentIn(r.ctx, r.tx, ref, agent)
}
