package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/machine"
	"github.com/annals-dev/annals/internal/storecore"
)

// The replication outbox on SQLite (docs/REPLICATION.md, migration 0014).

var (
	_ annals.HostStore      = (*DB)(nil)
	_ annals.Outbox         = (*DB)(nil)
	_ annals.OutboxNotifier = (*DB)(nil)
)

// fingerprint is where the database file is now: this machine and the file's inode.
func fingerprint(path string) annals.Fingerprint {
	f := annals.Fingerprint{Machine: machine.ID(), Hostname: machine.Hostname()}
	if id, err := machine.FileID(path); err == nil {
		f.Location = id
	}
	return f
}

// readHost reads the host row; nil when there is none.
func readHost(ctx context.Context, q querier) (*storecore.OutboxHost, *annals.HostIdentity, error) {
	var h storecore.OutboxHost
	var created int64
	err := q.QueryRowContext(ctx, `SELECT id, created_at, machine, hostname, location, outbox FROM replication_host WHERE singleton = 1`).
		Scan(&h.ID, &created, &h.Origin.Machine, &h.Origin.Hostname, &h.Origin.Location, &h.On)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, storeErr("read host id", err)
	}
	return &h, &annals.HostIdentity{ID: h.ID, CreatedAt: fromNano(created), Origin: h.Origin, Outbox: h.On}, nil
}

// outboxHost reads, inside a write transaction, the host row its changes are recorded under:
// nil when the outbox is off (or was never turned on), and then the transaction records nothing.
func outboxHost(ctx context.Context, tx *sql.Tx) (*storecore.OutboxHost, error) {
	host, _, err := readHost(ctx, tx)
	if err != nil || host == nil || !host.On {
		return nil, err
	}
	return host, nil
}

// writeOutbox writes the operations of a transaction's changes, in it, under host (nil: none).
func (db *DB) writeOutbox(ctx context.Context, tx *sql.Tx, host *storecore.OutboxHost, changes *storecore.Changes) error {
	if host == nil || changes.Len() == 0 {
		return nil
	}
	if err := storecore.WriteOutbox(&outboxTx{ctx: ctx, tx: tx}, host, db.here, db.now(), changes); err != nil {
		return err
	}
	db.outboxSignal.Queued(tx)
	return nil
}

// NotifyOutbox listens for commits that queued operations; see annals.OutboxNotifier.
func (db *DB) NotifyOutbox() (<-chan struct{}, func()) { return db.outboxSignal.Listen() }

// recordChange records one change's operation in tx, when the outbox is on.
func (db *DB) recordChange(ctx context.Context, tx *sql.Tx, p *annals.OpPayload) error {
	db.feedTouch(tx, p.ChatID(), "", p.Delete != nil)
	host, err := outboxHost(ctx, tx)
	if err != nil || host == nil {
		return err
	}
	var changes storecore.Changes
	changes.Add(p)
	return db.writeOutbox(ctx, tx, host, &changes)
}

// outboxTx is storecore.OutboxTx over a SQLite write transaction, whose single writer already
// holds every lane.
type outboxTx struct {
	ctx context.Context
	tx  *sql.Tx
}

func (o *outboxTx) LaneHead(chatID string) (int64, string, error) {
	var seq int64
	var digest string
	err := o.tx.QueryRowContext(o.ctx, `SELECT last_seq, last_digest FROM replication_lanes WHERE chat_id = ?`, chatID).Scan(&seq, &digest)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", storeErr("read lane head", err)
	}
	return seq, digest, nil
}

func (o *outboxTx) SetLaneHead(chatID string, seq int64, digest string) error {
	_, err := o.tx.ExecContext(o.ctx, `INSERT INTO replication_lanes (chat_id, last_seq, last_digest) VALUES (?, ?, ?)
		ON CONFLICT (chat_id) DO UPDATE SET last_seq = excluded.last_seq, last_digest = excluded.last_digest`, chatID, seq, digest)
	if err != nil {
		return storeErr("write lane head", err)
	}
	return nil
}

func (o *outboxTx) NextHLC(wall int64) (int64, error) {
	var hlc int64
	err := o.tx.QueryRowContext(o.ctx, `UPDATE replication_host SET hlc = max(hlc + 1, ?) WHERE singleton = 1 RETURNING hlc`, wall).Scan(&hlc)
	if err != nil {
		return 0, storeErr("next hybrid logical clock", err)
	}
	return hlc, nil
}

func (o *outboxTx) FieldStamps(chatID string) (map[string]annals.FieldStamp, error) {
	return fieldStamps(o.ctx, o.tx, chatID)
}

func (o *outboxTx) SetFieldStamps(chatID string, fields []string, s annals.FieldStamp) error {
	return setFieldStamps(o.ctx, o.tx, chatID, fields, s)
}

