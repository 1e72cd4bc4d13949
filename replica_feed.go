package annals

import (
	"context"
	"time"
)

// The change feed of a remote (docs/REPLICATION.md, "The change feed and the mirror"): every
// write transaction that changes a chat — a capture, a curation, a delete, a replicated
// operation — gives the chat, in that transaction, the next sequence of its tenant's feed. The
// feed is compacted: a chat appears once, at the sequence of its last change, so a reader that
// follows it from a cursor sees every chat that changed since, in the order of their last
// changes, and reads each as it is now.

// FeedChange is one chat of a tenant's feed: the sequence of its last change, and whether that
// change deleted it.
type FeedChange struct {
	Seq     int64  `json:"seq"`
	ChatID  string `json:"chat_id"`
	Deleted bool   `json:"deleted,omitempty"`
}

// FeedStore reads a database's change feed. Implemented by both stores.
type FeedStore interface {
	// EnableFeed makes the database keep its feed from now on, if it does not yet: the chats
	// it holds enter the feed after every sequence given before (a reader reads each once more),
	// and every write transaction from then on moves the chats it changes. Until then writes
	// keep no feed (a host pays nothing for one). It never turns off. Errors: forbidden (a
	// read-only database or a mirror), unavailable, internal.
	EnableFeed(ctx context.Context) error
	// FeedChanges returns the chats of tenant's feed after the sequence after, in sequence
	// order, at most limit. Errors: invalid, unavailable, internal.
	FeedChanges(ctx context.Context, tenantID string, after int64, limit int) ([]*FeedChange, error)
	// ChatFieldStamps returns the stamp of each field of a chat's human layer that a stamped
	// curation set (the conflict rule, FieldStamp). Errors: unavailable, internal.
	ChatFieldStamps(ctx context.Context, chatID string) (map[string]FieldStamp, error)
}

// ReplicaFeedRequest asks a remote for its feed after a cursor (GET /v1/replicate/feed).
type ReplicaFeedRequest struct {
	// After is the cursor: the sequence of the last change the reader applied (0 from the start).
	After int64 `json:"after"`
	// Limit bounds the chats of the answer (at most MaxFeedChats; 0 asks for the default).
	Limit int `json:"limit"`
}

// ReplicaFeed is a page of the feed: the chats that changed after the cursor, each read whole
// as the remote holds it now (or its tombstone), in sequence order.
type ReplicaFeed struct {
	// TenantID is the tenant whose feed this is (the caller's).
	TenantID string `json:"tenant_id"`
	// Changes are the page's chats, in sequence order.
	Changes []*FeedChat `json:"changes"`
	// Cursor is the sequence to ask after next (the last change of the page, or After when it
	// is empty).
	Cursor int64 `json:"cursor"`
	// More: the page was cut (by count or bytes); ask again after Cursor.
	More bool `json:"more"`
}

// FeedChat is one chat of a feed page: its feed sequence and either its tombstone or the chat
// whole — with its human layer, every entry, every run — and the stamps of its human layer's
// fields, so that a host applies a curation of its own chats by the conflict rule.
type FeedChat struct {
	Seq     int64                 `json:"seq"`
	ChatID  string                `json:"chat_id"`
	Deleted bool                  `json:"deleted,omitempty"`
	Chat    *Chat                 `json:"chat,omitempty"`
	Entries []*Entry              `json:"entries,omitempty"`
	Runs    []*Run                `json:"runs,omitempty"`
	Stamps  map[string]FieldStamp `json:"stamps,omitempty"`
}

// Feed page bounds.
const (
	// MaxFeedChats bounds the chats of one feed page; DefaultFeedChats is a page's size when
	// the reader asks for none.
	MaxFeedChats     = 200
	DefaultFeedChats = 50
	// MaxFeedBytes is about how many bytes of entries a page holds: a page stops at the first
	// chat past it (a page holds at least one chat, whole).
	MaxFeedBytes = 8 << 20
)

// MirrorState is what a mirror database records of the remote it follows: the remote, the
// tenant whose feed it is, and the cursor (the last feed sequence applied).
type MirrorState struct {
	Remote    string    `json:"remote"`
	TenantID  string    `json:"tenant_id"`
	Cursor    int64     `json:"cursor"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
}

// MirrorStore is a database that mirrors a remote's collection (annals replicate pull). A
// database becomes a mirror with its first ApplyMirror, and from then on refuses every other
// write (forbidden, naming the remote). Implemented by both stores.
type MirrorStore interface {
	// MirrorState returns the mirror's record (nil: the database is not a mirror).
	// Errors: unavailable, internal.
	MirrorState(ctx context.Context) (*MirrorState, error)
	// ApplyMirror applies a page of the remote's feed in one transaction: each chat's copy
	// replaced by the page's (or removed, for a tombstone), and the record set to state.
	// Errors: conflict (the database mirrors another remote or tenant, or holds chats of its
	// own and is no mirror), invalid, unavailable, internal.
	ApplyMirror(ctx context.Context, state *MirrorState, chats []*FeedChat) error
}

// ErrMirror is the refusal of a write to a mirror database.
func ErrMirror(remote string) error {
	return Errorf(EFORBIDDEN, "this database is a read-only mirror of %s, kept by 'annals replicate pull': make changes in your own database or on the remote", remote)
}

// CurationTaker takes back, into a host's own database, the curation of its chats that other
// hosts or the remote made (annals replicate pull). Implemented by both stores.
type CurationTaker interface {
	// TakeCuration applies to the chat held here with remote's id each field of remote's human
	// layer whose stamp (stamps) orders after the stamp the field has here (a field no stamped
	// change set here takes any), keeps those stamps, and moves the host's hybrid logical clock
	// past them, in one transaction, recording no replication operation (the change came from
	// the remote). It answers false when nothing changed: the chat is not held here, or every
	// field here is as new. Errors: forbidden (read-only), unavailable, internal.
	TakeCuration(ctx context.Context, remote *Chat, stamps map[string]FieldStamp) (bool, error)
}
