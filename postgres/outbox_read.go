package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

// Host returns the stored host identity; see annals.HostStore.
func (db *DB) Host(ctx context.Context) (*annals.HostIdentity, error) {
	_, id, err := db.readHost(ctx, db.pool)
	if err != nil {
		return nil, err
	}
	if id == nil {
		return nil, errNoHost()
	}
	return id, nil
}

func errNoHost() error {
	return annals.Errorf(annals.ENOTFOUND, "this database has no host id yet (it is created when the replication outbox is turned on)")
}

// CheckHost compares the stored identity with where the database is now; see annals.HostStore.
func (db *DB) CheckHost(ctx context.Context) (*annals.HostCheck, error) {
	id, err := db.Host(ctx)
	if err != nil {
		return nil, err
	}
	return annals.CheckIdentity(id, db.here), nil
}

// SetOutbox turns the outbox on or off, creating the host id the first time (once, whichever
// server gets there first); see annals.HostStore.
func (db *DB) SetOutbox(ctx context.Context, on bool) (*annals.HostIdentity, error) {
	id, err := annals.NewHostIDValue()
	if err != nil {
		return nil, err
	}
	err = db.writeTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO replication_host (singleton, id, created_at, machine, hostname, location, outbox)
			VALUES (1, $1, $2, $3, $4, $5, $6) ON CONFLICT (singleton) DO NOTHING`,
			id, unixNano(db.now()), db.here.Machine, db.here.Hostname, db.here.Location, on); err != nil {
			return db.storeErr("create host id", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE replication_host SET outbox = $1 WHERE singleton = 1`, on); err != nil {
			return db.storeErr("set outbox", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db.Host(ctx)
}

// NewHostID takes a new host id here and names the unnamed queued operations with it; see
// annals.HostStore.
func (db *DB) NewHostID(ctx context.Context) (*annals.HostIdentity, error) {
	id, err := annals.NewHostIDValue()
	if err != nil {
		return nil, err
	}
	err = db.writeTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE replication_host SET id = $1, created_at = $2, machine = $3, hostname = $4, location = $5 WHERE singleton = 1`,
			id, unixNano(db.now()), db.here.Machine, db.here.Hostname, db.here.Location)
		if err != nil {
			return db.storeErr("take new host id", err)
		}
		if tag.RowsAffected() == 0 {
			return errNoHost()
		}
		if _, err := tx.Exec(ctx, `UPDATE replication_outbox SET host_id = $1 WHERE host_id IS NULL`, id); err != nil {
			return db.storeErr("name queued operations", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db.Host(ctx)
}

// PendingOps returns a lane's oldest queued operations; see annals.Outbox.
func (db *DB) PendingOps(ctx context.Context, read annals.OutboxRead) ([]*annals.ReplicationOp, error) {
	if err := annals.ValidateID("chat_id", read.ChatID); err != nil {
		return nil, err
	}
	var limit *int
	if read.MaxOps > 0 {
		limit = &read.MaxOps
	}
	rows, err := db.pool.Query(ctx, `SELECT `+opColumns+`
		FROM replication_outbox WHERE chat_id = $1 ORDER BY lane_seq LIMIT $2`, read.ChatID, limit)
	if err != nil {
		return nil, db.storeErr("read outbox", err)
	}
	defer rows.Close()
	var ops []*annals.ReplicationOp
	var bytes int64
	for rows.Next() {
		op, err := db.scanOp(rows)
		if err != nil {
			return nil, err
		}
		if read.MaxBytes > 0 && len(ops) > 0 && bytes+int64(len(op.Payload)) > read.MaxBytes {
			break
		}
		bytes += int64(len(op.Payload))
		ops = append(ops, op)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("read outbox", err)
	}
	return ops, nil
}

// opColumns are the columns scanOp reads.
const opColumns = `seq, coalesce(host_id, ''), chat_id, lane_seq, kind, payload, digest, created_at`

// scanOp reads one queued operation of opColumns.
func (db *DB) scanOp(rows pgx.Rows) (*annals.ReplicationOp, error) {
	var op annals.ReplicationOp
	var kind string
	var created int64
	var payload []byte
	if err := rows.Scan(&op.Seq, &op.Host, &op.ChatID, &op.LaneSeq, &kind, &payload, &op.Digest, &created); err != nil {
		return nil, db.storeErr("read outbox", err)
	}
	op.Payload, op.Kind, op.CreatedAt, op.ID = payload, annals.OpKind(kind), fromNano(created), annals.OpID(op.Host, op.Seq)
	return &op, nil
}

// OutboxLanes returns the lanes with their heads and queues; see annals.Outbox.
func (db *DB) OutboxLanes(ctx context.Context, pendingOnly bool) ([]*annals.LaneStatus, error) {
	join := `LEFT JOIN`
	if pendingOnly {
		join = `JOIN`
	}
	rows, err := db.pool.Query(ctx, `SELECT l.chat_id, l.last_seq, l.last_digest,
			coalesce(q.n, 0), coalesce(q.bytes, 0), coalesce(q.oldest, 0)
		FROM replication_lanes l `+join+` (SELECT chat_id, count(*) AS n, sum(length(payload))::bigint AS bytes, min(created_at) AS oldest
			FROM replication_outbox GROUP BY chat_id) q ON q.chat_id = l.chat_id
		WHERE l.last_seq > 0
		ORDER BY l.chat_id COLLATE "C"`)
	if err != nil {
		return nil, db.storeErr("read outbox lanes", err)
	}
	defer rows.Close()
	lanes := []*annals.LaneStatus{}
	for rows.Next() {
		var l annals.LaneStatus
		var oldest int64
		if err := rows.Scan(&l.ChatID, &l.HeadSeq, &l.HeadDigest, &l.Pending, &l.PendingBytes, &oldest); err != nil {
			return nil, db.storeErr("read outbox lanes", err)
		}
		if l.Pending > 0 {
			l.OldestAt = fromNano(oldest)
		}
		lanes = append(lanes, &l)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("read outbox lanes", err)
	}
	return lanes, nil
}

// AckOps deletes acknowledged operations; see annals.Outbox.
func (db *DB) AckOps(ctx context.Context, ids []string, at time.Time) (int, error) {
	hosts := make([]string, 0, len(ids))
	seqs := make([]int64, 0, len(ids))
	for _, id := range ids {
		host, seq, err := annals.ParseOpID(id)
		if err != nil {
			return 0, err
		}
		hosts = append(hosts, host)
		seqs = append(seqs, seq)
	}
	if db.readOnly {
		return 0, errReadOnly()
	}
	// One statement, so one transaction: the deletes and, when something was deleted and at is
	// given, the time of the last push.
	var n int
	err := db.pool.QueryRow(ctx, `WITH acked AS (
			DELETE FROM replication_outbox o USING unnest($1::text[], $2::bigint[]) AS a(host, seq)
			WHERE o.seq = a.seq AND o.host_id = a.host RETURNING 1),
		pushed AS (
			INSERT INTO replication_push (singleton, last_success)
			SELECT 1, $3::bigint WHERE $3::bigint <> 0 AND EXISTS (SELECT 1 FROM acked)
			ON CONFLICT (singleton) DO UPDATE SET last_success = excluded.last_success)
		SELECT count(*) FROM acked`, hosts, seqs, ackTime(at)).Scan(&n)
	if err != nil {
		return 0, db.storeErr("acknowledge operations", err)
	}
	return n, nil
}

// ackTime is at as stored, 0 for none.
func ackTime(at time.Time) int64 {
	if at.IsZero() {
		return 0
	}
	return unixNano(at)
}