func (o *outboxTx) InsertOp(op *annals.ReplicationOp) error {
	var host any
	if op.Host != "" {
		host = op.Host
	}
	_, err := o.tx.ExecContext(o.ctx, `INSERT INTO replication_outbox (host_id, chat_id, lane_seq, kind, payload, digest, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, host, op.ChatID, op.LaneSeq, string(op.Kind), []byte(op.Payload), op.Digest, unixNano(op.CreatedAt))
	if err != nil {
		return storeErr("queue replication operation", err)
	}
	return nil
}

func (o *outboxTx) ForgetGivenUpRun(chatID, runID string) error {
	_, err := o.tx.ExecContext(o.ctx, `DELETE FROM replication_given_up WHERE chat_id = ? AND kind = 'run' AND run_id = ?`, chatID, runID)
	return storeErrOrNil("forget a given-up run", err)
}

// Host returns the stored host identity; see annals.HostStore.
func (db *DB) Host(ctx context.Context) (*annals.HostIdentity, error) {
	_, id, err := readHost(ctx, db.reader)
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

// CheckHost compares the stored identity with where the file is now; see annals.HostStore.
func (db *DB) CheckHost(ctx context.Context) (*annals.HostCheck, error) {
	id, err := db.Host(ctx)
	if err != nil {
		return nil, err
	}
	return annals.CheckIdentity(id, db.here), nil
}

// SetOutbox turns the outbox on or off, creating the host id the first time; see
// annals.HostStore.
func (db *DB) SetOutbox(ctx context.Context, on bool) (*annals.HostIdentity, error) {
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		h, _, err := readHost(ctx, tx)
		if err != nil {
			return err
		}
		if h != nil {
			_, err := tx.ExecContext(ctx, `UPDATE replication_host SET outbox = ? WHERE singleton = 1`, on)
			return storeErrOrNil("set outbox", err)
		}
		id, err := annals.NewHostIDValue()
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO replication_host (singleton, id, created_at, machine, hostname, location, outbox)
			VALUES (1, ?, ?, ?, ?, ?, ?)`, id, unixNano(db.now()), db.here.Machine, db.here.Hostname, db.here.Location, on)
		return storeErrOrNil("create host id", err)
	})
	if err != nil {
		return nil, err
	}
	return db.Host(ctx)
}

// NewHostID takes a new host id here and names the unnamed queued operations with it; see
// annals.HostStore.
func (db *DB) NewHostID(ctx context.Context) (*annals.HostIdentity, error) {
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		h, _, err := readHost(ctx, tx)
		if err != nil {
			return err
		}
		if h == nil {
			return errNoHost()
		}
		id, err := annals.NewHostIDValue()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE replication_host SET id = ?, created_at = ?, machine = ?, hostname = ?, location = ? WHERE singleton = 1`,
			id, unixNano(db.now()), db.here.Machine, db.here.Hostname, db.here.Location); err != nil {
			return storeErr("take new host id", err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE replication_outbox SET host_id = ? WHERE host_id IS NULL`, id)
		return storeErrOrNil("name queued operations", err)
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
	limit := int64(-1)
	if read.MaxOps > 0 {
		limit = int64(read.MaxOps)
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT `+opColumns+`
		FROM replication_outbox WHERE chat_id = ? ORDER BY lane_seq LIMIT ?`, read.ChatID, limit)
	if err != nil {
		return nil, storeErr("read outbox", err)
	}
	defer rows.Close()
	var ops []*annals.ReplicationOp
	var bytes int64
	for rows.Next() {
		op, err := scanOp(rows)
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
		return nil, storeErr("read outbox", err)
	}
	return ops, nil
}

// opColumns are the columns scanOp reads.
const opColumns = `seq, coalesce(host_id, ''), chat_id, lane_seq, kind, payload, digest, created_at`

// scanOp reads one queued operation of opColumns.
func scanOp(rows *sql.Rows) (*annals.ReplicationOp, error) {
	var op annals.ReplicationOp
	var kind string
	var created int64
	if err := rows.Scan(&op.Seq, &op.Host, &op.ChatID, &op.LaneSeq, &kind, &op.Payload, &op.Digest, &created); err != nil {
		return nil, storeErr("read outbox", err)
	}
	op.Kind, op.CreatedAt, op.ID = annals.OpKind(kind), fromNano(created), annals.OpID(op.Host, op.Seq)
	return &op, nil
}

// OutboxLanes returns the lanes with their heads and queues; see annals.Outbox.
func (db *DB) OutboxLanes(ctx context.Context, pendingOnly bool) ([]*annals.LaneStatus, error) {
	join := `LEFT JOIN`
	if pendingOnly {
		join = `JOIN`
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT l.chat_id, l.last_seq, l.last_digest,
			coalesce(q.n, 0), coalesce(q.bytes, 0), coalesce(q.oldest, 0)
		FROM replication_lanes l `+join+` (SELECT chat_id, count(*) AS n, sum(length(payload)) AS bytes, min(created_at) AS oldest
			FROM replication_outbox GROUP BY chat_id) q ON q.chat_id = l.chat_id
		ORDER BY l.chat_id`)
	if err != nil {
		return nil, storeErr("read outbox lanes", err)
	}
	defer rows.Close()
	lanes := []*annals.LaneStatus{}
	for rows.Next() {
		var l annals.LaneStatus
		var oldest int64
		if err := rows.Scan(&l.ChatID, &l.HeadSeq, &l.HeadDigest, &l.Pending, &l.PendingBytes, &oldest); err != nil {
			return nil, storeErr("read outbox lanes", err)
		}
		if l.Pending > 0 {
			l.OldestAt = fromNano(oldest)
		}
		lanes = append(lanes, &l)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("read outbox lanes", err)
	}
	return lanes, nil
}

// AckOps deletes acknowledged operations; see annals.Outbox.
func (db *DB) AckOps(ctx context.Context, ids []string, at time.Time) (int, error) {
	type key struct {
		host string
		seq  int64
	}
	keys := make([]key, 0, len(ids))
	for _, id := range ids {
		host, seq, err := annals.ParseOpID(id)
		if err != nil {
			return 0, err
		}
		keys = append(keys, key{host, seq})
	}
	n := 0
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		n = 0
		for _, k := range keys {
			r, err := tx.ExecContext(ctx, `DELETE FROM replication_outbox WHERE seq = ? AND host_id = ?`, k.seq, k.host)
			if err != nil {
				return storeErr("acknowledge operation", err)
			}
			d, _ := r.RowsAffected()
			n += int(d)
		}
		if n == 0 || at.IsZero() {
			return nil
		}
		return recordPushIn(ctx, tx, at)
	})
	return n, err
}
