package storecore

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/annals-dev/annals"
)

// The change feed (annals.FeedStore, docs/REPLICATION.md): a write transaction marks the chats
// it changes (FeedMarks.Touch); before it commits, the store writes them (WriteFeed): each chat
// gets the next sequence of its tenant's feed. The tenant's counter row stays locked until the
// commit, so a tenant's sequences commit in order — a reader that saw sequence n has seen
// every sequence before it — and it is taken last in the transaction, after every chat row the
// transaction locks, so that two writers never wait on each other in opposite orders.

// FeedMark is a chat a transaction changed: its tenant when the writer knows it ("" looks it up
// when the feed is written) and whether the change deleted it.
type FeedMark struct {
	ChatID   string
	TenantID string
	Deleted  bool
}

// FeedMarks holds the marks of the store's open write transactions, and whether the database
// keeps a feed as far as this process knows. The zero value is ready.
//
// A database keeps a feed only once it serves one (EnableFeed: its first replicated operation,
// or its first feed read): a host's captures pay nothing for a feed nobody reads. The state is
// in the database, so every process writing it agrees; once on, it stays on, so a process that
// saw it on skips the check.
type FeedMarks struct {
	mu  sync.Mutex
	txs map[any]map[string]FeedMark
	on  atomic.Bool
	// AfterOff, when set (a test seam: the stores' Options.AfterFeedOff), is called inside a
	// write transaction right after it found the feed off, before it commits without feed rows.
	AfterOff func()
}

// ErrFeedOffReadOnly is EnableFeed's answer on a database opened read-only whose feed is off:
// switching it on is a write (every chat enters the feed), so the answer says what does it. A
// read-only process that asks again later finds the feed on once it was switched on elsewhere.
func ErrFeedOffReadOnly() error {
	return annals.Errorf(annals.EFORBIDDEN, "this database keeps no change feed yet, and a read-only server cannot start one (switching it on is a write: every chat enters the feed): run 'annals migrate --feed' on the database once, or serve it once without --read-only; a read-only server then serves the feed, without a restart")
}

// SetOn records that the database keeps a feed (it never stops).
func (f *FeedMarks) SetOn() { f.on.Store(true) }

// On reports whether this process knows the database keeps a feed.
func (f *FeedMarks) On() bool { return f.on.Load() }

// Touch marks chatID as changed by tx (the store's transaction value); tenantID may be "".
func (f *FeedMarks) Touch(tx any, chatID, tenantID string, deleted bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.txs == nil {
		f.txs = map[any]map[string]FeedMark{}
	}
	m := f.txs[tx]
	if m == nil {
		m = map[string]FeedMark{}
		f.txs[tx] = m
	}
	prev := m[chatID]
	if tenantID == "" {
		tenantID = prev.TenantID
	}
	m[chatID] = FeedMark{ChatID: chatID, TenantID: tenantID, Deleted: deleted}
}

// Take returns tx's marks, ordered by chat id, and forgets them.
func (f *FeedMarks) Take(tx any) []FeedMark {
	f.mu.Lock()
	m := f.txs[tx]
	delete(f.txs, tx)
	f.mu.Unlock()
	out := make([]FeedMark, 0, len(m))
	for _, mark := range m {
		out = append(out, mark)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ChatID < out[j].ChatID })
	return out
}

// Forget drops tx's marks (the transaction ended without writing them).
func (f *FeedMarks) Forget(tx any) {
	f.mu.Lock()
	delete(f.txs, tx)
	f.mu.Unlock()
}

// Write writes the feed rows of the chats tx changed, when the database keeps a feed (last in
// the transaction, before the commit); a transaction that changed none asks nothing.
func (f *FeedMarks) Write(tx any, ftx FeedTx) error {
	marks := f.Take(tx)
	if len(marks) == 0 {
		return nil
	}
	if !f.On() {
		on, err := ftx.FeedOn()
		if err != nil {
			return err
		}
		if !on {
			if f.AfterOff != nil {
				f.AfterOff()
			}
			return nil
		}
		f.SetOn()
	}
	return WriteFeed(ftx, marks)
}

