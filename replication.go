package annals

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The replication outbox (docs/REPLICATION.md): every change a store commits while its outbox is
// on also commits, in the same transaction, one operation that a remote collection can apply to
// reach the same state. Operations are grouped in lanes, one per chat, numbered from 1 without
// gaps, and each carries a digest chained to the previous operation of its lane.

// OpKind names what an operation does.
type OpKind string

// The kinds of operation, one per kind of change.
const (
	OpChat     OpKind = "chat"     // a chat was created
	OpAppend   OpKind = "append"   // entries were appended (only those that were new)
	OpTruncate OpKind = "truncate" // a chat was rewound
	OpRun      OpKind = "run"      // a run was recorded
	OpCurate   OpKind = "curate"   // rename, annotate, tag, pin, archive or a stored summary
	OpDelete   OpKind = "delete"   // a chat was deleted (a tombstone)
	// OpReset replaces a remote's copy of the chat with the host's (replicate verify's repair).
	OpReset OpKind = "reset"
	// OpAgent gives a chat imported without an agent its agent (annals.AgentAdopter).
	OpAgent OpKind = "agent"
)

// PayloadVersion is the version of the operation payload this build writes. Version 2 added
// the hybrid logical clock of a curation (CurateChange.HLC); this build reads versions from
// MinPayloadVersion to PayloadVersion.
const PayloadVersion = 2

// MinPayloadVersion is the oldest payload version this build still applies.
const MinPayloadVersion = 1

// OpPayload is an operation's payload: a versioned JSON encoding of one change, as the store
// applied it, so that a remote applying it in lane order reaches the same rows. Times the store
// stamped (a chat's creation, an entry's time, a run's start, the time of a curation) are
// carried as stamped. Exactly one of the change fields is set.
type OpPayload struct {
	V        int             `json:"v"`
	Chat     *Chat           `json:"chat,omitempty"`
	Append   *AppendOp       `json:"append,omitempty"`
	Truncate *TruncateChange `json:"truncate,omitempty"`
	Run      *Run            `json:"run,omitempty"`
	Curate   *CurateChange   `json:"curate,omitempty"`
	Delete   *DeleteChange   `json:"delete,omitempty"`
	Reset    *ResetChange    `json:"reset,omitempty"`
	Agent    *AgentChange    `json:"agent,omitempty"`
}

// TruncateChange is a rewind as applied: the first removed entry, by id and seq, and how many
// entries went.
type TruncateChange struct {
	ChatID  string `json:"chat_id"`
	EntryID string `json:"entry_id"`
	Seq     int64  `json:"seq"`
	Removed int    `json:"removed"`
}

// CurateChange is a change of a chat's human layer as applied: the fields set are the fields
// changed, and At is the time the store stamped (archived_at when it archived, summary_updated_at
// when it stored a summary). HLC (payload version 2) is the hybrid logical clock the host gave
// the change, which decides between concurrent changes of one field (FieldStamp); a version 1
// payload has none and is ordered by At.
type CurateChange struct {
	ChatID      string    `json:"chat_id"`
	Title       *string   `json:"title,omitempty"`
	Description *string   `json:"description,omitempty"`
	Tags        *[]string `json:"tags,omitempty"`
	Pinned      *bool     `json:"pinned,omitempty"`
	Archived    *bool     `json:"archived,omitempty"`
	Summary     *string   `json:"summary,omitempty"`
	At          time.Time `json:"at"`
	HLC         int64     `json:"hlc,omitempty"`
}

// CurateChangeOf is the payload of an applied ChatUpdate.
func CurateChangeOf(chatID string, upd ChatUpdate, at time.Time) *CurateChange {
	return &CurateChange{ChatID: chatID, Title: upd.Title, Description: upd.Description, Tags: upd.Tags,
		Pinned: upd.Pinned, Archived: upd.Archived, Summary: upd.Summary, At: at.UTC()}
}

// DeleteChange is a chat's deletion.
type DeleteChange struct {
	ChatID string `json:"chat_id"`
}

// ResetChange is a lane repaired by `annals replicate verify`: the remote drops what it holds
// of the chat and takes the host's state from here, whatever its head was — the chat's creation
// data with its human layer (its entries and runs follow in the lane as appends and runs), or,
// for a chat the host deleted, its tombstone. PrevDigest is the host's lane digest before this
// operation (the remote's head may be anywhere behind it), so the remote can check the chain.
type ResetChange struct {
	ChatID     string `json:"chat_id"`
	PrevDigest string `json:"prev_digest"`
	Chat       *Chat  `json:"chat,omitempty"`
	Deleted    bool   `json:"deleted,omitempty"`
	// Stamps are the host's stamps of the fields of Chat's human layer that a stamped curation
	// set: the remote keeps, field by field, the newer of its value and the host's
	// (MergeHumanLayer). A remote of an earlier build ignores them.
	Stamps map[string]FieldStamp `json:"stamps,omitempty"`
}

// AgentChange is a chat that had no agent given one (AgentAdopter.AdoptAgent).
type AgentChange struct {
	ChatID  string `json:"chat_id"`
	AgentID string `json:"agent_id"`
}

