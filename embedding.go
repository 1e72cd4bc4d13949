package annals

import (
	"context"
	"time"
)

// ChatVector is a chat's stored embedding.
type ChatVector struct {
	ChatID string
	Model  string
	Vector []float32
	// LastActivity is the chat's last activity, the order candidates are capped by.
	LastActivity time.Time
}

// EmbeddingFilter selects candidate vectors for the related operation. The owner constraint is
// applied inside SQL on the embedding rows' own tenant/user/agent columns, so a vector outside
// scope never leaves the database, however close it is.
type EmbeddingFilter struct {
	Owner Owner
	// Model restricts to vectors of one embedding model (vectors of different models are not
	// comparable).
	Model string
	// ExcludeChatID leaves one chat out (the source of a by-id related query).
	ExcludeChatID string
	// ChatID, when set, returns that chat's vector alone (if it is in scope): the source of a
	// by-id related query, read without its owner's other vectors.
	ChatID          string
	IncludeArchived bool
	// Limit keeps the newest Limit candidates by chat last activity (the candidate cap).
	Limit int
}

// DefaultCandidateCap bounds how many in-scope chats a related query ranks.
const DefaultCandidateCap = 2000

// EmbeddingStore keeps one embedding per chat.
type EmbeddingStore interface {
	// UpsertEmbedding stores the chat's vector, copying tenant, user and agent from the chat row.
	// Errors: not_found (no such chat), invalid (empty vector or model), forbidden (read-only),
	// unavailable, internal.
	// The vector lands only on the chat ref names (same id, owner and incarnation, checked in
	// the statement), so a vector computed from one chat never attaches to another that took its
	// id since.
	// entries is how many entries the chat held when its embedded text was read
	// (Chat.Totals.Entries as fetched): FindChatsToEmbed compares it with the chat's count now.
	UpsertEmbedding(ctx context.Context, ref ChatRef, model string, vector []float32, entries int64) error

	// FindEmbeddings returns candidate vectors in owner scope, newest chat activity first.
	// The vectors may be shared with other calls (a store may cache them): read them, never
	// write to them. Errors: unavailable, internal.
	FindEmbeddings(ctx context.Context, filter EmbeddingFilter) ([]ChatVector, error)

	// FindChatsToEmbed returns up to limit chats of owner (Owner{AllTenants: true}: any
	// owner; Owner{TenantID: t}: tenant t's, whose model is t's own with a per-tenant
	// embedder) without a current vector of the given model, oldest chat first: no vector, a
	// vector of another model, or a vector whose chat's transcript changed materially since
	// (EmbeddingStale), for the embedding worker and backfills. Errors: unavailable, internal.
	FindChatsToEmbed(ctx context.Context, owner Owner, model string, limit int) ([]*Chat, error)

	// FindTenants returns every tenant that has a chat, in byte order: the tenants whose models
	// a per-tenant embedder keeps up to date. Errors: unavailable, internal.
	FindTenants(ctx context.Context) ([]string, error)
}

// EmbeddingStale reports whether a chat's transcript changed materially since its vector was
// computed over then entries, now that it holds now: any change while the chat is short (under
// EmbedSettleEntries entries, where each entry moves the text a lot), a growth of a quarter or
// more after that, and any shrink (a rewind took text away). The stores apply the same rule in
// SQL (storecore.EmbeddingStaleSQL); a vector written before the count was recorded (then < 0)
// is stale. Metadata changes (rename, annotate, recap) re-embed at once and need no rule.
func EmbeddingStale(then, now int64) bool {
	if now == then {
		return false
	}
	return then < 0 || now < then || then < EmbedSettleEntries || now*4 >= then*5
}

// EmbedSettleEntries is the transcript length below which every change re-embeds a chat.
const EmbedSettleEntries = 8

// EmbedderStateStore keeps the persisted state of an embedder that learns from the history (the
// learned embedder's counts and word vectors), one opaque blob per tenant and name: each tenant's
// model is learned from that tenant's chats alone and kept apart (docs/SECURITY.md, "One learned
// model per tenant"). It is derived data: never replicated or copied, rebuilt from the
// transcripts when missing.
type EmbedderStateStore interface {
	// LoadEmbedderState returns the state saved under tenant and name. Errors: not_found (none
	// saved), unavailable, internal.
	LoadEmbedderState(ctx context.Context, tenant, name string) ([]byte, error)
	// SaveEmbedderState replaces the state saved under tenant and name. Errors: invalid (an
	// empty tenant or name), forbidden (read-only), unavailable, internal.
	SaveEmbedderState(ctx context.Context, tenant, name string, data []byte) error
}

// EmbeddingStatistics is implemented by a store whose query planner keeps statistics that a bulk
// write of vectors leaves stale (PostgreSQL): straight after a backfill of 10k chats its planner
// still believed the vector table nearly empty and sorted every vector on disk at each related
// call (docs/BENCHMARKS.md, 2026-12-07). The embedding backfill calls it after embedding many
// chats.
type EmbeddingStatistics interface {
	// AnalyzeEmbeddings refreshes the planner's statistics of the stored vectors. Errors:
	// forbidden (read-only), unavailable, internal.
	AnalyzeEmbeddings(ctx context.Context) error
}
