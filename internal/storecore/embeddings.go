package storecore

import (
	"github.com/annals-dev/annals"
)

// The statement of FindEmbeddings in both stores (? placeholders), with the columns a store
// asks for (VectorColumns: id, model, vector, last_activity), and the rule that merges its two
// runs (FindEmbeddings below).
//
// The candidates are the newest cap vectors in scope. They are found by walking the chat list's
// own indexes (chats_by_activity, chats_by_tenant_activity: pinned, then activity) newest first,
// once over the pinned chats and once over the others, each walk stopping at the cap, and the two
// ordered runs merged. Ordering by activity alone cannot follow those indexes, and then every
// in-scope chat was looked up (and, before that, sorted with its 2 KB vector) to keep 2,000
// (issue 16: 200+ ms at 1M entries).

// embeddingWhere is the scope of a candidate walk. The owner is the chat's (chat_embeddings
// copies it): the walk reads the chat index, whose first column is the tenant.
func embeddingWhere(f annals.EmbeddingFilter) *Where {
	w := &Where{}
	w.AddOwner("c", f.Owner)
	if f.Model != "" {
		w.Add("v.model = ?", f.Model)
	}
	if f.ExcludeChatID != "" {
		w.Add("c.id <> ?", f.ExcludeChatID)
	}
	if f.ChatID != "" {
		w.Add("c.id = ?", f.ChatID)
	}
	if !f.IncludeArchived {
		w.Add("c.archived_at IS NULL")
	}
	return w
}

// EmbeddingLimit is the candidate cap of f.
func EmbeddingLimit(f annals.EmbeddingFilter) int {
	if f.Limit <= 0 {
		return annals.DefaultCandidateCap
	}
	return f.Limit
}

// VectorColumns are the walk's columns of a store that reads the vectors in the walk: chat id,
// model, vector, last activity. The chat is c and its vector row v.
const VectorColumns = "c.id, v.model, v.vector, c.last_activity"

// FindEmbeddings is annals.EmbeddingStore.FindEmbeddings over a store's way to read candidate
// rows (the walk's columns cols): the pinned chats' newest cap, the others' newest cap, merged
// into the newest cap.
func FindEmbeddings(f annals.EmbeddingFilter, cols string, read func(q string, args []any) ([]annals.ChatVector, error)) ([]annals.ChatVector, error) {
	pinned, err := read(EmbeddingWalk(f, cols, true))
	if err != nil {
		return nil, err
	}
	rest, err := read(EmbeddingWalk(f, cols, false))
	if err != nil {
		return nil, err
	}
	return mergeNewest(pinned, rest, EmbeddingLimit(f)), nil
}

// EmbeddingWalk reads the newest cap vectors in scope among the pinned chats or the others,
// newest first (then by chat id), selecting cols. CROSS JOIN keeps the chat index outermost in
// SQLite; PostgreSQL plans it freely.
func EmbeddingWalk(f annals.EmbeddingFilter, cols string, pinned bool) (string, []any) {
	w := embeddingWhere(f)
	q := `SELECT ` + cols + ` FROM chats c CROSS JOIN chat_embeddings v
		WHERE v.chat_pk = c.pk AND c.pinned = ? AND ` + w.SQL() + `
		ORDER BY c.last_activity DESC, c.id LIMIT ?`
	args := append([]any{pinned}, w.Args...)
	return q, append(args, EmbeddingLimit(f))
}

// mergeNewest merges two runs in EmbeddingWalk's order and keeps the first n.
func mergeNewest(a, b []annals.ChatVector, n int) []annals.ChatVector {
	out := make([]annals.ChatVector, 0, min(n, len(a)+len(b)))
	for len(out) < n && (len(a) > 0 || len(b) > 0) {
		if len(b) == 0 || (len(a) > 0 && newerCandidate(a[0], b[0])) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// newerCandidate reports whether x comes before y: newer activity first, then by chat id (byte
// order, as SQLite's and the C collation compare).
func newerCandidate(x, y annals.ChatVector) bool {
	if c := y.LastActivity.Compare(x.LastActivity); c != 0 {
		return c < 0
	}
	return x.ChatID < y.ChatID
}

// chatsToEmbedWhere is the condition of FindChatsToEmbed over chats c, with one ? for the
// model: no vector, a vector of another model, or annals.EmbeddingStale in SQL (the same
// integer rule in both dialects). It is evaluated per chat row; the walk is by chat pk.
const chatsToEmbedWhere = `NOT EXISTS (SELECT 1 FROM chat_embeddings v WHERE v.chat_pk = c.pk AND v.model = ?
		AND (v.source_entries = c.entry_count OR (v.source_entries >= 0 AND c.entry_count > v.source_entries
			AND v.source_entries >= 8 AND c.entry_count * 4 < v.source_entries * 5)))`

// ChatsToEmbed is the statement of FindChatsToEmbed (? placeholders) selecting cols over chats
// c: owner's chats without a current vector of model, oldest first, at most limit (default 100).
func ChatsToEmbed(cols string, owner annals.Owner, model string, limit int) (string, []any) {
	if limit <= 0 {
		limit = 100
	}
	w := &Where{}
	w.AddOwner("c", owner)
	w.Add(chatsToEmbedWhere, model)
	return `SELECT ` + cols + ` FROM chats c WHERE ` + w.SQL() + ` ORDER BY c.pk LIMIT ?`, append(w.Args, limit)
}

// FindTenants is the statement of FindTenants: the distinct tenants of the chats in byte order,
// read as a loose index scan (each step seeks the next tenant in chats_by_tenant_activity), so
// it costs one seek per tenant, not one read per chat.
const FindTenants = `WITH RECURSIVE t(id) AS (
		SELECT min(tenant_id) FROM chats
		UNION ALL
		SELECT (SELECT min(c.tenant_id) FROM chats c WHERE c.tenant_id > t.id) FROM t WHERE t.id IS NOT NULL)
	SELECT id FROM t WHERE id IS NOT NULL`

// CheckEmbedderStateKey refuses what SaveEmbedderState cannot key a state by.
func CheckEmbedderStateKey(tenant, name string) error {
	if tenant == "" || name == "" {
		return annals.Errorf(annals.EINVALID, "an embedder state needs a tenant and a name (got tenant %q, name %q)", tenant, name)
	}
	return nil
}
