package history

import "context"

// Watcher opens watches on the change feed (Service.Watch).
type Watcher interface {
	Watch(ctx context.Context, chatID string) (*Watch, error)
}

var _ Watcher = (*Service)(nil)

// Watch opens a watch on the change feed as the caller (Service.Watch): woken only by the
// chats the caller can read. A history without a feed of its own (a remote server's) answers
// a nil watch, which never wakes: its reader polls.
func (c *Caller) Watch(ctx context.Context, chatID string) (*Watch, error) {
	w, ok := c.svc.(Watcher)
	if !ok {
		return nil, nil
	}
	return w.Watch(c.as(ctx), chatID)
}
