// Package history is the history service: the scope policy and owner fold, the operations list,
// search, related, get, rename, annotate, pin, archive, recap, resume and delete with typed
// parameters (annals.HistoryService), the capture path as the caller, and the query view's
// operations in a scope (view.Service). Every transport (library, HTTP, MCP, CLI, web) calls it
// unchanged; the op envelope that some of them speak is decoded in package envelope.
package history

import (
	"context"
	"log/slog"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/view"
)

// Store is what the service needs of a store: capture, the chats and their transcripts, search
// and embeddings. Any annals.Store has it; the optional capabilities (keys, rescan) are other
// consumers' business, and the query view is Config.View.
type Store interface {
	annals.CaptureStore
	annals.ChatStore
	annals.SearchStore
	annals.EmbeddingStore
}

// Config wires a Service.
type Config struct {
	Store Store
	// View answers the read-only query view (view.Service) in the caller's scope; both stores
	// implement it. Nil makes the view ops refuse with not_implemented.
	View view.Store
	// Summarizer writes recaps; nil makes recap refuse with how to configure one.
	Summarizer annals.Summarizer
	// Embedder powers related and search by meaning with one model for every tenant (hashing,
	// a provider); nil with no Embedders makes them refuse with how to configure one.
	Embedder annals.Embedder
	// Embedders, when set, gives each tenant its own model (the learned embedder,
	// embed.LearnedTenants) and wins over Embedder: a chat is embedded, and a query ranked,
	// with its tenant's model only (docs/SECURITY.md, "One learned model per tenant").
	Embedders annals.TenantEmbedders
	// Pricer prices the tokens of runs that recorded no cost, for the usage report; nil leaves
	// them unpriced (counted in UnpricedRuns).
	Pricer annals.Pricer
	// Redactor scrubs titles, descriptions and summaries written through the service; nil
	// stores them as given.
	Redactor annals.Redactor
	// CandidateCap bounds how many chats related ranks; 0 means annals.DefaultCandidateCap.
	CandidateCap int
	// FuseDepth is how deep a hybrid search reads each ranking it fuses; 0 means
	// DefaultFuseDepth. The meaning benchmark sets it to compare depths.
	FuseDepth int
	// SearchBudget is how long a search by relevance may run before the page is answered
	// newest first instead, marked partial; 0 means DefaultSearchBudget.
	SearchBudget time.Duration
	// QueryEmbedTimeout bounds the embedding of a search's query at the embedder (a provider
	// that is down must not hold every search for its own timeout); 0 means
	// DefaultQueryEmbedTimeout.
	QueryEmbedTimeout time.Duration
	// OnCapture, when set, is called after every capture the service applied (never while it
	// holds a lock): the embedding worker of annals serve wakes on it.
	OnCapture func()
	// MaxWatches bounds the change feed's open watches (Watch); 0 means DefaultMaxWatches.
	MaxWatches int
	Logger     *slog.Logger
	Now        func() time.Time
}

// Service runs history operations on behalf of the principal carried by each call's context.
type Service struct {
	store        Store
	view         view.Store
	summarizer   annals.Summarizer
	embedder     annals.Embedder
	perTenant    annals.TenantEmbedders
	redactor     annals.Redactor
	pricer       annals.Pricer
	candidateCap int
	fuseDepth    int
	searchBudget time.Duration
	queryEmbed   time.Duration
	// capture is the store's write path behind redaction, used by the guarded capture methods.
	capture   *RedactingCapture
	onCapture func()
	// changes wakes the watches of this process after a write commits (changes.go).
	changes *changeFeed
	// queries counts what query embeddings spent at a provider (embed_usage.go).
	queries queryUsage
	// outages remembers the embedders that failed a search's query (embed_outage.go).
	outages *embedOutages
	log     *slog.Logger
	now     func() time.Time
}

// New returns a Service.
func New(cfg Config) *Service {
	s := &Service{
		store:        cfg.Store,
		view:         cfg.View,
		summarizer:   cfg.Summarizer,
		embedder:     cfg.Embedder,
		perTenant:    cfg.Embedders,
		redactor:     cfg.Redactor,
		pricer:       cfg.Pricer,
		candidateCap: cfg.CandidateCap,
		fuseDepth:    cfg.FuseDepth,
		searchBudget: cfg.SearchBudget,
		queryEmbed:   cfg.QueryEmbedTimeout,
		capture:      &RedactingCapture{Store: cfg.Store, Redactor: cfg.Redactor},
		onCapture:    cfg.OnCapture,
		changes:      newChangeFeed(cfg.MaxWatches),
		log:          cfg.Logger,
		now:          cfg.Now,
	}
	if s.searchBudget <= 0 {
		s.searchBudget = DefaultSearchBudget
	}
	if s.queryEmbed <= 0 {
		s.queryEmbed = DefaultQueryEmbedTimeout
	}
	if s.candidateCap <= 0 {
		s.candidateCap = annals.DefaultCandidateCap
	}
	if s.fuseDepth <= 0 {
		s.fuseDepth = DefaultFuseDepth
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.outages = newEmbedOutages(s.now)
	return s
}

// fetch resolves the scope, finds the chat the caller's id names (findChat: the id, what people
// paste, a unique prefix or the source tool's own id, within the scope only) and folds "outside
// scope" into the same opaque not-found as "missing": the same lookups either way, the same code
// and the same message. op names the operation in the message about a missing id. Every by-id
// read, curation and delete comes through here; capture never does (a new chat's id is taken
// as given).
func (s *Service) fetch(ctx context.Context, op string, sel annals.ChatSelector) (*annals.Chat, *Resolved, error) {
	res, err := Resolve(ctx, string(sel.Scope))
	if err != nil {
		return nil, nil, err
	}
	chat, err := s.findChat(ctx, op, res, sel.ID)
	if err != nil {
		return nil, nil, err
	}
	return chat, res, nil
}

var _ annals.HistoryService = (*Service)(nil)

// ptrRef is the reference that binds a read or write to the chat as fetched.
func ptrRef(chat *annals.Chat) *annals.ChatRef {
	ref := chat.Ref()
	return &ref
}
