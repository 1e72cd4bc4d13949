package annals

import "context"

// Redactor scrubs secrets from text before it is stored. Stores call it inside the capture path
// and on metadata updates, so that no read path can ever return a secret that redaction would
// have masked. Implementations replace each secret with "[redacted:<kind>]", drop text inside
// <private>...</private>, and keep JSON valid where the field holds JSON.
type Redactor interface {
	// RedactText returns s with secrets replaced and the number of replacements made.
	RedactText(s string) (string, int)
	// RedactEntry scrubs every text field of e in place (text, reasoning, tool arguments and
	// result, metadata) and returns the number of replacements made. It assigns new values to
	// the fields and never writes into the bytes of the old ones, so a shallow copy of an entry
	// can be redacted without touching the original.
	RedactEntry(e *Entry) int
}

// Summarizer writes the summary of a transcript that the recap operation stores on a chat.
type Summarizer interface {
	// Summarize returns a summary of the chat's transcript so far. It must only read.
	// Errors: unavailable (a provider is down), internal.
	Summarize(ctx context.Context, chat *Chat, entries []*Entry) (string, error)
}

// SummaryUsage is what one recap spent at a model provider: every call it made, successful or
// not, with the tokens the provider reported.
type SummaryUsage struct {
	Model        string
	Calls        int
	InputTokens  int64
	OutputTokens int64
}

// MeteredSummarizer is a Summarizer that reports what each recap spent. The recap records it as
// a run of the chat it served (so the usage report counts and prices it), even when the recap
// failed after some calls succeeded.
type MeteredSummarizer interface {
	Summarizer
	// SummarizeMetered is Summarize plus the usage of every call made, also on error.
	SummarizeMetered(ctx context.Context, chat *Chat, entries []*Entry) (string, SummaryUsage, error)
}

// TitledSummary is a summary with the title a model gave the chat; Title is empty when the
// summarizer writes no titles (the offline one).
type TitledSummary struct {
	Title   string
	Summary string
}

// TitledSummarizer is a MeteredSummarizer that can also title a chat in the same call (the
// model clients ask for strict JSON {title, summary} and check it). The background digest asks
// it for a title where a chat has no human one.
type TitledSummarizer interface {
	MeteredSummarizer
	// SummarizeTitled is SummarizeMetered with a title. A malformed answer fails it, like a
	// failed call: nothing of it may be stored.
	SummarizeTitled(ctx context.Context, chat *Chat, entries []*Entry) (TitledSummary, SummaryUsage, error)
}

// Embedder turns text into vectors for the related operation.
type Embedder interface {
	// Embed returns one L2-normalised vector per text, all of Dimension() length.
	// Errors: unavailable (a provider is down), internal.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the embedding model, stored beside each vector so vectors from different
	// models are never compared.
	Model() string
	// Dimension is the length of every vector.
	Dimension() int
}

// EmbeddingUsage is what one Embed call spent at a model provider.
type EmbeddingUsage struct {
	Model string
	// Calls counts the requests made, answered or not.
	Calls int
	// InputTokens is the tokens the provider reported, summed over the requests it answered.
	InputTokens int64
	// TextTokens splits InputTokens over the texts, one count per text in the order given:
	// each request's tokens over its inputs in proportion to their length (a text never sent,
	// such as an empty one, has 0). Nil when no request was answered.
	TextTokens []int64
}

// MeteredEmbedder is an Embedder that reports what each call spent (the OpenAI-compatible
// client). The history service records a chat's share as a run of the chat (kind embed), so the
// usage report counts and prices embeddings with the chat's own runs (docs/PROVIDERS.md, "Token
// and cost accounting").
type MeteredEmbedder interface {
	Embedder
	// EmbedMetered is Embed plus the usage of every request made, also on error.
	EmbedMetered(ctx context.Context, texts []string) ([][]float32, EmbeddingUsage, error)
}

// MeaningEmbedder is an Embedder that says whether its vectors rank by meaning. Hashing's do
// not (they are the text's words, hashed: a ranking by them finds shared words, as the full-text
// search does); the learned embedder's do once it has learned from the tenant's history. The
// history service ranks a search hybrid by default only when they do (docs/QUERY.md, "Which
// ranking a search uses"). An Embedder that does not implement it (a model provider) is taken
// to rank by meaning.
type MeaningEmbedder interface {
	Embedder
	// RanksByMeaning reports whether the vectors of the current Model rank by meaning.
	RanksByMeaning() bool
}

// RanksByMeaning reports whether e's vectors rank by meaning: MeaningEmbedder's answer, true
// for any other embedder (a model provider).
func RanksByMeaning(e Embedder) bool {
	if m, ok := e.(MeaningEmbedder); ok {
		return m.RanksByMeaning()
	}
	return true
}

// TenantEmbedders gives each tenant its own embedder: the learned embedder (embed.LearnedTenants)
// learns one model per tenant from that tenant's chats alone, so one tenant's words never shape
// another tenant's vectors (docs/SECURITY.md, "One learned model per tenant"). The history
// service embeds a chat with its tenant's embedder and a query with the caller's tenant's, and
// ranks only vectors of that model.
type TenantEmbedders interface {
	// ForTenant returns the embedder of one tenant's chats and queries; its Model names that
	// tenant's model and no other tenant's. Errors: invalid (an empty tenant), unavailable,
	// internal.
	ForTenant(ctx context.Context, tenant string) (Embedder, error)
	// Learn brings what the tenant's model learned up to date from the tenant's own chats;
	// changed says its Model changed, so every chat of the tenant is due again (the stores find
	// them: a vector of another model is never current). The embedding backfill calls it for
	// each tenant first. Errors: invalid, forbidden (read-only), unavailable, internal.
	Learn(ctx context.Context, tenant string) (changed bool, err error)
}

// RescanReport counts what a redaction rescan looked at and changed.
type RescanReport struct {
	EntriesScanned int `json:"entries_scanned"`
	EntriesChanged int `json:"entries_changed"`
	ChatsScanned   int `json:"chats_scanned"`
	ChatsChanged   int `json:"chats_changed"`
	Replacements   int `json:"replacements"`
}

// Rescanner re-applies redaction to everything already stored, for when rules were added after
// data was captured. Changed rows and their full-text index rows are rewritten together.
type Rescanner interface {
	// Rescan scrubs every stored entry and chat with r. progress, when non-nil, is called after
	// each batch. Errors: forbidden (read-only), unavailable, internal.
	Rescan(ctx context.Context, r Redactor, progress func(RescanReport)) (*RescanReport, error)
}
