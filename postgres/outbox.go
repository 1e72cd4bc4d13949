package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// The replication outbox on PostgreSQL (docs/REPLICATION.md, migration 0008). Every server
// sharing the database writes under its one host id: the database, not the server process, is
// the host.

var (
	_ annals.HostStore      = (*DB)(nil)
	_ annals.Outbox         = (*DB)(nil)
	_ annals.OutboxNotifier = (*DB)(nil)
)

// fingerprint is where the database is: the cluster's system identifier (when the role may
// read it), the database's oid and the schema. A dump restored into another database, cluster
// or schema has another; the machine a server runs on does not count.
func (db *DB) fingerprint(ctx context.Context) (annals.Fingerprint, error) {
	f := annals.Fingerprint{Hostname: db.addr}
	var oid uint32
	var schema string
	if err := db.pool.QueryRow(ctx, `SELECT d.oid, current_schema() FROM pg_database d WHERE d.datname = current_database()`).Scan(&oid, &schema); err != nil {
		return f, db.storeErr("read database identity", err)
	}
	system := "?"
	var sys int64
	if err := db.pool.QueryRow(ctx, `SELECT system_identifier FROM pg_control_system()`).Scan(&sys); err == nil {
		system = fmt.Sprint(sys)
	}
	f.Location = fmt.Sprintf("pg:%s/%d/%s", system, oid, schema)
	return f, nil
}

// readHost reads the host row; nil when there is none.
func (db *DB) readHost(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (*storecore.OutboxHost, *annals.HostIdentity, error) {
	var h storecore.OutboxHost
	var created int64
	err := q.QueryRow(ctx, `SELECT id, created_at, machine, hostname, location, outbox FROM replication_host WHERE singleton = 1`).
		Scan(&h.ID, &created, &h.Origin.Machine, &h.Origin.Hostname, &h.Origin.Location, &h.On)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, db.storeErr("read host id", err)
	}
	return &h, &annals.HostIdentity{ID: h.ID, CreatedAt: fromNano(created), Origin: h.Origin, Outbox: h.On}, nil
}

// outboxHost reads, inside a write transaction, the host row its changes are recorded under:
// nil when the outbox is off, and then the transaction records nothing.
func (db *DB) outboxHost(ctx context.Context, tx pgx.Tx) (*storecore.OutboxHost, error) {
	host, _, err := db.readHost(ctx, tx)
	if err != nil || host == nil || !host.On {
		return nil, err
	}
	return host, nil
}

// writeOutbox writes the operations of a transaction's changes, in it, under host (nil: none).
// Lane heads are read (and locked) one statement at a time; the inserts and the new heads go in
// one round trip.
func (db *DB) writeOutbox(ctx context.Context, tx pgx.Tx, host *storecore.OutboxHost, changes *storecore.Changes) error {
	if host == nil || changes.Len() == 0 {
		return nil
	}
	o := &outboxTx{db: db, ctx: ctx, tx: tx, batch: &pgx.Batch{}}
	if err := storecore.WriteOutbox(o, host, db.here, db.now(), changes); err != nil {
		return err
	}
	if err := tx.SendBatch(ctx, o.batch).Close(); err != nil {
		return db.storeErr("queue replication operations", err)
	}
	db.outboxSignal.Queued(tx)
	return nil
}

// NotifyOutbox listens for commits that queued operations; see annals.OutboxNotifier.
func (db *DB) NotifyOutbox() (<-chan struct{}, func()) { return db.outboxSignal.Listen() }

// recordChange records one change's operation in tx, when the outbox is on.
func (db *DB) recordChange(ctx context.Context, tx pgx.Tx, p *annals.OpPayload) error {
	db.feedMarks.Touch(tx, p.ChatID(), "", p.Delete != nil)
	host, err := db.outboxHost(ctx, tx)
	if err != nil || host == nil {
		return err
	}
	var changes storecore.Changes
	changes.Add(p)
	return db.writeOutbox(ctx, tx, host, &changes)
}

// outboxTx is storecore.OutboxTx over a PostgreSQL transaction.
type outboxTx struct {
	db    *DB
	ctx   context.Context
	tx    pgx.Tx
	batch *pgx.Batch
}

// LaneHead reads the lane's head and locks its row until commit (creating it at 0): writers of
// one chat already queue on the chat row, so this lock never waits in a capture.
func (o *outboxTx) LaneHead(chatID string) (int64, string, error) {
	var seq int64
	var digest string
	err := o.tx.QueryRow(o.ctx, `INSERT INTO replication_lanes (chat_id, last_seq, last_digest) VALUES ($1, 0, '')
		ON CONFLICT (chat_id) DO UPDATE SET chat_id = excluded.chat_id RETURNING last_seq, last_digest`, chatID).Scan(&seq, &digest)
	if err != nil {
		return 0, "", o.db.storeErr("read lane head", err)
	}
	return seq, digest, nil
}

func (o *outboxTx) SetLaneHead(chatID string, seq int64, digest string) error {
	o.batch.Queue(`UPDATE replication_lanes SET last_seq = $2, last_digest = $3 WHERE chat_id = $1`, chatID, seq, digest)
	return nil
}

// NextHLC moves the host's clock in one statement, which locks the host row until commit: two
// servers curating at once get different clocks.
func (o *outboxTx) NextHLC(wall int64) (int64, error) {
	var hlc int64
	err := o.tx.QueryRow(o.ctx, `UPDATE replication_host SET hlc = GREATEST(hlc + 1, $1) WHERE singleton = 1 RETURNING hlc`, wall).Scan(&hlc)
	if err != nil {
		return 0, o.db.storeErr("next hybrid logical clock", err)
	}
	return hlc, nil
}

// FieldStamps reads the chat's stamps; the write paths already hold the chat's row lock.
func (o *outboxTx) FieldStamps(chatID string) (map[string]annals.FieldStamp, error) {
	return o.db.fieldStamps(o.ctx, o.tx, chatID)
}

func (o *outboxTx) SetFieldStamps(chatID string, fields []string, s annals.FieldStamp) error {
	return o.db.setFieldStamps(o.ctx, o.tx, chatID, fields, s)
}

func (o *outboxTx) InsertOp(op *annals.ReplicationOp) error {
	var host *string
	if op.Host != "" {
		host = &op.Host
	}
	o.batch.Queue(`INSERT INTO replication_outbox (host_id, chat_id, lane_seq, kind, payload, digest, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, host, op.ChatID, op.LaneSeq, string(op.Kind), []byte(op.Payload), op.Digest, unixNano(op.CreatedAt))
	return nil
}

// ForgetGivenUpRun is queued with the inserts: no round trip of its own.
func (o *outboxTx) ForgetGivenUpRun(chatID, runID string) error {
	o.batch.Queue(`DELETE FROM replication_given_up WHERE chat_id = $1 AND kind = 'run' AND run_id = $2`, chatID, runID)
	return nil
}
