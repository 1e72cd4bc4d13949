package history

import (
	"cmp"
	"context"
	"reflect"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// Search by meaning (SearchParams.Rank): semantic ranks the caller's chats by the cosine of
// their vectors to the query's (related's ranking), hybrid fuses that ranking with the
// full-text one by reciprocal rank. Both read candidates inside the owner fold only: the
// vectors through EmbeddingFilter.Owner in SQL, the full-text hits through SearchFilter's.
const (
	// rrfK is reciprocal rank fusion's constant (Cormack, Clarke and Büttcher 2009): a chat
	// scores 1/(rrfK + rank) in each ranking it appears in.
	rrfK = 60
	// fuseDepth is how deep each ranking is read for a hybrid page.
	fuseDepth = 200
)

// searchByMeaning answers a search ranked hybrid or semantic.
func (s *Service) searchByMeaning(ctx context.Context, p annals.SearchParams, mode annals.SearchMode, res *Resolved, f annals.SearchFilter, q *query.Query) (*annals.SearchPage, error) {
	if p.Rank != annals.RankHybrid && p.Rank != annals.RankSemantic {
		return nil, annals.Errorf(annals.EINVALID, "unknown rank %q (want lexical, hybrid or semantic)", p.Rank)
	}
	if mode != annals.SearchChatsMode {
		return nil, annals.Errorf(annals.EINVALID, "rank %s ranks chats; entries mode is ranked lexical only", p.Rank)
	}
	if f.Sort == annals.SortRecent {
		return nil, annals.Errorf(annals.EINVALID, "rank %s orders by relevance; sort recent goes with rank lexical", p.Rank)
	}
	words := meaningText(f.Text)
	if words == "" {
		return nil, annals.Errorf(annals.EINVALID, "rank %s ranks by the meaning of the query's words and this query has none (filters only); use rank lexical", p.Rank)
	}
	if !s.canEmbed() {
		return nil, annals.Errorf(annals.EUNAVAILABLE, "rank %s needs an embedder; configure one under embedder: in the annals config", p.Rank)
	}
	depth := f.Offset + f.Limit
	if p.Rank == annals.RankHybrid {
		depth = max(depth, fuseDepth)
	}
	groups, err := s.meaningCandidates(ctx, res.Owner, f.Chat.IncludeArchived, "", querySource(words))
	if err != nil {
		return nil, err
	}
	meaning := rankGroups(groups, depth)
	if filtered(f) {
		if meaning, err = s.keepFiltered(ctx, f, groups, depth); err != nil {
			return nil, err
		}
	}
	fused := map[string]float64{}
	order := []string{}
	add := func(id string, rank int) {
		if _, ok := fused[id]; !ok {
			order = append(order, id)
		}
		fused[id] += 1 / float64(rrfK+rank)
	}
	lexical := map[string]annals.ChatHit{}
	if p.Rank == annals.RankHybrid {
		lf := f
		lf.Offset, lf.Limit = 0, fuseDepth
		hits, _, err := s.store.SearchChats(ctx, lf)
		if err != nil {
			return nil, err
		}
		for i, h := range hits {
			lexical[h.Chat.ID] = h
			add(h.Chat.ID, i+1)
		}
	}
	for i, m := range meaning {
		add(m.id, i+1)
	}
	sortByFused(order, fused)
	out := &annals.SearchPage{Chats: []annals.ChatHit{}, Total: len(order), Limit: f.Limit, Offset: f.Offset, Scope: string(res.Scope), Mode: string(mode), Query: q.String()}
	for _, id := range order[min(f.Offset, len(order)):] {
		if len(out.Chats) == f.Limit {
			break
		}
		hit, ok := lexical[id]
		if !ok {
			chat, err := s.store.FindChatByID(ctx, id)
			if annals.ErrorCode(err) == annals.ENOTFOUND {
				continue // deleted between the reads
			}
			if err != nil {
				return nil, err
			}
			hit = annals.ChatHit{Chat: chat}
		}
		if !res.Owner.Matches(hit.Chat) {
			continue // belt and braces: both reads were folded in SQL
		}
		hit.Score = 0
		if res.Scope == annals.ScopeGlobal {
			hit.Score = fused[id]
		}
		out.Chats = append(out.Chats, hit)
	}
	if next := f.Offset + f.Limit; next < out.Total {
		out.NextCursor = encodeCursor(cursor{Offset: next})
	}
	return out, nil
}

// meaningText is what a search ranks by meaning: the query's words outside negations, in order
// (filters, operators and excluded words are not meaning).
func meaningText(e *annals.TextExpr) string {
	var words []string
	for _, t := range query.PositiveTerms(e, nil) {
		words = append(words, t.Tokens...)
	}
	return strings.Join(words, " ")
}

// filtered reports whether a search filters by more than its owner and archived chats.
func filtered(f annals.SearchFilter) bool {
	probe := f.Chat
	probe.Owner, probe.IncludeArchived, probe.Offset, probe.Limit = annals.Owner{}, false, 0, 0
	return !reflect.ValueOf(probe).IsZero() || len(f.Roles) > 0 || len(f.Tools) > 0 || f.After != nil || f.Before != nil
}

// filterChunk is how many candidates one filter check asks about (a store page at most).
const filterChunk = annals.MaxListLimit

// keepFiltered returns the depth chats best by meaning that pass the search's filters: every
// candidate ranked, then checked against the filters in rank order, a chunk at a time, by a
// filters-only search of the store restricted to the chunk's ids. The filters are the store's
// own (the same SQL as a lexical search's), so tag:, agent:, role:, tool:, after:, before:,
// attributes, status, time, pinned, id and title mean the same in every rank.
func (s *Service) keepFiltered(ctx context.Context, f annals.SearchFilter, groups []meaningGroup, depth int) ([]scored, error) {
	ranked := rankGroups(groups, candidateCount(groups))
	out := make([]scored, 0, depth)
	for start := 0; start < len(ranked) && len(out) < depth; start += filterChunk {
		chunk := ranked[start:min(start+filterChunk, len(ranked))]
		check := annals.SearchFilter{Chat: f.Chat, Roles: f.Roles, Tools: f.Tools, After: f.After, Before: f.Before,
			Sort: annals.SortRecent, Limit: len(chunk)}
		check.Chat.IDs = make([]string, len(chunk))
		for i, c := range chunk {
			check.Chat.IDs[i] = c.id
		}
		check.Chat.Offset, check.Chat.Limit = 0, len(chunk)
		hits, _, err := s.store.SearchChats(ctx, check)
		if _, partial := annals.Unreadable(err); err != nil && !partial {
			return nil, err
		}
		pass := make(map[string]bool, len(hits))
		for _, h := range hits {
			pass[h.Chat.ID] = true
		}
		for _, c := range chunk {
			if pass[c.id] && len(out) < depth {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// sortByFused orders ids by fused score, best first; equal scores keep their first appearance.
func sortByFused(ids []string, score map[string]float64) {
	slices.SortStableFunc(ids, func(a, b string) int { return cmp.Compare(score[b], score[a]) })
}
