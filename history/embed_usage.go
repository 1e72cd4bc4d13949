package history

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/annals-dev/annals"
)

// What embeddings spent at a provider (annals.MeteredEmbedder; docs/PROVIDERS.md, "Token and
// cost accounting"). A chat's embedding serves that chat: its share of the request's tokens is
// recorded as a run of the chat, kind embed, counted in the chat's totals and the usage report
// like a recap's. A query's embedding (a search by meaning, related --query, the default rank's
// check) serves no chat: it is recorded against nothing, and counted per model in the process's
// query embedding usage, which /metrics reports.

// embed embeds texts with emb, through EmbedMetered when emb reports what it spent.
func embedMetered(ctx context.Context, emb annals.Embedder, texts []string) ([][]float32, annals.EmbeddingUsage, error) {
	if m, ok := emb.(annals.MeteredEmbedder); ok {
		return m.EmbedMetered(ctx, texts)
	}
	vecs, err := emb.Embed(ctx, texts)
	return vecs, annals.EmbeddingUsage{}, err
}

// recordEmbedRuns records each chat's share of what embedding chats spent (chats[i] was embedded
// from the i-th text) as a run of the chat, kind embed: completed, or failed when the call
// failed. Nothing is recorded for a call that made no request (an offline embedder). Best
// effort, as a recap's run: the embedding is not failed for its accounting.
func (s *Service) recordEmbedRuns(ctx context.Context, chats []*annals.Chat, start time.Time, usage annals.EmbeddingUsage, err error) {
	if usage.Calls == 0 {
		return
	}
	end := time.Now().UTC()
	status := annals.StatusCompleted
	if err != nil {
		status = annals.StatusFailed
	}
	ops := make([]annals.CaptureOp, 0, len(chats))
	owners := make([]annals.ChatOwner, len(chats))
	for i, c := range chats {
		var tokens int64
		if i < len(usage.TextTokens) {
			tokens = usage.TextTokens[i]
		}
		owners[i] = c.OwnedBy()
		ops = append(ops, annals.CaptureOp{Expect: &owners[i], Run: &annals.Run{
			ID: "embed-" + c.ID + "-" + strconv.FormatInt(start.UnixNano(), 36), ChatID: c.ID, Kind: annals.RunKindEmbed,
			Status: status, Model: usage.Model, StartedAt: start, EndedAt: &end, InputTokens: tokens,
		}})
	}
	if _, cerr := s.capture.Capture(context.WithoutCancel(ctx), ops); cerr != nil {
		s.log.Warn("record embedding runs", "chats", len(chats), "err", annals.ErrorDetail(cerr))
	}
}

// QueryEmbeddingUsage is what the embeddings of queries spent at one model, since the process
// started.
type QueryEmbeddingUsage struct {
	Model       string
	Calls       int64
	InputTokens int64
}

// queryUsage counts what query embeddings spent, per model.
type queryUsage struct {
	mu      sync.Mutex
	byModel map[string]*QueryEmbeddingUsage
}

func (q *queryUsage) add(u annals.EmbeddingUsage) {
	if u.Calls == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.byModel == nil {
		q.byModel = map[string]*QueryEmbeddingUsage{}
	}
	m := q.byModel[u.Model]
	if m == nil {
		m = &QueryEmbeddingUsage{Model: u.Model}
		q.byModel[u.Model] = m
	}
	m.Calls += int64(u.Calls)
	m.InputTokens += u.InputTokens
}

// snapshot is every model's usage, by model name.
func (q *queryUsage) snapshot() []QueryEmbeddingUsage {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]QueryEmbeddingUsage, 0, len(q.byModel))
	for _, m := range q.byModel {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b QueryEmbeddingUsage) int {
		if a.Model < b.Model {
			return -1
		}
		if a.Model > b.Model {
			return 1
		}
		return 0
	})
	return out
}
