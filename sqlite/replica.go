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

// ReplicaLanes returns the remote's record of the named lanes; see annals.ReplicaStore.
func (db *DB) ReplicaLanes(ctx context.Context, chatIDs []string) (map[string]*annals.ReplicaLane, error) {
	out := map[string]*annals.ReplicaLane{}
	for start := 0; start < len(chatIDs); start += 500 {
		part := chatIDs[start:min(start+500, len(chatIDs))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := db.reader.QueryContext(ctx, `SELECT chat_id, tenant_id, last_seq, last_digest, host_id, deleted, updated_at
			FROM replica_lanes WHERE chat_id IN (`+placeholders(len(part))+`)`, args...)
		if err != nil {
			return nil, storeErr("read replica lanes", err)
		}
		for rows.Next() {
			l, err := scanReplicaLane(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[l.ChatID] = l
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, storeErr("read replica lanes", err)
		}
	}
	return out, nil
}

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

// replicaTx is storecore.ReplicaTx over a SQLite write transaction, whose single writer already
// holds every lane.
type replicaTx struct {
	db  *DB
	ctx context.Context
	tx  *sql.Tx
}

func (r *replicaTx) LockLane(chatID string) (*annals.ReplicaLane, error) {
	l, err := scanReplicaLane(r.tx.QueryRowContext(r.ctx, `SELECT chat_id, tenant_id, last_seq, last_digest, host_id, deleted, updated_at
		FROM replica_lanes WHERE chat_id = ?`, chatID))
	if errors.Is(err, sql.ErrNoRows) {
		return &annals.ReplicaLane{ChatID: chatID}, nil
	}
	return l, err
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
		ON CONFLICT (chat_id) DO UPDATE SET tenant_id = excluded.tenant_id, last_seq = excluded.last_seq,
			last_digest = excluded.last_digest, host_id = excluded.host_id, deleted = excluded.deleted, updated_at = excluded.updated_at`,
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
