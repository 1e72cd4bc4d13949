package history

import (
	"cmp"
	"context"
	"reflect"
	"slices"

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
	if !onlyWords(f) {
		return nil, annals.Errorf(annals.EINVALID, "rank %s takes words and the scope only; filters (tag, agent, attributes, status, time, pinned, id, title, in, role:, tool:) need rank lexical", p.Rank)
	}
	if !s.canEmbed() {
		return nil, annals.Errorf(annals.EUNAVAILABLE, "rank %s needs an embedder; configure one under embedder: in the annals config", p.Rank)
	}
	depth := f.Offset + f.Limit
	if p.Rank == annals.RankHybrid {
		depth = max(depth, fuseDepth)
	}
	groups, err := s.meaningCandidates(ctx, res.Owner, f.Chat.IncludeArchived, "", querySource(p.Query))
	if err != nil {
		return nil, err
	}
	meaning := rankGroups(groups, depth)
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

// onlyWords reports whether a search filters by nothing but its owner and archived chats.
func onlyWords(f annals.SearchFilter) bool {
	probe := f.Chat
	probe.Owner, probe.IncludeArchived, probe.Offset, probe.Limit = annals.Owner{}, false, 0, 0
	return reflect.ValueOf(probe).IsZero() && len(f.Fields) == 0 && len(f.Roles) == 0 && len(f.Tools) == 0 && f.After == nil && f.Before == nil
}

// sortByFused orders ids by fused score, best first; equal scores keep their first appearance.
func sortByFused(ids []string, score map[string]float64) {
	slices.SortStableFunc(ids, func(a, b string) int { return cmp.Compare(score[b], score[a]) })
}
