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
	UpsertEmbedding(ctx context.Context, ref ChatRef, model string, vector []float32) error

	// FindEmbeddings returns candidate vectors in owner scope, newest chat activity first.
	// The vectors may be shared with other calls (a store may cache them): read them, never
	// write to them. Errors: unavailable, internal.
	FindEmbeddings(ctx context.Context, filter EmbeddingFilter) ([]ChatVector, error)

	// FindChatsWithoutEmbedding returns up to limit chats (any owner) that have no vector of
	// the given model, for backfills. Errors: unavailable, internal.
	FindChatsWithoutEmbedding(ctx context.Context, model string, limit int) ([]*Chat, error)
}
