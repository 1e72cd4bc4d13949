package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// The change feed a remote answers (docs/REPLICATION.md, "The change feed and the mirror"):
// the chats of the caller's tenant that changed after a cursor, each read whole as the remote
// holds it now, for a mirror (annals replicate pull) and for hosts taking back the curation of
// their own chats. Only the caller's tenant: never another tenant's chats or their ids.

// ReplicaFeed returns a page of the caller's tenant's feed; see Replica. It takes the keys
// that may replicate (operator, admin): a member key sees only its own chats, and the feed
// names every chat of the tenant.
func (s *Service) ReplicaFeed(ctx context.Context, req *annals.ReplicaFeedRequest) (*annals.ReplicaFeed, error) {
	p, err := replicator(ctx)
	if err != nil {
		return nil, err
	}
	fs, ok := s.store.(annals.FeedStore)
	if !ok {
		return nil, annals.Errorf(annals.ENOTIMPLEMENTED, "this store keeps no change feed")
	}
	if req.After < 0 {
		return nil, annals.Errorf(annals.EINVALID, "after is %d (a cursor is 0 or a sequence the feed gave)", req.After)
	}
	limit := req.Limit
	if limit == 0 {
		limit = annals.DefaultFeedChats
	}
	if limit < 1 || limit > annals.MaxFeedChats {
		return nil, annals.Errorf(annals.EINVALID, "limit is %d (from 1 to %d chats a page)", req.Limit, annals.MaxFeedChats)
	}
	if err := enableFeed(ctx, fs); err != nil {
		return nil, err
	}
	changes, err := fs.FeedChanges(ctx, p.TenantID, req.After, limit)
	if err != nil {
		return nil, err
	}
	out := &annals.ReplicaFeed{TenantID: p.TenantID, Changes: []*annals.FeedChat{}, Cursor: req.After, More: len(changes) == limit}
	size := 0
	for i, c := range changes {
		if i > 0 && size > annals.MaxFeedBytes {
			out.More = true
			break
		}
		fc, n, err := s.feedChat(ctx, fs, p.TenantID, c)
		if err != nil {
			return nil, err
		}
		out.Changes = append(out.Changes, fc)
		out.Cursor = c.Seq
		size += n
	}
	return out, nil
}

// feedChat reads one chat of the feed whole (or its tombstone) and about how many bytes it
// holds. A chat gone since its change, or now of another tenant, is a tombstone here: its
// later change is in the feed too.
func (s *Service) feedChat(ctx context.Context, fs annals.FeedStore, tenant string, c *annals.FeedChange) (*annals.FeedChat, int, error) {
	fc := &annals.FeedChat{Seq: c.Seq, ChatID: c.ChatID, Deleted: c.Deleted}
	if c.Deleted {
		return fc, 0, nil
	}
	chat, err := s.store.FindChatByID(ctx, c.ChatID)
	if annals.ErrorCode(err) == annals.ENOTFOUND || (err == nil && chat.TenantID != tenant) {
		fc.Deleted = true
		return fc, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	fc.Chat = chat
	if fc.Entries, err = s.store.FindEntries(ctx, annals.EntryFilter{ChatID: c.ChatID}); err != nil {
		return nil, 0, err
	}
	if fc.Runs, err = s.store.FindRuns(ctx, c.ChatID); err != nil {
		return nil, 0, err
	}
	stamps, err := fs.ChatFieldStamps(ctx, c.ChatID)
	if err != nil {
		return nil, 0, err
	}
	if len(stamps) > 0 {
		fc.Stamps = stamps
	}
	size := 0
	for _, e := range fc.Entries {
		size += e.Size()
	}
	return fc, size, nil
}

// enableFeed makes a database that receives replicated operations keep its feed (a remote is a
// feed source from its first one), so that its first feed read does not backfill a large
// collection; a store that keeps no feed is left alone. Once on, it costs nothing.
//
// The switch-on backfills the whole feed in one transaction while writers that found the feed
// off wait for it: it runs to its end even when the request that started it is cancelled, or a
// client that gives up early would cancel it every time on a large database and no push or feed
// read would ever get through.
func enableFeed(ctx context.Context, store any) error {
	if fs, ok := store.(annals.FeedStore); ok {
		return fs.EnableFeed(context.WithoutCancel(ctx))
	}
	return nil
}
