package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/annals-dev/annals"
)

// Which embedder serves a call. With one embedder for all (Config.Embedder: hashing, a
// provider) every tenant's vectors are of one model. With per-tenant embedders
// (Config.Embedders: the learned one) each tenant has its own model, learned from its own chats
// alone (docs/SECURITY.md, "One learned model per tenant"): a chat is embedded with its tenant's
// model, a query with the model of the tenant it searches, and only vectors of that model are
// ranked against it.

// canEmbed reports whether an embedder is configured.
func (s *Service) canEmbed() bool { return s.embedder != nil || s.perTenant != nil }

// embedderFor returns the embedder of tenant's chats and queries.
func (s *Service) embedderFor(ctx context.Context, tenant string) (annals.Embedder, error) {
	if s.perTenant != nil {
		return s.perTenant.ForTenant(ctx, tenant)
	}
	if s.embedder == nil {
		return nil, annals.Errorf(annals.EUNAVAILABLE, "no embedder is configured; configure one under embedder: in the annals config")
	}
	return s.embedder, nil
}

// meaningGroup is the candidates of one model and the source embedded with it.
type meaningGroup struct {
	model  string
	source []float32
	cands  []annals.ChatVector
	// meaning: the model ranks by meaning (annals.RanksByMeaning), not by hashed words.
	meaning bool
}

// sourceFunc embeds the source of a ranking (a query, a chat) with emb, the model of tenant.
type sourceFunc func(ctx context.Context, emb annals.Embedder, tenant string) ([]float32, error)

// meaningCandidates reads the candidates of a ranking by meaning in owner's scope: the newest
// candidateCap vectors of the model that serves the scope, with the source embedded in that
// model. A global scope over per-tenant models reads each tenant's vectors of its own model
// (each up to the cap), one group per model; tenants still on a shared model (hashing, before
// their history is large enough to learn from) share one group.
func (s *Service) meaningCandidates(ctx context.Context, owner annals.Owner, archived bool, exclude string, source sourceFunc) ([]meaningGroup, error) {
	read := func(owner annals.Owner, tenant string) (meaningGroup, error) {
		emb, err := s.embedderFor(ctx, tenant)
		if err != nil {
			return meaningGroup{}, err
		}
		g := meaningGroup{model: emb.Model(), meaning: annals.RanksByMeaning(emb)}
		if g.source, err = source(ctx, emb, tenant); err != nil {
			return g, err
		}
		g.cands, err = s.store.FindEmbeddings(ctx, annals.EmbeddingFilter{Owner: owner, Model: g.model,
			ExcludeChatID: exclude, IncludeArchived: archived, Limit: s.candidateCap})
		return g, err
	}
	if !owner.AllTenants || s.perTenant == nil {
		g, err := read(owner, owner.TenantID)
		if err != nil {
			return nil, err
		}
		return []meaningGroup{g}, nil
	}
	tenants, err := s.store.FindTenants(ctx)
	if err != nil {
		return nil, err
	}
	var groups []meaningGroup
	for _, t := range tenants {
		g, err := read(annals.Owner{TenantID: t}, t)
		if err != nil {
			return nil, err
		}
		if at := slices.IndexFunc(groups, func(o meaningGroup) bool { return o.model == g.model }); at >= 0 {
			groups[at].cands = append(groups[at].cands, g.cands...)
			continue
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// rankGroups ranks the candidates of each group against its source, depth deep, and merges the
// rankings: one group is its ranking; several are interleaved by rank (the best of each model,
// then the second...), because cosines of different models are not on one scale and are never
// compared. Equal ranks go by score, then by model order.
func rankGroups(groups []meaningGroup, depth int) []scored {
	if len(groups) == 1 {
		return rankTop(groups[0].source, groups[0].cands, depth)
	}
	type ranked struct {
		scored
		rank, group int
	}
	var all []ranked
	for gi, g := range groups {
		for i, r := range rankTop(g.source, g.cands, depth) {
			all = append(all, ranked{r, i, gi})
		}
	}
	slices.SortStableFunc(all, func(a, b ranked) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.group, b.group)
	})
	out := make([]scored, 0, min(depth, len(all)))
	for _, r := range all[:min(depth, len(all))] {
		out = append(out, r.scored)
	}
	return out
}

// groupsModel names the model(s) of a ranking for its page.
func groupsModel(groups []meaningGroup) string {
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.model
	}
	return modelsName(names)
}

