package annals

import (
	"context"
	"time"
)

// LaneQuarantine is a lane the push worker stopped on a permanent refusal by the remote: its
// operations stay queued and later ones wait behind it until `annals replicate retry` releases
// it. It keeps the one diagnostic (never the key).
type LaneQuarantine struct {
	ChatID string `json:"chat_id"`
	// OpID is the operation the remote refused; Status and Code its answer.
	OpID    string    `json:"op_id"`
	Status  int       `json:"status"`
	Code    string    `json:"code"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// PushStateStore keeps what the push worker must remember across restarts: the quarantined
// lanes and the time of the last successful push. Implemented by both stores.
type PushStateStore interface {
	// QuarantineLane records (or replaces) a lane's quarantine. Errors: forbidden,
	// unavailable, internal.
	QuarantineLane(ctx context.Context, q *LaneQuarantine) error
	// ReleaseLane removes a lane's quarantine and reports whether it had one.
	ReleaseLane(ctx context.Context, chatID string) (bool, error)
	// Quarantined returns the quarantined lanes by chat id.
	Quarantined(ctx context.Context) ([]*LaneQuarantine, error)
	// RecordPush stores the time of the last push the remote acknowledged; LastPush reads it
	// (zero when there was none).
	RecordPush(ctx context.Context, at time.Time) error
	LastPush(ctx context.Context) (time.Time, error)
}

// ChatSnapshot is a chat as read, to be queued whole for a remote: its creation data with its
// human layer, every entry in seq order, every run.
type ChatSnapshot struct {
	Chat    *Chat
	Entries []*Entry
	Runs    []*Run
	// ReadSeq, when not 0, is the seq of the chat's last entry as read, for a snapshot that
	// leaves some entries out (a repair withholding given-up entries); else the last of Entries
	// is. The store checks the chat is still as read against it.
	ReadSeq int64
}

// OutboxBackfill queues chats recorded while the outbox was off (`annals replicate backfill`).
// Implemented by both stores.
type OutboxBackfill interface {
	// QueueChat queues the operations that recreate snap on a remote — its creation, its
	// entries in order (in bounded appends), its runs — as a new lane, in one transaction, if
	// the chat has no lane yet and is still as read (the same incarnation and last entry). It
	// answers false when the chat already has a lane. Errors: conflict (the chat changed since
	// it was read: read it again), not_found (gone), forbidden (the outbox is off, or
	// read-only), unavailable, internal.
	QueueChat(ctx context.Context, snap *ChatSnapshot) (bool, error)
}

// OutboxRepair queues the repair of a lane that a remote lost or holds differently (`annals
// replicate verify`). Implemented by both stores.
type OutboxRepair interface {
	// ResetLane, in one transaction, drops the lane's queued operations and its quarantine (the
	// reset supersedes them) and queues after the lane's head a reset to snap — the chat's
	// creation with its human layer, then its entries in bounded appends and its runs — or, with
	// snap nil, to the chat's tombstone, provided the chat is still as read (the same
	// incarnation and last entry; with snap nil, still absent). Errors: not_found (the chat has
	// no lane), conflict (the chat changed since it was read: read it again), forbidden (the
	// outbox is off, or read-only), unavailable, internal.
	ResetLane(ctx context.Context, chatID string, snap *ChatSnapshot) error
}

// OutboxDrop drops an operation a remote refused for good (`annals replicate retry --drop`).
// Implemented by both stores.
type OutboxDrop interface {
	// DropOp, in one transaction, deletes the queued operation opID — it must be the oldest
	// queued of its lane, right after the remote's head (baseSeq, baseDigest) — and numbers the
	// lane's later queued operations on from that head, re-chaining their digests; it returns
	// the operation dropped. It leaves the operation's GivenUpOp mark, in the same transaction.
	// Errors: conflict (opID is not the lane's oldest queued operation,
	// or does not follow the head), invalid, forbidden, unavailable, internal.
	DropOp(ctx context.Context, chatID, opID string, baseSeq int64, baseDigest string) (*ReplicationOp, error)
}

// GivenUpOp is the mark an operation dropped by `annals replicate retry --drop` leaves, written
// in the drop's transaction: what the remote was never sent, so that `replicate verify` reports
// it and never sends it again in a repair (docs/REPLICATION.md, "Dropping a refused operation").
type GivenUpOp struct {
	ChatID string `json:"chat_id"`
	// OpID, LaneSeq and Kind name the operation as it was queued (its place before the drop).
	OpID    string `json:"op_id"`
	LaneSeq int64  `json:"lane_seq"`
	Kind    OpKind `json:"kind"`
	// EntryIDs are the entries a dropped append carried, RunID the run a dropped run recorded:
	// what a repair withholds.
	EntryIDs []string `json:"entry_ids,omitempty"`
	RunID    string   `json:"run_id,omitempty"`
	// Code and Message are the remote's refusal as the quarantine kept it.
	Code      string    `json:"code,omitempty"`
	Message   string    `json:"message,omitempty"`
	DroppedAt time.Time `json:"dropped_at"`
}

// Withholdable reports whether a repair can leave the given-up change out of the chat it
// resends: the entries of an append, the run of a run. Any other kind given up (a creation, a
// rewind, a curation, a delete, an agent, a reset) can only be resent with the whole chat, so
// verify leaves such a lane unrepaired.
// A payload too damaged to read names nothing to withhold, and counts as such a kind.
func (g *GivenUpOp) Withholdable() bool {
	return (g.Kind == OpAppend && len(g.EntryIDs) > 0) || (g.Kind == OpRun && g.RunID != "")
}

// OutboxGivenUp reads and forgets the marks of dropped operations. Implemented by both stores;
// OutboxDrop.DropOp writes them.
type OutboxGivenUp interface {
	// GivenUp returns the marks of a lane (every lane with chatID empty), by chat and lane seq.
	GivenUp(ctx context.Context, chatID string) ([]*GivenUpOp, error)
	// ForgetGivenUp removes a lane's marks (a person chose to resend the chat whole) and
	// answers how many it removed.
	ForgetGivenUp(ctx context.Context, chatID string) (int, error)
}
