package annals

import (
	"context"
	"errors"
	"fmt"
)

// CaptureOp is one write of the capture path. Exactly one field is set.
type CaptureOp struct {
	// Chat creates a chat, idempotently: the same id with the same immutable data is a no-op
	// (its mutable metadata is left alone); the same id with different tenant, user, agent or
	// attributes is a conflict. The human layer given with it (title, description, tags,
	// pinned, archived_at, summary and summary_updated_at) is taken only when the chat is new.
	Chat *Chat `json:"chat,omitempty"`
	// Append appends entries to an existing chat, idempotently by entry id.
	Append *AppendOp `json:"append,omitempty"`
	// Truncate rewinds a chat: removes the named entry and every entry after it.
	Truncate *TruncateOp `json:"truncate,omitempty"`
	// Run records (upserts) a run of an existing chat.
	Run *Run `json:"run,omitempty"`

	// Expect, when set on an append, truncate or run, binds the op to the chat its caller
	// checked: the store applies it only if the target chat has exactly this owner when the op
	// runs, inside the capture transaction, and answers not_found otherwise. The history service
	// sets it on every op it lets through; it is never read from a wire format.
	Expect *ChatOwner `json:"-"`
}

// AppendOp appends entries to one chat.
type AppendOp struct {
	ChatID  string   `json:"chat_id"`
	Entries []*Entry `json:"entries"`
}

// TruncateOp rewinds one chat.
type TruncateOp struct {
	ChatID string        `json:"chat_id"`
	Point  TruncatePoint `json:"point"`
}

// TargetID returns the id of the existing chat an append, truncate or run writes to, and ""
// for a chat op (which creates its chat) or a malformed op.
func (op *CaptureOp) TargetID() string {
	switch {
	case op.Chat != nil:
		return ""
	case op.Append != nil:
		return op.Append.ChatID
	case op.Truncate != nil:
		return op.Truncate.ChatID
	case op.Run != nil:
		return op.Run.ChatID
	}
	return ""
}

// Validate checks the op's shape and values without touching a store.
func (op *CaptureOp) Validate() error {
	n := 0
	for _, set := range []bool{op.Chat != nil, op.Append != nil, op.Truncate != nil, op.Run != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return Errorf(EINVALID, "a capture op needs exactly one of chat, append, truncate or run")
	}
	switch {
	case op.Chat != nil:
		return op.Chat.Validate()
	case op.Append != nil:
		if err := ValidateID("chat_id", op.Append.ChatID); err != nil {
			return err
		}
		if len(op.Append.Entries) > MaxBatchEntries {
			return Errorf(EINVALID, "an append carries %d entries (at most %d allowed)", len(op.Append.Entries), MaxBatchEntries)
		}
		for i, e := range op.Append.Entries {
			if e == nil {
				return Errorf(EINVALID, "entries[%d] is null", i)
			}
			if err := e.Validate(); err != nil {
				return &Error{Code: ErrorCode(err), Message: fmt.Sprintf("entries[%d]: %s", i, ErrorMessage(err)), Err: err}
			}
		}
		return nil
	case op.Truncate != nil:
		if err := ValidateID("chat_id", op.Truncate.ChatID); err != nil {
			return err
		}
		return op.Truncate.Point.Validate()
	default:
		return op.Run.Validate()
	}
}

// CaptureResult counts what a capture batch did, net of itself: an entry the batch appended and
// one of its truncations then removed was neither there before nor is it after, so it counts as
// neither appended nor removed (a replayed rewind reports nothing). EntriesRemoved counts the
// entries that were there before the batch and are not after.
type CaptureResult struct {
	ChatsCreated    int `json:"chats_created"`
	ChatsUnchanged  int `json:"chats_unchanged"`
	EntriesAppended int `json:"entries_appended"`
	EntriesSkipped  int `json:"entries_skipped"`
	EntriesRemoved  int `json:"entries_removed"`
	RunsRecorded    int `json:"runs_recorded"`
	// LastSeq is the last seq of the chat that the batch's last append or truncate wrote to,
	// as that op left it inside the transaction (for the single-op answers; not on the wire).
	LastSeq int64 `json:"-"`
	// Chat and Run are, for a batch of one chat op or one run op, the chat or the run as
	// stored after it (for the single-op answers; not on the wire). A capture path that cannot
	// know them (best-effort capture that recorded nothing) leaves them nil.
	Chat *Chat `json:"-"`
	Run  *Run  `json:"-"`
}

