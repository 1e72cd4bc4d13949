package storecore

import (
	"time"

	"github.com/annals-dev/annals"
)

// MirrorTx is what ApplyMirror needs of a store inside its write transaction.
type MirrorTx interface {
	// MirrorState reads the mirror's record (nil: none); SetMirrorState writes it.
	MirrorState() (*annals.MirrorState, error)
	SetMirrorState(s *annals.MirrorState) error
	// HasChats reports whether the database holds any chat.
	HasChats() (bool, error)
	// ChatRef returns the ref of the chat held with this id (nil: none).
	ChatRef(chatID string) (*annals.ChatRef, error)
	// Capture and Delete write through the store's own paths.
	Capture(ops []annals.CaptureOp) error
	Delete(ref annals.ChatRef) error
}

// mirrorAppendEntries bounds the entries of one append op of a mirrored chat.
const mirrorAppendEntries = 500

// ApplyMirror applies a page of a remote's feed through tx (annals.MirrorStore): the database
// must be a mirror of the same remote and tenant, or hold no chat yet; each chat's copy is
// removed and, unless the page has its tombstone, written again whole as the page holds it.
func ApplyMirror(tx MirrorTx, state *annals.MirrorState, chats []*annals.FeedChat, now time.Time) error {
	if state == nil || state.Remote == "" {
		return annals.Errorf(annals.EINVALID, "a mirror needs the remote it follows")
	}
	cur, err := tx.MirrorState()
	if err != nil {
		return err
	}
	if cur == nil {
		held, err := tx.HasChats()
		if err != nil {
			return err
		}
		if held {
			return annals.Errorf(annals.ECONFLICT, "this database holds chats of its own: a mirror of %s needs a database of its own (annals replicate pull --mirror PATH)", state.Remote)
		}
	} else if cur.Remote != state.Remote || cur.TenantID != state.TenantID {
		return annals.Errorf(annals.ECONFLICT, "this database mirrors tenant %q of %s, not tenant %q of %s: pull into another mirror", cur.TenantID, cur.Remote, state.TenantID, state.Remote)
	}
	for _, fc := range chats {
		if err := mirrorChat(tx, fc); err != nil {
			return err
		}
	}
	next := *state
	next.UpdatedAt = now.UTC()
	return tx.SetMirrorState(&next)
}

// mirrorChat replaces the mirror's copy of one chat with the feed's.
func mirrorChat(tx MirrorTx, fc *annals.FeedChat) error {
	ref, err := tx.ChatRef(fc.ChatID)
	if err != nil {
		return err
	}
	if ref != nil {
		if err := tx.Delete(*ref); err != nil {
			return err
		}
	}
	if fc.Deleted || fc.Chat == nil {
		return nil
	}
	return tx.Capture(MirrorOps(fc))
}

// MirrorOps are the capture ops that write a feed's chat whole: its creation with its human
// layer, its entries (with their times) in bounded appends, its runs.
func MirrorOps(fc *annals.FeedChat) []annals.CaptureOp {
	c := ChatPayload(fc.Chat, fc.Chat.CreatedAt).Chat
	ops := []annals.CaptureOp{{Chat: c}}
	for start := 0; start < len(fc.Entries); start += mirrorAppendEntries {
		part := fc.Entries[start:min(start+mirrorAppendEntries, len(fc.Entries))]
		ops = append(ops, annals.CaptureOp{Append: &annals.AppendOp{ChatID: c.ID, Entries: part}})
	}
	for _, r := range fc.Runs {
		ops = append(ops, annals.CaptureOp{Run: r})
	}
	return ops
}
