package annals

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// HostIdentity is a database's host id: created once, stored in the database itself, together
// with the fingerprint of the place it was created in.
type HostIdentity struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	// Origin is where the id was created (or last taken).
	Origin Fingerprint `json:"origin"`
	// Outbox reports whether changes record replication operations.
	Outbox bool `json:"outbox"`
}

// Fingerprint says where a database lives. Machine and Location decide (SameOrigin); Hostname
// is carried for the messages only, since machines are renamed.
type Fingerprint struct {
	// Machine is the operating system's machine id (/etc/machine-id), or the hostname where
	// there is none; empty for a store that is not a file on this machine (PostgreSQL).
	Machine  string `json:"machine"`
	Hostname string `json:"hostname,omitempty"`
	// Location is the store's own identity of the database: the file's device-independent inode
	// for SQLite ("inode:N"), the cluster, database and schema for PostgreSQL.
	Location string `json:"location"`
}

// SameOrigin reports whether a database whose host id was created at origin is, here, still
// that database: the same machine and the same location. A copy of the file (on another machine,
// or beside the original) fails it, and so does a PostgreSQL schema restored elsewhere; moving a
// SQLite file within its file system keeps it. The reason names what differs.
func SameOrigin(origin, here Fingerprint) (bool, string) {
	switch {
	case origin.Machine != here.Machine:
		return false, fmt.Sprintf("this database's host id was created on another machine (%s), and this is %s", describeMachine(origin), describeMachine(here))
	case origin.Location != here.Location:
		return false, fmt.Sprintf("this database's host id was created for another copy of the database (%s), and this copy is %s", origin.Location, here.Location)
	}
	return true, ""
}

func describeMachine(f Fingerprint) string {
	if f.Hostname != "" && f.Hostname != f.Machine {
		return fmt.Sprintf("%q, machine id %s", f.Hostname, f.Machine)
	}
	return "machine " + f.Machine
}

// HostCheck is the answer of CheckHost: the stored identity, where the database is now, and
// whether it may push as that identity.
type HostCheck struct {
	Identity *HostIdentity `json:"identity"`
	Here     Fingerprint   `json:"here"`
	// Moved is true when Here is not Identity's origin: the database was copied (or restored),
	// and pushing under its host id must be refused until a new one is taken (NewHostID).
	Moved  bool   `json:"moved"`
	Reason string `json:"reason,omitempty"`
}

// CheckIdentity builds the HostCheck of an identity seen from here.
func CheckIdentity(id *HostIdentity, here Fingerprint) *HostCheck {
	ok, reason := SameOrigin(id.Origin, here)
	return &HostCheck{Identity: id, Here: here, Moved: !ok, Reason: reason}
}

// NewHostIDValue returns a fresh random host id: 32 lowercase hex digits.
func NewHostIDValue() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", Internal("generate host id", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// HostStore keeps a database's host id. Implemented by both stores.
type HostStore interface {
	// Host returns the stored identity. Errors: not_found (no host id was ever created: the
	// outbox was never turned on), unavailable, internal.
	Host(ctx context.Context) (*HostIdentity, error)
	// CheckHost compares the stored identity with where the database is now.
	// Errors: not_found, unavailable, internal.
	CheckHost(ctx context.Context) (*HostCheck, error)
	// SetOutbox turns the outbox on or off for every writer of the database, creating the host
	// id (with this place's fingerprint) the first time. Changes made while it is off record
	// nothing. Errors: forbidden (read-only), unavailable, internal.
	SetOutbox(ctx context.Context, on bool) (*HostIdentity, error)
	// NewHostID takes a new host id for this database, with this place's fingerprint, and gives
	// it to the queued operations that were written while the identity belonged to another place
	// (those with no host). Operations already named keep their ids. Errors: not_found (no host
	// id yet), forbidden, unavailable, internal.
	NewHostID(ctx context.Context) (*HostIdentity, error)
}

// LaneStatus is one lane of the outbox.
type LaneStatus struct {
	ChatID string `json:"chat_id"`
	// HeadSeq and HeadDigest are the last operation the lane recorded, queued or not.
	HeadSeq    int64  `json:"head_seq"`
	HeadDigest string `json:"head_digest"`
	// Pending counts the lane's queued operations, PendingBytes their payloads; OldestAt is
	// when the oldest was written (zero with none).
	Pending      int       `json:"pending"`
	PendingBytes int64     `json:"pending_bytes"`
	OldestAt     time.Time `json:"oldest_at,omitzero"`
}

// OutboxRead bounds a read of one lane's queued operations.
type OutboxRead struct {
	ChatID string
	// MaxOps and MaxBytes bound the answer (payload bytes); the first operation is answered
	// even when it alone is over MaxBytes, so a large one cannot block its lane. Zero: no bound.
	MaxOps   int
	MaxBytes int64
}

// Outbox reads and acknowledges queued operations. Implemented by both stores.
type Outbox interface {
	// PendingOps returns a lane's oldest queued operations, in lane order, within the bounds.
	// Errors: invalid, unavailable, internal.
	PendingOps(ctx context.Context, read OutboxRead) ([]*ReplicationOp, error)
	// OutboxLanes returns every lane (pendingOnly: every lane with queued operations), by chat id.
	// Errors: unavailable, internal.
	OutboxLanes(ctx context.Context, pendingOnly bool) ([]*LaneStatus, error)
	// AckOps deletes the named operations from the queue (the remote applied them) and returns
	// how many it deleted; ids not queued are ignored. When at is not zero and something was
	// deleted, at is stored as the last push (PushStateStore.LastPush) in the same transaction.
	// Errors: invalid (a malformed id), forbidden, unavailable, internal.
	AckOps(ctx context.Context, ids []string, at time.Time) (int, error)
}

// OutboxNotifier is a store that tells listeners in its own process when a transaction that
// queued replication operations has committed, so that a push worker sends a local write at
// once instead of at its next poll. Writers in other processes are not seen (the worker's poll
// finds theirs). Implemented by both stores.
type OutboxNotifier interface {
	// NotifyOutbox returns a channel that receives after such commits — coalesced: one receive
	// may stand for several commits, and a writer never waits for a listener — and the function
	// that stops listening.
	NotifyOutbox() (<-chan struct{}, func())
}