// FeedTx is what WriteFeed needs of a store inside its write transaction.
type FeedTx interface {
	// FeedOn reports whether the database keeps a feed; answered off, it holds off the feed's
	// switching on (EnableFeed) until the transaction ends, so the backfill sees its changes.
	FeedOn() (bool, error)
	// ChatTenants returns the tenant of each of the chats the database holds among ids.
	ChatTenants(ids []string) (map[string]string, error)
	// AppendFeed takes len(marks) sequences of tenant's feed — locking the tenant's counter
	// until the transaction ends — and stores each chat's feed row at its own, in order.
	AppendFeed(tenantID string, marks []FeedMark) error
}

// WriteFeed gives each marked chat the next sequence of its tenant's feed, tenants in order:
// a chat the database holds at the end of the transaction is a change (whatever happened to it
// before in the transaction), one it no longer holds is a tombstone of the tenant it was
// deleted from (a mark with no tenant and no chat is dropped).
func WriteFeed(tx FeedTx, marks []FeedMark) error {
	ids := make([]string, len(marks))
	for i, m := range marks {
		ids[i] = m.ChatID
	}
	held, err := tx.ChatTenants(ids)
	if err != nil {
		return err
	}
	byTenant := map[string][]FeedMark{}
	for _, m := range marks {
		tenant, ok := held[m.ChatID]
		switch {
		case ok:
			m.TenantID, m.Deleted = tenant, false
		case m.TenantID == "":
			continue
		default:
			m.Deleted = true
		}
		byTenant[m.TenantID] = append(byTenant[m.TenantID], m)
	}
	return appendByTenant(tx, byTenant)
}

// OpChatID is the chat a capture op writes to.
func OpChatID(op *annals.CaptureOp) string {
	switch {
	case op.Chat != nil:
		return op.Chat.ID
	case op.Append != nil:
		return op.Append.ChatID
	case op.Truncate != nil:
		return op.Truncate.ChatID
	case op.Run != nil:
		return op.Run.ChatID
	}
	return ""
}

// CaptureChanged reports whether an op changed its chat, from the batch's counts before and
// after it (an idempotent repeat changes none of them).
func CaptureChanged(before, after *annals.CaptureResult) bool {
	return after.ChatsCreated != before.ChatsCreated || after.EntriesAppended != before.EntriesAppended ||
		after.EntriesRemoved != before.EntriesRemoved || after.RunsRecorded != before.RunsRecorded
}

// FeedBackfillTx is what BackfillFeed needs of a store inside the transaction that switches its
// feed on, holding off every writer that found it off.
type FeedBackfillTx interface {
	FeedTx
	// StaleFeedRows returns the feed rows of chats not deleted that the database no longer holds
	// in that tenant, by tenant and sequence.
	StaleFeedRows() ([]FeedMark, error)
	// HeldChats returns every chat held, with its tenant, in the order they were created.
	HeldChats() ([]FeedMark, error)
}

// BackfillFeed brings a feed that was off up to the database, gap-free for any reader: every
// chat once more after the tenant's last sequence (what changed while the feed was off is not
// known, so all is sent again; a reader reads each chat once more), after a tombstone of each
// chat its feed still holds that is gone. A database that never kept a feed gets its chats in
// creation order, as the feed's migration did.
func BackfillFeed(tx FeedBackfillTx) error {
	stale, err := tx.StaleFeedRows()
	if err != nil {
		return err
	}
	held, err := tx.HeldChats()
	if err != nil {
		return err
	}
	byTenant := map[string][]FeedMark{}
	for _, m := range stale {
		m.Deleted = true
		byTenant[m.TenantID] = append(byTenant[m.TenantID], m)
	}
	for _, m := range held {
		m.Deleted = false
		byTenant[m.TenantID] = append(byTenant[m.TenantID], m)
	}
	return appendByTenant(tx, byTenant)
}

// appendByTenant appends each tenant's marks to its feed, tenants in a fixed order so that two
// writers lock tenants' feed rows in the same order.
func appendByTenant(tx interface {
	AppendFeed(tenant string, marks []FeedMark) error
}, byTenant map[string][]FeedMark) error {
	tenants := make([]string, 0, len(byTenant))
	for t := range byTenant {
		tenants = append(tenants, t)
	}
	sort.Strings(tenants)
	for _, t := range tenants {
		if err := tx.AppendFeed(t, byTenant[t]); err != nil {
			return err
		}
	}
	return nil
}
