package history

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/vector"
)

// Related limits.
const (
	DefaultRelatedLimit = 10
	MaxRelatedLimit     = 500
)

// RelatedResult is one related chat with its cosine similarity to the source.
type RelatedResult = annals.RelatedChat

// FindRelated ranks chats close in meaning to a chat (excluded from its own results) or to a
// free-text query. Candidates are the newest CandidateCap in-scope vectors, folded by owner
// inside SQL, so a chat outside scope can never appear however similar it is.
func (s *Service) FindRelated(ctx context.Context, p annals.RelatedParams) (*annals.RelatedPage, error) {
	if !s.canEmbed() {
		return nil, annals.Errorf(annals.EUNAVAILABLE, "related requires an embedder; configure one under embedder: in the annals config (provider: learned or hashing work offline)")
	}
	if (p.ChatID == "") == (strings.TrimSpace(p.Query) == "") {
		return nil, annals.Errorf(annals.EINVALID, "related needs exactly one of session_id or query")
	}
	if p.Limit < 0 {
		return nil, annals.Errorf(annals.EINVALID, "limit must not be negative (default %d, at most %d)", DefaultRelatedLimit, MaxRelatedLimit)
	}
	limit := annals.EffectiveLimit(p.Limit, DefaultRelatedLimit, MaxRelatedLimit)

	var res *Resolved
	var groups []meaningGroup
	if p.ChatID != "" {
		chat, r, err := s.fetch(ctx, OpRelated, annals.ChatSelector{Scope: p.Scope, ID: p.ChatID})
		if err != nil {
			return nil, err
		}
		res = r
		if groups, err = s.meaningCandidates(ctx, res.Owner, p.IncludeArchived, chat.ID, s.chatSource(chat)); err != nil {
			return nil, err
		}
	} else {
		r, err := Resolve(ctx, string(p.Scope))
		if err != nil {
			return nil, err
		}
		res = r
		if groups, err = s.meaningCandidates(ctx, res.Owner, p.IncludeArchived, "", s.querySource(p.Query)); err != nil {
			return nil, err
		}
	}
	cands := candidateCount(groups)
	out := &annals.RelatedPage{Results: []annals.RelatedChat{}, Candidates: cands, CandidateCap: s.candidateCap, Limit: limit, Model: groupsModel(groups)}
	// Rank only as deep as the page needs; if chats drop out (deleted between the two reads),
	// rank everything and fill the page again.
	for depth := limit; ; depth = cands {
		out.Results = out.Results[:0]
		ranked := rankGroups(groups, depth)
		for _, r := range ranked {
			if len(out.Results) == limit {
				break
			}
			chat, err := s.store.FindChatByID(ctx, r.id)
			if annals.ErrorCode(err) == annals.ENOTFOUND {
				continue // deleted between the two reads
			}
			if err != nil {
				return nil, err
			}
			if !res.Owner.Matches(chat) {
				continue // belt and braces: the SQL fold already excluded it
			}
			out.Results = append(out.Results, annals.RelatedChat{Chat: chat, Score: r.score})
		}
		if len(out.Results) == limit || len(ranked) < depth || depth >= cands {
			return out, nil
		}
	}
}

type scored struct {
	id    string
	score float32
}

// rankTop returns the depth candidates most similar to source (positive similarity only), best
// first, equal scores in candidate order: what a stable sort of them all would start with,
// without sorting them all.
func rankTop(source []float32, cands []annals.ChatVector, depth int) []scored {
	best := make([]scored, 0, min(depth, len(cands))+1)
	for _, c := range cands {
		if len(c.Vector) != len(source) {
			continue // another model's (one of a name reused with another dimension): never compared
		}
		sc := vector.Cosine(source, c.Vector)
		if sc <= 0 || (len(best) == depth && sc <= best[len(best)-1].score) {
			continue
		}
		at := sort.Search(len(best), func(i int) bool { return best[i].score < sc })
		best = slices.Insert(best, at, scored{c.ChatID, sc})
		if len(best) > depth {
			best = best[:depth]
		}
	}
	return best
}

// vectorOf returns a chat's stored vector of emb's model (its tenant's), embedding it first when
// it has none. It reads that one vector, never its owner's others.
func (s *Service) vectorOf(ctx context.Context, emb annals.Embedder, chat *annals.Chat) ([]float32, error) {
	model := emb.Model()
	vecs, err := s.store.FindEmbeddings(ctx, annals.EmbeddingFilter{
		Owner: annals.Owner{TenantID: chat.TenantID, UserID: chat.UserID, AgentID: chat.AgentID},
		Model: model, ChatID: chat.ID, IncludeArchived: true, Limit: 1,
	})
	if err != nil {
		return nil, err
	}
	for _, v := range vecs {
		if v.ChatID == chat.ID {
			return v.Vector, nil
		}
	}
	text, err := s.embedText(ctx, chat)
	if err != nil {
		return nil, err
	}
	start := time.Now().UTC()
	out, usage, err := embedMetered(ctx, emb, []string{text})
	s.recordEmbedRuns(ctx, []*annals.Chat{chat}, start, usage, err)
	if err != nil {
		return nil, err
	}
	if err := s.store.UpsertEmbedding(ctx, chat.Ref(), model, out[0], chat.Totals.Entries); err != nil && annals.ErrorCode(err) != annals.EFORBIDDEN {
		s.log.Warn("store embedding", "chat", chat.ID, "err", annals.ErrorDetail(err))
	}
	return out[0], nil
}
