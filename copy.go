package annals

import "context"

// ChatCopier is the optional interface of a store that can take part in a whole-history copy
// between backends (`annals copy`, SQLite to PostgreSQL and back). The capture methods move a
// chat's entries and runs; these two move what capture cannot set exactly: a stable walk over
// every chat, and the curated metadata and times a copy must keep as they were (pinned,
// archived_at, summary_updated_at and last_activity are otherwise stamped or derived by the
// destination). Both the SQLite and the PostgreSQL store implement it.
type ChatCopier interface {
	// ChatIDsAfter returns up to limit ids of chats of every owner, archived ones included, that
	// sort after after in byte order, in that order. Walking from "" visits every chat once,
	// whatever is written meanwhile (new chats may or may not be seen).
	// Errors: invalid (limit < 1), unavailable, internal.
	ChatIDsAfter(ctx context.Context, after string, limit int) ([]string, error)

	// RestoreChat sets an existing chat's mutable metadata and activity time to exactly the
	// values in c: title, description, tags, pinned, archived_at, summary, summary_updated_at
	// and last_activity, with the full-text index row. Identity, attributes, created_at, status
	// and counters are left alone: they are fixed at creation or follow the entries and runs.
	// Errors: invalid (bad metadata), not_found, forbidden (read-only), unavailable, internal.
	RestoreChat(ctx context.Context, c *Chat) (*Chat, error)
}
