package history

import "context"

// Stats returns st bound to the caller: counting every tenant's chats is an admin's operation,
// refused here for everyone else, and runs as the caller's principal.
func (c *Caller) Stats(st Stats) Stats { return boundStats{st: st, c: c} }

type boundStats struct {
	st Stats
	c  *Caller
}

func (b boundStats) CountAll(ctx context.Context) (*Counts, error) {
	if err := b.c.CheckAdmin("counting the history", "shows every tenant's counts"); err != nil {
		return nil, err
	}
	return b.st.CountAll(b.c.as(ctx))
}
