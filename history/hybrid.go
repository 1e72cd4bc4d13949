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
	// DefaultFuseDepth is how deep a hybrid search reads each ranking it fuses (Config.FuseDepth).
	DefaultFuseDepth = 50
)

// searchByMeaning answers a search ranked hybrid or semantic.
// choice.groups, when the default's rule read them, are the meaning ranking's candidates.
func (s *Service) searchByMeaning(ctx context.Context, p annals.SearchParams, choice rankChoice, mode annals.SearchMode, res *Resolved, f annals.SearchFilter, q *query.Query) (*annals.SearchPage, error) {
	words, err := s.checkMeaningSearch(choice.rank, mode, f)
	if err != nil {
		return nil, err
	}
	hybrid := choice.rank == annals.RankHybrid
	report := &annals.SearchReport{}
	depth := f.Offset + f.Limit
	if hybrid {
		depth = max(depth, s.fuseDepth)
	}
	// The two rankings are read at once: the lexical one is the store's full-text search (its
	// own reader connection), the other the vector candidates ranked in Go.
	var lexHits []annals.ChatHit
	lexErr := make(chan error, 1)
	if hybrid {
		go func() {
			lf := f
			lf.Offset, lf.Limit, lf.OrderOnly = 0, depth, true
			var err error
			lexHits, _, err = s.store.SearchChats(annals.NewContextWithSearchReport(ctx, report), lf)
			lexErr <- err
		}()
	} else {
		lexErr <- nil
	}
	meaning, err := s.meaningRanking(ctx, res, f, words, depth, choice.groups)
	if lerr := <-lexErr; err == nil {
		err = lerr
	}
	if err != nil {
		return nil, err
	}
	fused := map[string]float64{}
	order := []string{}
	add := func(id string, rank int) {
		if _, ok := fused[id]; !ok {
			order = append(order, id)
		}
		fused[id] += 1 / float64(rrfK+rank)
	}
	lexical := make(map[string]annals.ChatHit, len(lexHits))
	for i, h := range lexHits {
		lexical[h.Chat.ID] = h
		add(h.Chat.ID, i+1)
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
	if err := s.pageMatches(ctx, f, lexical, out.Chats); err != nil {
		return nil, err
	}
	if next := f.Offset + f.Limit; next < out.Total {
		out.NextCursor = encodeCursor(cursor{Offset: next})
	}
	if p.Explain {
		out.Explain = explainFor(ctx, report.Explain())
		out.Explain.Rank, out.Explain.RankReason = choice.rank, choice.reason
	}
	return out, nil
}

// checkMeaningSearch refuses what a ranking by meaning cannot answer and returns the words it
// ranks by.
func (s *Service) checkMeaningSearch(rank string, mode annals.SearchMode, f annals.SearchFilter) (string, error) {
	if rank != annals.RankHybrid && rank != annals.RankSemantic {
		return "", annals.Errorf(annals.EINVALID, "unknown rank %q (want lexical, hybrid or semantic)", rank)
	}
	if mode != annals.SearchChatsMode {
		return "", annals.Errorf(annals.EINVALID, "rank %s ranks chats; entries mode is ranked lexical only", rank)
	}
	if f.Sort == annals.SortRecent {
		return "", annals.Errorf(annals.EINVALID, "rank %s orders by relevance; sort recent goes with rank lexical", rank)
	}
	words := meaningText(f.Text)
	if words == "" {
		return "", annals.Errorf(annals.EINVALID, "rank %s ranks by the meaning of the query's words and this query has none (filters only); use rank lexical", rank)
	}
	if !s.canEmbed() {
		return "", annals.Errorf(annals.EUNAVAILABLE, "rank %s needs an embedder; configure one under embedder: in the annals config", rank)
	}
	return words, nil
}

// meaningRanking is the depth chats in the search's scope closest to words by meaning that pass
// its filters, ranked from groups when they were read already.
func (s *Service) meaningRanking(ctx context.Context, res *Resolved, f annals.SearchFilter, words string, depth int, groups []meaningGroup) ([]scored, error) {
	if groups == nil {
		var err error
		if groups, err = s.meaningCandidates(ctx, res.Owner, f.Chat.IncludeArchived, "", s.searchSource(words, false)); err != nil {
			return nil, err
		}
	}
	if filtered(f) {
		return s.keepFiltered(ctx, f, groups, depth)
	}
	return rankGroups(groups, depth), nil
}

// pageMatches reads the matching entries (their count and snippets) of the page's chats that the
// full-text ranking found, which read its ranking without them: one search of the page's chats
// alone, in the order they are kept (no ranking), instead of the snippets of the whole depth.
func (s *Service) pageMatches(ctx context.Context, f annals.SearchFilter, lexical map[string]annals.ChatHit, page []annals.ChatHit) error {
	var ids []string
	for _, h := range page {
		if _, ok := lexical[h.Chat.ID]; ok {
			ids = append(ids, h.Chat.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	df := f
	df.Chat.IDs = ids
	df.Sort, df.Offset, df.Limit, df.OrderOnly = annals.SortRecent, 0, len(ids), false
	df.Chat.Offset, df.Chat.Limit = 0, len(ids)
	hits, _, err := s.store.SearchChats(ctx, df)
	if _, partial := annals.Unreadable(err); err != nil && !partial {
		return err
	}
	byID := make(map[string]annals.ChatHit, len(hits))
	for _, h := range hits {
		byID[h.Chat.ID] = h
	}
	for i := range page {
		if h, ok := byID[page[i].Chat.ID]; ok {
			page[i].Matches, page[i].Snippets = h.Matches, h.Snippets
		}
	}
	return nil
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
