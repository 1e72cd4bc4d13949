package replicate

import (
	"context"

	"github.com/annals-dev/annals"
)

// BackfillStore is what a backfill needs of the host's database: its chats, read whole, and
// the outbox to queue them in.
type BackfillStore interface {
	snapshotReader
	ChatIDsAfter(ctx context.Context, after string, limit int) ([]string, error)
	annals.OutboxBackfill
}

// snapshotReader reads a chat whole.
type snapshotReader interface {
	FindChatByID(ctx context.Context, id string) (*annals.Chat, error)
	FindEntries(ctx context.Context, f annals.EntryFilter) ([]*annals.Entry, error)
	FindRuns(ctx context.Context, chatID string) ([]*annals.Run, error)
}

// readSnapshot reads a chat with its human layer, every entry and every run.
// Errors: not_found, unavailable, internal.
func readSnapshot(ctx context.Context, s snapshotReader, id string) (*annals.ChatSnapshot, error) {
	var snap annals.ChatSnapshot
	var err error
	if snap.Chat, err = s.FindChatByID(ctx, id); err != nil {
		return nil, err
	}
	if snap.Entries, err = s.FindEntries(ctx, annals.EntryFilter{ChatID: id}); err != nil {
		return nil, err
	}
	if snap.Runs, err = s.FindRuns(ctx, id); err != nil {
		return nil, err
	}
	return &snap, nil
}

// BackfillReport is what a backfill did.
type BackfillReport struct {
	// Chats is how many chats were looked at; Queued how many were queued whole; Skipped how
	// many already had a lane (recorded while the outbox was on, or queued by an earlier
	// backfill).
	Chats   int `json:"chats"`
	Queued  int `json:"queued"`
	Skipped int `json:"skipped"`
}

// backfillRetries is how often a chat that changed while it was read is read again.
const backfillRetries = 5

// Backfill queues every chat of the host that has no lane yet — recorded before the outbox was
// turned on — as a new lane: its creation, its entries, its runs (docs/REPLICATION.md). It can
// run while the host keeps writing: a chat that changes while it is read is read again, and a
// chat written since the outbox was on already has its lane. progress, when set, is called
// after each chat.
func Backfill(ctx context.Context, s BackfillStore, progress func(BackfillReport)) (*BackfillReport, error) {
	rep := &BackfillReport{}
	after := ""
	for {
		ids, err := s.ChatIDsAfter(ctx, after, 200)
		if err != nil {
			return rep, err
		}
		if len(ids) == 0 {
			return rep, nil
		}
		for _, id := range ids {
			queued, err := backfillChat(ctx, s, id)
			if annals.ErrorCode(err) == annals.ENOTFOUND {
				continue // deleted meanwhile: its tombstone is in its lane, if the outbox saw it
			}
			if err != nil {
				return rep, err
			}
			rep.Chats++
			if queued {
				rep.Queued++
			} else {
				rep.Skipped++
			}
			if progress != nil {
				progress(*rep)
			}
		}
		after = ids[len(ids)-1]
	}
}

func backfillChat(ctx context.Context, s BackfillStore, id string) (bool, error) {
	var err error
	for range backfillRetries {
		var snap *annals.ChatSnapshot
		if snap, err = readSnapshot(ctx, s, id); err != nil {
			return false, err
		}
		var queued bool
		queued, err = s.QueueChat(ctx, snap)
		if annals.ErrorCode(err) != annals.ECONFLICT {
			return queued, err
		}
	}
	return false, err
}