// Kind returns the kind of change the payload holds, and "" when it holds none or several.
func (p *OpPayload) Kind() OpKind {
	var kinds []OpKind
	if p.Chat != nil {
		kinds = append(kinds, OpChat)
	}
	if p.Append != nil {
		kinds = append(kinds, OpAppend)
	}
	if p.Truncate != nil {
		kinds = append(kinds, OpTruncate)
	}
	if p.Run != nil {
		kinds = append(kinds, OpRun)
	}
	if p.Curate != nil {
		kinds = append(kinds, OpCurate)
	}
	if p.Delete != nil {
		kinds = append(kinds, OpDelete)
	}
	if p.Reset != nil {
		kinds = append(kinds, OpReset)
	}
	if p.Agent != nil {
		kinds = append(kinds, OpAgent)
	}
	if len(kinds) != 1 {
		return ""
	}
	return kinds[0]
}

// ChatID returns the chat (the lane) the change belongs to.
func (p *OpPayload) ChatID() string {
	switch p.Kind() {
	case OpChat:
		return p.Chat.ID
	case OpAppend:
		return p.Append.ChatID
	case OpTruncate:
		return p.Truncate.ChatID
	case OpRun:
		return p.Run.ChatID
	case OpCurate:
		return p.Curate.ChatID
	case OpDelete:
		return p.Delete.ChatID
	case OpReset:
		return p.Reset.ChatID
	case OpAgent:
		return p.Agent.ChatID
	}
	return ""
}

// EncodePayload returns the payload's stored and transmitted form, at PayloadVersion.
func EncodePayload(p *OpPayload) ([]byte, error) {
	if p.Kind() == "" {
		return nil, Errorf(EINTERNAL, "a replication payload needs exactly one change")
	}
	p.V = PayloadVersion
	b, err := json.Marshal(p)
	if err != nil {
		return nil, Internal("encode replication payload", err)
	}
	return b, nil
}

// DecodePayload reads a payload, refusing versions this build does not know and payloads that
// do not hold exactly one change.
func DecodePayload(b []byte) (*OpPayload, error) {
	var p OpPayload
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, Errorf(EINVALID, "replication payload is not valid JSON: %v", err)
	}
	if p.V < MinPayloadVersion || p.V > PayloadVersion {
		return nil, Errorf(EINVALID, "replication payload version %d is not supported (this build reads versions %d to %d)", p.V, MinPayloadVersion, PayloadVersion)
	}
	if p.Kind() == "" {
		return nil, Errorf(EINVALID, "a replication payload needs exactly one of chat, append, truncate, run, curate, delete, reset or agent")
	}
	return &p, nil
}

// ReplicationOp is one operation of the outbox.
type ReplicationOp struct {
	// ID is the globally unique operation id, OpID(Host, Seq); empty while Host is empty.
	ID string `json:"id"`
	// Host is the host id the operation was written under; empty when it was written while the
	// database's host id belonged to another machine (see HostCheck): such operations get the
	// new id taken with NewHostID.
	Host string `json:"host"`
	// Seq is the operation's local sequence: increasing, never reused, not contiguous.
	Seq int64 `json:"seq"`
	// ChatID is the lane, LaneSeq the operation's place in it: 1, 2, 3, ... without gaps.
	ChatID  string `json:"chat_id"`
	LaneSeq int64  `json:"lane_seq"`
	Kind    OpKind `json:"kind"`
	// Payload is the encoded OpPayload, exactly as the digest covers it.
	Payload json.RawMessage `json:"payload"`
	// Digest is LaneDigest over the previous operation's digest and this one.
	Digest    string    `json:"digest"`
	CreatedAt time.Time `json:"created_at"`
}

// OpID is the operation id of a host's local sequence number: "<host>.<seq>".
func OpID(host string, seq int64) string {
	if host == "" {
		return ""
	}
	return host + "." + strconv.FormatInt(seq, 10)
}

// ParseOpID splits an operation id into its host id and local sequence.
func ParseOpID(id string) (host string, seq int64, err error) {
	i := strings.LastIndexByte(id, '.')
	if i <= 0 {
		return "", 0, Errorf(EINVALID, "operation id %q is not <host id>.<sequence>", id)
	}
	seq, err = strconv.ParseInt(id[i+1:], 10, 64)
	if err != nil || seq <= 0 {
		return "", 0, Errorf(EINVALID, "operation id %q has no positive sequence after the last dot", id)
	}
	return id[:i], seq, nil
}

// LaneDigest chains one operation to its lane: the SHA-256, in hex, of a fixed label, the
// previous operation's digest ("" for the first of a lane), the chat, the lane sequence, the kind
// and the payload's bytes (length-prefixed). The operation id is not covered: a lane's digest
// says what the lane holds, whichever host id delivered it, so a host and the remote that applied
// the same lane agree on it.
func LaneDigest(prev, chatID string, laneSeq int64, kind OpKind, payload []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "annals-lane-v1\n%s\n%s\n%d\n%s\n%d\n", prev, chatID, laneSeq, kind, len(payload))
	h.Write(payload)
	return hex.EncodeToString(h.Sum(nil))
}
