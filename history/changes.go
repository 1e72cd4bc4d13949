package history

import (
	"context"
	"sync"

	"github.com/annals-dev/annals"
)

// The change feed. After a write through this service commits — a capture, a curation, a
// delete, a replicated operation, an import through LocalCapture — the service tells the
// watches of this process that the chat changed, so a live page (the web UI's streams) reads
// it at once instead of on its next poll. A watch is only a wake-up: it carries no chat id, no
// text and no count, and it is woken only by chats its caller can read (the scope resolved
// when it was opened), so a wake-up never tells one tenant anything about another's writes.
// The reader then reads through the service like any other read. Writes by another process
// or another server on the same database never reach the feed: a watcher keeps a slower poll
// for those.

// DefaultMaxWatches bounds the watches a service holds open at once.
const DefaultMaxWatches = 1024

// Watch is an open subscription to the change feed. Wake delivers a value when a chat it
// covers changed (several changes before it is read are one wake-up). Close it when done.
// A nil *Watch is valid: it never wakes and closing it does nothing.
type Watch struct {
	wake   chan struct{}
	owner  annals.Owner
	chatID string // "" any chat in the owner's scope
	feed   *changeFeed
}

// Wake is the channel a change is signalled on (nil for a nil watch: it never fires).
func (w *Watch) Wake() <-chan struct{} {
	if w == nil {
		return nil
	}
	return w.wake
}

// Close ends the watch; it is safe to call more than once.
func (w *Watch) Close() {
	if w == nil {
		return
	}
	w.feed.remove(w)
}

// covers reports whether a change of chat id, owned by owner, wakes w.
func (w *Watch) covers(id string, owner annals.ChatOwner) bool {
	if w.chatID != "" && w.chatID != id {
		return false
	}
	return w.owner.Matches(&annals.Chat{TenantID: owner.TenantID, UserID: owner.UserID, AgentID: owner.AgentID})
}

// changeFeed holds the open watches.
type changeFeed struct {
	mu      sync.Mutex
	watches map[*Watch]struct{}
	max     int
}

func newChangeFeed(max int) *changeFeed {
	if max <= 0 {
		max = DefaultMaxWatches
	}
	return &changeFeed{watches: map[*Watch]struct{}{}, max: max}
}

func (f *changeFeed) add(w *Watch) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.watches) >= f.max {
		return annals.Errorf(annals.EUNAVAILABLE, "this server already follows %d live pages (the most it holds); this one is updated by polling", f.max)
	}
	f.watches[w] = struct{}{}
	return nil
}

func (f *changeFeed) remove(w *Watch) {
	f.mu.Lock()
	delete(f.watches, w)
	f.mu.Unlock()
}

func (f *changeFeed) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watches)
}

// publish wakes the watches that cover chat id of owner. It never blocks: a watch already
// holding a wake-up keeps that one.
func (f *changeFeed) publish(id string, owner annals.ChatOwner) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for w := range f.watches {
		if w.covers(id, owner) {
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}
}

// Watch opens a watch on the caller's chats: chatID "" wakes on any chat in the caller's
// scope, else only on the chat that id names (found like any by-id read, so a chat outside the
// scope is the usual not-found). Over the service's bound (Config.MaxWatches) it answers
// unavailable, and the caller falls back to polling. The caller must Close it.
func (s *Service) Watch(ctx context.Context, chatID string) (*Watch, error) {
	res, err := Resolve(ctx, "")
	if err != nil {
		return nil, err
	}
	w := &Watch{wake: make(chan struct{}, 1), owner: res.Owner, feed: s.changes}
	if chatID != "" {
		chat, err := s.findChat(ctx, "watch", res, chatID)
		if err != nil {
			return nil, err
		}
		w.chatID = chat.ID
	}
	if err := s.changes.add(w); err != nil {
		return nil, err
	}
	return w, nil
}

// Watches is the number of watches open now (for tests and metrics).
func (s *Service) Watches() int { return s.changes.len() }

// changed tells the feed that the chats ops wrote to changed, with the owners the guard bound
// them to (a chat op carries its owner, every other op its Expect).
func (s *Service) changed(ops []annals.CaptureOp) {
	for _, op := range ops {
		switch {
		case op.Chat != nil:
			s.changes.publish(op.Chat.ID, op.Chat.OwnedBy())
		case op.Expect != nil:
			s.changes.publish(op.TargetID(), *op.Expect)
		}
	}
}

// changedByID tells the feed that the chats with these ids changed, reading their owners (a
// write that was not bound to an owner: a local import, a replicated operation). Nothing is
// read while nobody watches.
func (s *Service) changedByID(ctx context.Context, ids ...string) {
	if s.changes.len() == 0 {
		return
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		if chat, err := s.store.FindChatByID(ctx, id); err == nil {
			s.changes.publish(chat.ID, chat.OwnedBy())
		}
	}
}

// LocalCapture is the capture path of the machine's own writers (annals import, ingest, and
// the import --watch of annals serve): redaction in front of the store, no caller checks (they
// write the local database as its owner), and the change feed after each commit, so a page
// this process serves sees what they import at once.
func (s *Service) LocalCapture() annals.CaptureStore { return localCapture{s} }

type localCapture struct{ s *Service }

func (l localCapture) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	res, err := l.s.capture.Capture(ctx, ops)
	if err != nil {
		return nil, err
	}
	l.s.changedByID(ctx, opChatIDs(nil, ops)...)
	return res, nil
}

// CanCaptureEach reports whether CaptureEach applies its lists in one transaction (the store
// can); when not, CaptureEach refuses before writing anything (ErrNoCaptureEach).
func (l localCapture) CanCaptureEach() bool { return l.s.capture.CanCaptureEach() }

// CaptureEach applies the lists in one transaction (annals.CaptureEachStore), then publishes
// the changes of every chat they touched.
func (l localCapture) CaptureEach(ctx context.Context, lists [][]annals.CaptureOp) ([]*annals.CaptureResult, error) {
	res, err := l.s.capture.CaptureEach(ctx, lists)
	if err != nil {
		return nil, err
	}
	l.changedEach(ctx, lists)
	return res, nil
}

// CanCaptureEachSaving reports whether CaptureEachSaving saves the import states in the
// transaction of the lists (the store can); when not, it refuses before writing anything.
func (l localCapture) CanCaptureEachSaving() bool { return l.s.capture.CanCaptureEachSaving() }

// CaptureEachSaving applies the lists and saves the import states in one transaction
// (annals.ImportCaptureStore), then publishes the changes of every chat they touched.
func (l localCapture) CaptureEachSaving(ctx context.Context, lists [][]annals.CaptureOp, states func([]*annals.CaptureResult) []*annals.ImportSource) ([]*annals.CaptureResult, error) {
	res, err := l.s.capture.CaptureEachSaving(ctx, lists, states)
	if err != nil {
		return nil, err
	}
	l.changedEach(ctx, lists)
	return res, nil
}

// changedEach publishes the changes of every chat the lists touched.
func (l localCapture) changedEach(ctx context.Context, lists [][]annals.CaptureOp) {
	var ids []string
	for _, ops := range lists {
		ids = opChatIDs(ids, ops)
	}
	l.s.changedByID(ctx, ids...)
}

// opChatIDs appends the id of the chat each op creates or writes to.
func opChatIDs(ids []string, ops []annals.CaptureOp) []string {
	for _, op := range ops {
		if op.Chat != nil {
			ids = append(ids, op.Chat.ID)
		} else {
			ids = append(ids, op.TargetID())
		}
	}
	return ids
}