// Add adds other's counts to r.
func (r *CaptureResult) Add(other CaptureResult) {
	r.ChatsCreated += other.ChatsCreated
	r.ChatsUnchanged += other.ChatsUnchanged
	r.EntriesAppended += other.EntriesAppended
	r.EntriesSkipped += other.EntriesSkipped
	r.EntriesRemoved += other.EntriesRemoved
	r.RunsRecorded += other.RunsRecorded
	if other.LastSeq != 0 {
		r.LastSeq = other.LastSeq
	}
}

// BatchError says which op of a batch failed. The whole batch was rolled back.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string { return fmt.Sprintf("op %d: %v", e.Index, e.Err) }

// Unwrap returns the op's error, so ErrorCode and ErrorMessage see its code and message.
func (e *BatchError) Unwrap() error { return e.Err }

// BatchIndex returns the index of the failed op when err is (or wraps) a *BatchError.
func BatchIndex(err error) (int, bool) {
	var be *BatchError
	if errors.As(err, &be) {
		return be.Index, true
	}
	return 0, false
}

// CaptureStore is the write side of a store: one method. Capture applies ops in order in one
// transaction, together with the derived state (seq numbers, chat counters and last activity,
// chat status, full-text index rows), and either commits all of it or none of it; on failure
// the error is a *BatchError naming the failed op. Every wrapper of the capture path (redaction,
// the history service's checks, best-effort capture, the HTTP client) is this one method, and
// the single-op conveniences — CreateChat, AppendEntries, TruncateChat, RecordRun — are
// functions over any CaptureStore (capture_ops.go).
//
// Errors: invalid (bad input: names the field and what is allowed), not_found (the chat of an
// append, truncate or run does not exist; the truncation point does not exist), conflict (a chat
// id reused with different immutable data, a run id of another chat), forbidden (the store was
// opened read-only), unavailable (the database cannot be reached), internal.
type CaptureStore interface {
	Capture(ctx context.Context, ops []CaptureOp) (*CaptureResult, error)
}

// CaptureEachStore is a CaptureStore that can apply several lists of ops in one transaction,
// each as Capture would apply it alone, with a result per list: an importer writes many small
// sources this way, paying a transaction's fixed cost (index flushes, the commit) once for all
// of them. All or nothing: on an error nothing of any list is applied, and the error names the
// op by its place in its list (BatchError) as Capture's would. The results hold the counts (a
// one-op list's chat or run is not read back).
type CaptureEachStore interface {
	CaptureStore
	CaptureEach(ctx context.Context, lists [][]CaptureOp) ([]*CaptureResult, error)
}

