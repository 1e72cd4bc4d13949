package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// The repair side of remote apply (docs/REPLICATION.md, "Verify and repair"): a reset replaces
// what the remote holds of a chat with the host's state, and the heads route tells a host what
// the remote's copy of each lane's chat holds.

// originChat is a replicated chat's creation data with the host of origin added as an
// attribute.
func originChat(c *annals.Chat, host string) *annals.Chat {
	cp := *c
	cp.Attributes = make(annals.Attributes, len(c.Attributes)+1)
	for k, v := range c.Attributes {
		cp.Attributes[k] = v
	}
	cp.Attributes[OriginHostAttr] = host
	return &cp
}

// replicaReset binds a reset: the remote's copy of the chat, when the caller's scope holds one
// it may change, is named to be removed; then the chat is created from the host's state as a
// replicated chat is, or the lane becomes a tombstone.
func (s *Service) replicaReset(ctx context.Context, p *annals.Principal, op *annals.ReplicationOp, r *annals.ResetChange, ch *annals.ReplicaChange) (*annals.ReplicaChange, error) {
	if r.Deleted == (r.Chat != nil) {
		return nil, annals.Errorf(annals.EINVALID, "operation %s: a reset carries either the chat or deleted: true", op.ID)
	}
	if r.Chat != nil && r.Chat.ID != r.ChatID {
		return nil, annals.Errorf(annals.EINVALID, "operation %s resets chat %q with the data of chat %q", op.ID, r.ChatID, r.Chat.ID)
	}
	res, err := Resolve(ctx, "")
	if err != nil {
		return nil, err
	}
	chat, err := s.inScope(ctx, res, r.ChatID)
	if err != nil {
		return nil, err
	}
	if chat != nil {
		if !CanModify(p, chat) {
			return nil, annals.Errorf(annals.EFORBIDDEN, "changing chat %q needs an operator or admin, or the chat's own user or agent", chat.ID)
		}
		ref := chat.Ref()
		ch.Ref = &ref
		ch.TenantID = chat.TenantID
	}
	if r.Deleted {
		ch.Tombstone = true
		if ch.TenantID == "" {
			ch.TenantID = p.TenantID // a tombstone of a chat never held here: the caller's
		}
		return ch, nil
	}
	ch.ResetStamps = r.Stamps
	return s.replicaCapture(ctx, annals.CaptureOp{Chat: originChat(r.Chat, op.Host)}, ch)
}

// replicaCopies fills in what the remote holds of each lane's chat in the lane's tenant (nil:
// none), so that a host's verify finds a copy that lost rows its head says were applied; the
// copies of the chats in idsOf name their entries and runs too.
func (s *Service) replicaCopies(ctx context.Context, lanes []*annals.ReplicaLane, idsOf map[string]bool) error {
	for _, l := range lanes {
		chat, err := s.store.FindChatByID(ctx, l.ChatID)
		switch {
		case annals.ErrorCode(err) == annals.ENOTFOUND:
			continue
		case err != nil:
			return err
		case chat.TenantID == l.TenantID:
			l.Copy = &annals.ReplicaCopy{Entries: chat.Totals.Entries, Runs: chat.Totals.Runs, Origin: chat.Attributes[OriginHostAttr]}
			if idsOf[l.ChatID] {
				if l.Copy.IDs, err = s.copyIDs(ctx, chat); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// copyIDs names the entries and runs the remote holds of chat (checked in the lane's tenant).
// Entries are read a page at a time (their ids are all it keeps, and a long chat's texts need
// not be in memory at once), each page bound to the chat the caller checked (EntryFilter.Ref);
// the runs, which a read cannot bind, count only if the chat is still that chat after them: a
// chat deleted and created again by another tenant in between never lends its ids.
func (s *Service) copyIDs(ctx context.Context, chat *annals.Chat) (*annals.ReplicaCopyIDs, error) {
	ref := chat.Ref()
	ids := &annals.ReplicaCopyIDs{Entries: []string{}, Runs: []string{}}
	for after := int64(0); ; {
		es, err := s.store.FindEntries(ctx, annals.EntryFilter{ChatID: chat.ID, Ref: &ref, AfterSeq: after, Limit: copyIDsPage})
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			ids.Entries = append(ids.Entries, e.ID)
		}
		if len(es) < copyIDsPage {
			break
		}
		after = es[len(es)-1].Seq
	}
	rs, err := s.store.FindRuns(ctx, chat.ID)
	if err != nil {
		return nil, err
	}
	again, err := s.store.FindChatByID(ctx, chat.ID)
	if err != nil && annals.ErrorCode(err) != annals.ENOTFOUND {
		return nil, err
	}
	if err != nil || again.Ref() != ref {
		return &annals.ReplicaCopyIDs{Entries: []string{}, Runs: []string{}}, nil
	}
	for _, r := range rs {
		ids.Runs = append(ids.Runs, r.ID)
	}
	return ids, nil
}

// copyIDsPage is how many entries copyIDs reads at a time.
const copyIDsPage = 1000
