package storecore

import "github.com/annals-dev/annals"

// EmbeddingQuery is the statement of FindEmbeddings in both stores (? placeholders): the
// newest candidates in owner scope with their vectors, columns id, model, vector, last_activity.
//
// The candidates are chosen on narrow rows (chat pk, id, activity) and only then joined to
// their vectors: sorting every in-scope row together with its 2 KB vector to keep the newest
// 2000 was most of related's time (issue 16).
func EmbeddingQuery(f annals.EmbeddingFilter) (string, []any) {
	w := &Where{}
	w.AddOwner("v", f.Owner)
	if f.Model != "" {
		w.Add("v.model = ?", f.Model)
	}
	if f.ExcludeChatID != "" {
		w.Add("c.id <> ?", f.ExcludeChatID)
	}
	if !f.IncludeArchived {
		w.Add("c.archived_at IS NULL")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = annals.DefaultCandidateCap
	}
	q := `WITH pick AS MATERIALIZED (SELECT v.chat_pk AS pk, c.id AS id, c.last_activity AS active
			FROM chat_embeddings v JOIN chats c ON c.pk = v.chat_pk
			WHERE ` + w.SQL() + ` ORDER BY c.last_activity DESC, c.id LIMIT ?)
		SELECT p.id, v.model, v.vector, p.active FROM pick p JOIN chat_embeddings v ON v.chat_pk = p.pk
		ORDER BY p.active DESC, p.id`
	return q, append(w.Args, limit)
}