// modelsName names distinct models for a page or a report: the one, or how many.
func modelsName(models []string) string {
	switch len(models) {
	case 0:
		return ""
	case 1:
		return models[0]
	}
	return fmt.Sprintf("%d models, one per tenant", len(models))
}

// candidateCount is how many candidates the groups ranked.
func candidateCount(groups []meaningGroup) int {
	n := 0
	for _, g := range groups {
		n += len(g.cands)
	}
	return n
}

// querySource embeds a query text; what it spent at a provider serves no chat and is counted in
// the process's query embedding usage (embed_usage.go).
func (s *Service) querySource(q string) sourceFunc {
	return func(ctx context.Context, emb annals.Embedder, _ string) ([]float32, error) {
		vecs, usage, err := embedMetered(ctx, emb, []string{q})
		s.queries.add(usage)
		if err != nil {
			return nil, err
		}
		return vecs[0], nil
	}
}

// DefaultQueryEmbedTimeout is how long a search waits for its query's embedding
// (Config.QueryEmbedTimeout): a default search then ranks lexical instead, marked as having
// fallen back (docs/QUERY.md).
const DefaultQueryEmbedTimeout = 2 * time.Second

// errQueryEmbedSlow marks a query embedding that did not answer within the search's deadline;
// errQueryEmbedSkipped one not tried, because the embedder failed a search recently
// (embed_outage.go).
var (
	errQueryEmbedSlow    = errors.New("the embedder did not embed the query in time")
	errQueryEmbedSkipped = errors.New("the embedder failed recently and was not tried")
)

// searchSource is a search's query as the source of a ranking, embedded within the query
// embedding deadline (the provider's own timeout is much longer, and meant for batches). A
// failure of the embedder is remembered (embed_outage.go); with skipFailed (a default search)
// an embedder that failed recently is not tried, and the error says why and until when.
func (s *Service) searchSource(q string, skipFailed bool) sourceFunc {
	embed := s.querySource(q)
	return func(ctx context.Context, emb annals.Embedder, tenant string) ([]float32, error) {
		model := emb.Model()
		if skipFailed {
			if why := s.outages.skip(model, s.queryEmbed); why != "" {
				return nil, &annals.Error{Code: annals.EUNAVAILABLE, Err: errQueryEmbedSkipped, Message: why}
			}
		}
		started := s.now()
		ectx, cancel := context.WithTimeout(ctx, s.queryEmbed)
		defer cancel()
		v, err := embed(ectx, emb, tenant)
		switch {
		case ctx.Err() != nil:
			// The caller left: nothing is learned of the embedder.
		case err != nil && ectx.Err() != nil:
			s.outages.failed(model, fmt.Sprintf("did not embed the query within %s", s.queryEmbed), started)
			return nil, &annals.Error{Code: annals.EUNAVAILABLE, Err: errQueryEmbedSlow,
				Message: fmt.Sprintf("the embedder did not embed the query within %s (the search's deadline for it); is the provider up?", s.queryEmbed)}
		case annals.ErrorCode(err) == annals.EUNAVAILABLE:
			s.outages.failed(model, "was unavailable", started)
		default:
			s.outages.succeeded(model) // it answered (a query it refused is no outage)
		}
		return v, err
	}
}

// chatSource is a chat as the source of a ranking: its own stored vector in its tenant's model
// (embedded and stored first if it has none), or its text embedded in another tenant's model
// for an admin's global ranking (read once, never stored).
func (s *Service) chatSource(chat *annals.Chat) sourceFunc {
	var text *string
	return func(ctx context.Context, emb annals.Embedder, tenant string) ([]float32, error) {
		if tenant == chat.TenantID || s.perTenant == nil {
			return s.vectorOf(ctx, emb, chat)
		}
		if text == nil {
			t, err := s.embedText(ctx, chat)
			if err != nil {
				return nil, err
			}
			text = &t
		}
		return s.querySource(*text)(ctx, emb, tenant)
	}
}
