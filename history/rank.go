package history

import (
	"context"
	"errors"
	"fmt"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// Which ranking a search uses (docs/QUERY.md, "Which ranking a search uses"), decided here and
// nowhere else: a transport passes the caller's choice through, empty when the caller made none.
//
// A rank the caller names is used as named. Without one, a chat search of plain words ranks
// hybrid when the embedder of the caller's scope ranks by meaning (the learned embedder once it
// has learned from the tenant's history, or a model provider; not hashing, whose vectors are
// the words again) and the scope holds vectors of that model; every other search ranks lexical:
// an entry search, sort recent, a query with filters or in: fields, a prefix (word*), a
// "phrase", an exclusion (-word) or OR — each asks for exact words, which only the full-text
// ranking honours.

// notLearned is why a default search ranks lexical while no model of its scope ranks by meaning.
const notLearned = "no model of the scope ranks by meaning yet (hashing until a tenant's history is large enough to learn from)"

// anyTenantRanksByMeaning reports whether the model of any tenant ranks by meaning.
func (s *Service) anyTenantRanksByMeaning(ctx context.Context) (bool, error) {
	tenants, err := s.store.FindTenants(ctx)
	if err != nil {
		return false, err
	}
	for _, t := range tenants {
		emb, err := s.embedderFor(ctx, t)
		if err != nil {
			return false, err
		}
		if annals.RanksByMeaning(emb) {
			return true, nil
		}
	}
	return false, nil
}

// rankChoice is the ranking a search runs with and why.
type rankChoice struct {
	rank, reason string
	// groups are the meaning candidates the default's rule read to decide; a hybrid search
	// ranks them instead of reading them again.
	groups []meaningGroup
}

// chooseRank decides the ranking of a search.
func (s *Service) chooseRank(ctx context.Context, p annals.SearchParams, mode annals.SearchMode, res *Resolved, f annals.SearchFilter, q *query.Query) rankChoice {
	if p.Rank != "" {
		return rankChoice{rank: p.Rank, reason: "asked for"}
	}
	lexical := func(why string) rankChoice {
		return rankChoice{rank: annals.RankLexical, reason: "by default: " + why}
	}
	if why := exactQuery(mode, f, q); why != "" {
		return lexical(why)
	}
	if !s.canEmbed() {
		return lexical("no embedder is configured")
	}
	if !res.Owner.AllTenants || s.perTenant == nil {
		// One model serves the scope: ask it before embedding the query with it.
		emb, err := s.embedderFor(ctx, res.Owner.TenantID)
		if err != nil {
			s.log.Warn("search: the embedder could not be loaded; ranking lexical", "err", annals.ErrorDetail(err))
			return lexical("the embedder is unavailable")
		}
		if !annals.RanksByMeaning(emb) {
			return lexical(fmt.Sprintf("the embedder (%s) ranks by the words, not by meaning", emb.Model()))
		}
	} else {
		// Every tenant, each with its own model: ask the models before reading any vectors.
		// Reading each tenant's candidates only to learn that none ranks by meaning cost a
		// CLI search at 1M ~0.25 s of its first call (issue 33 item 5).
		learned, err := s.anyTenantRanksByMeaning(ctx)
		if err != nil {
			s.log.Warn("search: the embedders could not be loaded; ranking lexical", "err", annals.ErrorDetail(err))
			return lexical("the embedder is unavailable")
		}
		if !learned {
			return lexical(notLearned)
		}
	}
	groups, err := s.meaningCandidates(ctx, res.Owner, f.Chat.IncludeArchived, "", s.searchSource(meaningText(f.Text), true))
	switch {
	case errors.Is(err, errQueryEmbedSkipped):
		return lexical("hybrid skipped: " + annals.ErrorMessage(err))
	case errors.Is(err, errQueryEmbedSlow):
		s.log.Warn("search: the embedder did not embed the query in time; ranking lexical", "err", annals.ErrorDetail(err), "deadline", s.queryEmbed)
		return lexical(fmt.Sprintf("hybrid fell back to lexical: the embedder did not embed the query within %s", s.queryEmbed))
	case err != nil:
		s.log.Warn("search: the ranking by meaning could not be read; ranking lexical", "err", annals.ErrorDetail(err))
		return lexical("hybrid fell back to lexical: the embedder is unavailable")
	}
	var models []string
	learned := false
	for _, g := range groups {
		if g.meaning {
			learned = true
			if len(g.cands) > 0 {
				models = append(models, g.model)
			}
		}
	}
	switch {
	case !learned:
		return lexical(notLearned)
	case len(models) == 0:
		return lexical("no chat in scope has a vector of the current model yet (annals reindex --embeddings)")
	}
	return rankChoice{rank: annals.RankHybrid, groups: groups,
		reason: fmt.Sprintf("by default: plain words, and the scope's chats have vectors of %s, which ranks by meaning", modelsName(models))}
}

// exactQuery says why a search asks for exact words (and so ranks lexical by default), or ""
// when it is a chat search of plain words.
func exactQuery(mode annals.SearchMode, f annals.SearchFilter, q *query.Query) string {
	switch {
	case mode == annals.SearchEntriesMode:
		return "an entry search ranks entries by their words"
	case f.Sort == annals.SortRecent:
		return "sort recent orders by time"
	case q.Text == nil:
		return "the query has no words (filters only)"
	case filtered(f) || len(f.Fields) > 0:
		return "the search has filters or in: fields"
	}
	return exactTerms(q.Text)
}

// exactTerms says which part of a query's text asks for exact words, or "" for plain words.
func exactTerms(e query.Expr) string {
	switch e := e.(type) {
	case *query.Term:
		if e.Prefix {
			return "the query has a prefix (word*)"
		}
		if e.Phrase {
			return "the query has a \"phrase\""
		}
	case *query.Or:
		return "the query has OR"
	case *query.Not:
		return "the query has an exclusion (-word)"
	case *query.And:
		for _, it := range e.Items {
			if why := exactTerms(it); why != "" {
				return why
			}
		}
	}
	return ""
}
