package history

import "context"

// Backfiller runs the embedding backfill (Service.Backfill): every chat without a current
// vector gets one.
type Backfiller interface {
	Backfill(ctx context.Context, progress func(BackfillProgress)) (BackfillProgress, error)
}

var _ Backfiller = (*Service)(nil)

// Embeddings returns b bound to the caller: embedding every tenant's chats writes for all of
// them, so it is an admin's operation, refused here for everyone else and on a read-only
// history, and it runs as the caller's principal.
func (c *Caller) Embeddings(b Backfiller) Backfiller { return boundBackfill{b: b, c: c} }

type boundBackfill struct {
	b Backfiller
	c *Caller
}

func (b boundBackfill) Backfill(ctx context.Context, progress func(BackfillProgress)) (BackfillProgress, error) {
	if err := b.c.CheckAdmin("embedding every chat", "writes vectors for every tenant's chats"); err != nil {
		return BackfillProgress{}, err
	}
	if err := b.c.write("reindex embeddings", "reindex embeddings"); err != nil {
		return BackfillProgress{}, err
	}
	return b.b.Backfill(b.c.as(ctx), progress)
}
