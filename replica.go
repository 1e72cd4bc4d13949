package annals

import (
	"context"
	"time"
)

// The remote side of replication (docs/REPLICATION.md): a server that hosts push their outboxes
// to applies each operation once, in lane order, in one transaction with the record of its id,
// and keeps per chat the last sequence and digest it applied.

// EOUTOFORDER: a replicated operation's predecessor in its lane has not been applied; the host
// resends the lane from the remote's head (the answer carries it).
const EOUTOFORDER = "out_of_order"

// ReplicaLane is the remote's record of one lane: the operations one host replicated for one
// chat, the last applied and whose it was. A chat has one lane per host that wrote it (the host
// that created it, and any host that curated it); a lane continued under a new host id (a copy
// that took one) is handed over to it.
type ReplicaLane struct {
	ChatID string `json:"chat_id"`
	// TenantID is the tenant the lane's chat was replicated into.
	TenantID string `json:"tenant_id,omitempty"`
	// Seq and Digest are the last operation applied (0 and "" before the first).
	Seq    int64  `json:"seq"`
	Digest string `json:"digest"`
	// Host is the host id of the lane: the one that delivered its last operation.
	Host string `json:"host,omitempty"`
	// Deleted: the lane's chat was deleted (a tombstone); later operations are refused.
	Deleted   bool      `json:"deleted,omitempty"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
	// Copy is the remote's copy of the lane's chat, as the heads route answers it (nil: the
	// remote holds no such chat), so that verify finds a copy that lost rows its head says it
	// applied.
	Copy *ReplicaCopy `json:"copy,omitempty"`
}

// ReplicaCopy counts what a remote holds of a chat.
type ReplicaCopy struct {
	Entries int64 `json:"entries"`
	Runs    int64 `json:"runs"`
	// Origin is the host that created the chat on the remote (its annals.origin_host
	// attribute): another host's lane of the chat only curates it, and its verify does not
	// compare the copy with its own.
	Origin string `json:"origin,omitempty"`
	// IDs names the entries and runs of the copy, when the heads request asked for them
	// (ReplicaHeadsRequest.IDsOf): a lane with given-up operations is compared by identity,
	// since equal counts can hide a copy that lacks another row than the given-up one.
	IDs *ReplicaCopyIDs `json:"ids,omitempty"`
}

// ReplicaCopyIDs are the ids of a copy's entries and runs.
type ReplicaCopyIDs struct {
	Entries []string `json:"entries"`
	Runs    []string `json:"runs"`
}

// ReplicaChange is one replicated operation as a remote store applies it: the op's identity,
// where in its lane it goes, and exactly one change, already checked and bound by the history.
type ReplicaChange struct {
	OpID    string
	Host    string
	ChatID  string
	LaneSeq int64
	// PrevDigest is the lane's digest the change was checked against (at LaneSeq-1); Digest
	// the lane's digest once it is applied.
	PrevDigest string
	Digest     string
	// TenantID is the tenant the lane belongs to, kept with it.
	TenantID string
	// Capture holds the chat, append, truncate or run op, bound (CaptureOp.Expect).
	Capture []CaptureOp
	// Curate with Ref and At: a change of the human layer, stamped at At. Stamp orders it
	// against the changes of the same fields from every host: a field keeps the value of the
	// change with the greatest stamp (NewerFields).
	Curate *ChatUpdate
	Ref    *ChatRef
	At     time.Time
	Stamp  FieldStamp
	// From, when set, is the host whose lane this change continues (its head is (LaneSeq-1,
	// PrevDigest)): the lane is handed over to Host, and From's lane of the chat ends.
	From string
	// Tombstone: the chat is deleted (Ref, when the remote holds it) and the lane marked so.
	Tombstone bool
	// Reset (an OpReset): the remote's copy (Ref, when it holds one) is removed first, and the
	// lane's head was at FromSeq (digest PrevDigest) when the change was checked, not LaneSeq-1.
	Reset   bool
	FromSeq int64
	// ResetStamps are the host's stamps of the reset chat's human layer (ResetChange.Stamps):
	// the copy it replaces keeps, field by field, what is newer (MergeHumanLayer).
	ResetStamps map[string]FieldStamp
	// Agent with Ref: the chat, which has no agent, is given this one (AgentAdopter).
	Agent string
}

// Validate checks the change's ops as a capture or an update would, before a store applies it.
func (ch *ReplicaChange) Validate() error {
	for i := range ch.Capture {
		if err := ch.Capture[i].Validate(); err != nil {
			return err
		}
	}
	if ch.Curate != nil {
		return ch.Curate.Validate()
	}
	if ch.Agent != "" {
		if ch.Ref == nil {
			return Errorf(EINVALID, "a replicated agent change needs the chat it changes")
		}
		return ValidateAdoptedAgent(*ch.Ref, ch.Agent)
	}
	return nil
}

// ReplicaOutcome is what ApplyReplica did.
type ReplicaOutcome int

const (
	// ReplicaApplied: the change was applied and the lane's head moved to it.
	ReplicaApplied ReplicaOutcome = iota + 1
	// ReplicaDuplicate: the operation id was already applied; nothing changed.
	ReplicaDuplicate
	// ReplicaMoved: the lane's head was not the one the change was checked against (another
	// delivery moved it in between); nothing changed, and the lane's head is answered.
	ReplicaMoved
)

// ReplicaStore is what a remote's store does for replication. It decides nothing: the history
// checks each operation and binds it; the store applies it with the record of its id, in one
// transaction, only on the head it was checked against. Implemented by both stores.
type ReplicaStore interface {
	// ReplicaLanes returns the remote's record of every lane of the named chats, one per host
	// that wrote the chat (a chat never replicated has none), ordered by chat then host.
	// Errors: unavailable, internal.
	ReplicaLanes(ctx context.Context, chatIDs []string) ([]*ReplicaLane, error)
	// ReplicaOpsApplied returns which of the operation ids were applied. Errors: unavailable,
	// internal.
	ReplicaOpsApplied(ctx context.Context, opIDs []string) (map[string]bool, error)
	// ApplyReplica applies ch in one transaction with the record of its id: a duplicate id
	// changes nothing (ReplicaDuplicate); a lane (ChatID, Host) — or From's, when it is handed
	// over — whose head is not (LaneSeq-1, PrevDigest) changes nothing (ReplicaMoved, with the
	// head); else the change is applied and the head becomes (LaneSeq, Digest). A curation sets
	// only the fields whose stamps it is after (NewerFields) and keeps their stamps. Errors: the change's own (invalid, not_found, conflict),
	// forbidden (read-only), unavailable, internal.
	ApplyReplica(ctx context.Context, ch *ReplicaChange) (ReplicaOutcome, *ReplicaLane, error)
}

// ReplicaBatchStore is a ReplicaStore that applies several changes of one lane in one
// transaction, as a request delivers them, so that a backlog does not pay a commit (and, on
// PostgreSQL, a flush to disk and a chat document refresh) per operation. Each change is applied
// exactly as ApplyReplica would apply it after the ones before it, and still with the record of
// its id: the changes before the first one not applied commit together, that one changes
// nothing.
type ReplicaBatchStore interface {
	ReplicaStore
	// ApplyReplicas applies chs in order, stopping after the first that is not applied (an
	// outcome other than ReplicaApplied, or its own error: invalid, not_found, conflict), whose
	// effects are rolled back; the ones before it are committed. It returns one result per change
	// tried. Its error (unavailable, internal, forbidden) means none was applied.
	ApplyReplicas(ctx context.Context, chs []*ReplicaChange) ([]ReplicaResult, error)
}

// ReplicaResult is what ApplyReplicas did with one change: ApplyReplica's answer.
type ReplicaResult struct {
	Outcome ReplicaOutcome
	Lane    *ReplicaLane
	Err     error
}

// ReplicateRequest is the body of POST /v1/replicate: one lane's next operations, in lane
// order, as the host's outbox holds them.
type ReplicateRequest struct {
	Ops []*ReplicationOp `json:"ops"`
}

// ReplicateResult is the remote's answer: the operation ids applied (now or by an earlier
// delivery: the host deletes them from its outbox), the lane's head after the call, and the
// operation that was refused, if one was (the ones after it were not tried).
type ReplicateResult struct {
	ChatID string            `json:"chat_id"`
	Acked  []string          `json:"acked"`
	Head   *ReplicaLane      `json:"head"`
	Error  *ReplicateRefusal `json:"error,omitempty"`
}

// ReplicateRefusal is the operation a remote refused: code out_of_order asks the host to
// resend from Head.Seq+1; invalid, conflict and forbidden are permanent for the lane.
type ReplicateRefusal struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	OpID    string `json:"op_id"`
}

// ReplicaHeadsRequest is the body of POST /v1/replicate/heads: the chats whose lanes a host
// compares with its own (replicate verify). An empty list checks only that the key is accepted.
type ReplicaHeadsRequest struct {
	ChatIDs []string `json:"chat_ids"`
	// IDsOf names chats (of ChatIDs) whose copies list their entry and run ids (copy.ids).
	IDsOf []string `json:"ids_of,omitempty"`
}

// ReplicaHeads is the answer: the remote's record of every lane of the named chats it holds in
// the caller's tenant, one per host that wrote the chat (a chat it never applied, or another
// tenant's, has none).
type ReplicaHeads struct {
	Lanes []*ReplicaLane `json:"lanes"`
}