// ChatStore is the read and curate side of a store. Owner constraints are applied inside the
// store's SQL; the history service decides them from the caller's principal.
type ChatStore interface {
	// FindChatByID returns one chat, whoever owns it: the caller checks the scope after the
	// fetch and folds a mismatch into the same not-found.
	// Errors: not_found, unavailable, internal.
	FindChatByID(ctx context.Context, id string) (*Chat, error)

	// FindChats returns the chats matching the filter inside filter.Owner, pinned first, then
	// most recent activity first, then id; and the total number of matches ignoring paging.
	// Errors: invalid (a bad filter value), unavailable, internal.
	FindChats(ctx context.Context, filter ChatFilter) ([]*Chat, int, error)

	// MatchChatIDs returns the ids of up to limit chats inside owner whose id starts with
	// prefix or holds it right after a ':' (the chats ChatFilter.IDPrefix keeps, archived ones
	// included), found by index range scans whatever the number of chats: what resolves an id
	// a person gave. The order is the stores' own (by the matching text, then age).
	// Errors: unavailable, internal.
	MatchChatIDs(ctx context.Context, owner Owner, prefix string, limit int) ([]string, error)

	// ChatIDsWithAttribute returns the ids of up to limit chats inside owner whose attribute key
	// is exactly value (archived ones included), in list order (pinned, most recent activity,
	// id), found through the attribute index whatever the number of chats.
	// Errors: unavailable, internal.
	ChatIDsWithAttribute(ctx context.Context, owner Owner, key, value string, limit int) ([]string, error)

	// FindEntries returns entries of one chat in seq order.
	// Errors: invalid, unavailable, internal. A chat with no entries (or no such chat) gives an
	// empty slice: callers check the chat first.
	FindEntries(ctx context.Context, filter EntryFilter) ([]*Entry, error)

	// FindRuns returns a chat's runs, oldest first.
	// Errors: unavailable, internal.
	FindRuns(ctx context.Context, chatID string) ([]*Run, error)

	// FindRunsByID returns the runs of chat chatID among ids, oldest first, each read by its id
	// whatever the chat's number of runs (the runs a page of entries belongs to; the caller
	// sends at most a few thousand distinct ids). An id of no run, or of another chat's run, is
	// left out. Errors: unavailable, internal.
	FindRunsByID(ctx context.Context, chatID string, ids []string) ([]*Run, error)

	// UpdateChat changes the mutable metadata and the metadata index row of the chat ref names,
	// and returns the updated chat. The change is made only if the chat with ref.ID still has
	// ref's owner and incarnation, checked in the same transaction; otherwise nothing changes and
	// the answer is not_found. Errors: invalid, not_found, forbidden, unavailable, internal.
	UpdateChat(ctx context.Context, ref ChatRef, upd ChatUpdate) (*Chat, error)

	// DeleteChat removes the chat ref names with its entries, runs and index rows, in one
	// statement constrained by ref's id, owner and incarnation; a chat that no longer matches is
	// left alone and the answer is not_found. Errors: not_found, forbidden, unavailable, internal.
	DeleteChat(ctx context.Context, ref ChatRef) error
}

// TextMatch is a literal full-text lookup: every term must occur (AND), each term matched as a
// token sequence, never interpreted as query syntax. It is the primitive the full-text index is
// tested with; the search language compiles to the store's own richer queries.
type TextMatch struct {
	Owner Owner
	Terms []string
	Limit int
}

// EntryRef points at one entry.
type EntryRef struct {
	ChatID string `json:"chat_id"`
	Seq    int64  `json:"seq"`
}

// TextIndex answers literal lookups against the full-text indexes. It is the test hook the
// conformance suite (storetest) checks every index change with; no operation uses it, so it is
// not part of Store: both backends implement it, and storetest requires it.
type TextIndex interface {
	// MatchEntries returns the entries (in owner scope) whose text, reasoning, tool name,
	// arguments or result contain every term, ordered by chat id then seq.
	// Errors: invalid (no terms), unavailable, internal.
	MatchEntries(ctx context.Context, m TextMatch) ([]EntryRef, error)

	// MatchChats returns the ids of chats (in owner scope) whose title, description, summary
	// or tags contain every term, ordered by id.
	// Errors: invalid (no terms), unavailable, internal.
	MatchChats(ctx context.Context, m TextMatch) ([]string, error)
}

// Store is what a storage backend must provide for the history service. The optional
// capabilities are interfaces of their own, found by type assertion: Rescanner, KeyStore,
// ImportStateStore, ChatCopier, and the TextIndex test hook (the query view's store contract is
// view.Store, in its own package). A consumer that needs one a store lacks answers
// ENOTIMPLEMENTED.
type Store interface {
	CaptureStore
	ChatStore
	SearchStore
	EmbeddingStore
	// Close releases the store's connections.
	Close() error
}
