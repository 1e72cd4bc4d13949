package history

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/textcut"
)

// The embedded text of a chat: its curated fields and its own words, bounded so that a chat of
// any length costs the same to embed.
const (
	// embedTextBytes bounds the whole embedded text.
	embedTextBytes = 8000
	// embedOpening is how many of the first prompts are always taken: what the chat set out to do.
	embedOpening = 3
	// embedSamples is how many places across the rest of the transcript are sampled.
	embedSamples = 8
	// embedEntryRunes bounds one entry's part: a long answer or pasted log says no more in full.
	embedEntryRunes = 600
	// embedReadAll is the transcript length up to which every message is read in one query and
	// sampled in memory; a longer chat is read at its sample points only.
	embedReadAll = 200
	// embedBatch is how many chats one Embed call carries in a backfill.
	embedBatch = 32
)

// messageKinds are the entries whose text is the chat's own words.
var messageKinds = []annals.EntryKind{annals.KindUser, annals.KindAssistant}

// embedText is the one source of a chat's embedded text, so a stored vector and a by-id lookup
// are computed identically: title, description, summary and tags, then the chat's own words —
// its first prompts and messages sampled evenly across the rest of the transcript — within
// embedTextBytes.
func (s *Service) embedText(ctx context.Context, chat *annals.Chat) (string, error) {
	var b strings.Builder
	for _, part := range []string{chat.Title, chat.Description, chat.Summary, strings.Join(chat.Tags, " ")} {
		if part = strings.TrimSpace(part); part != "" {
			b.WriteString(part)
			b.WriteString("\n")
		}
	}
	entries, err := s.sampleEntries(ctx, chat)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if b.Len() >= embedTextBytes {
			break
		}
		if t := strings.TrimSpace(e.Text); t != "" {
			b.WriteString(textcut.First(t, embedEntryRunes))
			b.WriteString("\n")
		}
	}
	t := b.String()
	if len(t) > embedTextBytes {
		t = validUTF8Prefix(t[:embedTextBytes])
	}
	return strings.TrimSpace(t), nil
}

// sampleEntries returns the messages a chat's embedded text is made of: the first embedOpening
// user prompts, then embedSamples messages spread evenly over the transcript, in order. A short
// chat is read whole; a long one at its sample points only (seq runs 1..Totals.Entries).
func (s *Service) sampleEntries(ctx context.Context, chat *annals.Chat) ([]*annals.Entry, error) {
	ref := ptrRef(chat)
	if chat.Totals.Entries <= embedReadAll {
		all, err := s.store.FindEntries(ctx, annals.EntryFilter{ChatID: chat.ID, Ref: ref, Kinds: messageKinds, Limit: embedReadAll})
		if err != nil {
			return nil, err
		}
		return pickSample(all), nil
	}
	opening, err := s.store.FindEntries(ctx, annals.EntryFilter{ChatID: chat.ID, Ref: ref, Kinds: []annals.EntryKind{annals.KindUser}, Limit: embedOpening})
	if err != nil {
		return nil, err
	}
	out := opening
	step := chat.Totals.Entries / (embedSamples + 1)
	for i := int64(1); i <= embedSamples; i++ {
		page, err := s.store.FindEntries(ctx, annals.EntryFilter{ChatID: chat.ID, Ref: ref, Kinds: messageKinds, AfterSeq: i * step, Limit: 1})
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
	}
	return out, nil
}

// pickSample keeps, of a short transcript's messages in order, the first embedOpening user
// prompts and embedSamples others spread evenly over the rest.
func pickSample(all []*annals.Entry) []*annals.Entry {
	var out []*annals.Entry
	rest := make([]*annals.Entry, 0, len(all))
	for _, e := range all {
		if e.Kind == annals.KindUser && len(out) < embedOpening {
			out = append(out, e)
			continue
		}
		rest = append(rest, e)
	}
	if len(rest) <= embedSamples {
		return append(out, rest...)
	}
	for i := range embedSamples {
		out = append(out, rest[i*len(rest)/embedSamples])
	}
	return out
}

// embedChat refreshes a chat's embedding after its text changed, with its tenant's model. It is
// best effort: a failure is logged and never fails the operation that triggered it.
func (s *Service) embedChat(ctx context.Context, chat *annals.Chat) {
	if !s.canEmbed() {
		return
	}
	emb, err := s.embedderFor(ctx, chat.TenantID)
	if err == nil {
		err = s.embedChats(ctx, emb, []*annals.Chat{chat})
	}
	if err != nil {
		s.log.Warn("refresh chat embedding", "chat", chat.ID, "err", annals.ErrorDetail(err))
	}
}

// embedChats embeds chats with emb in one Embed call and stores each vector with the transcript
// length its text was read at, so the worker knows when it is due again. emb is the model of
// every chat's tenant: the caller chooses it (embedderFor).
func (s *Service) embedChats(ctx context.Context, emb annals.Embedder, chats []*annals.Chat) error {
	texts := make([]string, len(chats))
	for i, c := range chats {
		t, err := s.embedText(ctx, c)
		if err != nil {
			return err
		}
		texts[i] = t
	}
	start := time.Now().UTC()
	vecs, usage, err := embedMetered(ctx, emb, texts)
	s.recordEmbedRuns(ctx, chats, start, usage, err)
	if err != nil {
		return err
	}
	model := emb.Model()
	for i, c := range chats {
		if err := s.store.UpsertEmbedding(ctx, c.Ref(), model, vecs[i], c.Totals.Entries); err != nil && annals.ErrorCode(err) != annals.ENOTFOUND {
			return err // not_found: the chat went (or was replaced) since it was read
		}
	}
	return nil
}

// BackfillProgress reports a running backfill.
type BackfillProgress struct {
	// Model names the model of the chats embedded, or how many there were ("3 models, one per
	// tenant").
	Model    string `json:"model"`
	Embedded int    `json:"embedded"`
	Failed   int    `json:"failed"`
}

// Backfill embeds every chat without a current vector of its embedder: none yet, one of another
// model, or one computed before its transcript changed materially (annals.EmbeddingStale). With
// per-tenant models it goes tenant by tenant: it brings the tenant's model up to date from that
// tenant's chats (Learn), then embeds the tenant's chats that are due with it. It is the
// embedding worker's one pass and the maintenance of `annals reindex --embeddings`, for the
// database owner, not an op: it ignores scopes. progress may be nil; it is called after each
// batch.
//
// A pass that embedded analyzeAfter chats or more then asks a store that keeps planner
// statistics (annals.EmbeddingStatistics) to refresh those of the vectors.
func (s *Service) Backfill(ctx context.Context, progress func(BackfillProgress)) (BackfillProgress, error) {
	p, err := s.backfill(ctx, progress)
	if st, ok := s.store.(annals.EmbeddingStatistics); ok && p.Embedded >= analyzeAfter {
		if aerr := st.AnalyzeEmbeddings(ctx); aerr != nil {
			s.log.Warn("analyze embeddings after a backfill", "err", annals.ErrorDetail(aerr))
		}
	}
	return p, err
}

// analyzeAfter is how many chats a backfill pass embeds before it refreshes the planner's
// statistics: PostgreSQL's autovacuum analyses a table after 10% of its rows changed, in its own
// time; a pass this large is an import, a model switch or a first backfill, and an ANALYZE of the
// vectors costs tens of milliseconds at 10k chats.
const analyzeAfter = 256

// backfill is Backfill without the statistics.
func (s *Service) backfill(ctx context.Context, progress func(BackfillProgress)) (BackfillProgress, error) {
	var p BackfillProgress
	if !s.canEmbed() {
		return p, annals.Errorf(annals.EUNAVAILABLE, "backfill requires an embedder; configure one under embedder: in the annals config")
	}
	if s.perTenant == nil {
		p.Model = s.embedder.Model()
		return p, s.backfillOwner(ctx, annals.Owner{AllTenants: true}, s.embedder, &p, progress)
	}
	tenants, err := s.store.FindTenants(ctx)
	if err != nil {
		return p, err
	}
	var models []string
	for _, t := range tenants {
		if _, err := s.perTenant.Learn(ctx, t); err != nil {
			if annals.ErrorCode(err) == annals.EFORBIDDEN || ctx.Err() != nil {
				return p, err
			}
			s.log.Warn("learn from the history", "tenant", t, "err", annals.ErrorDetail(err))
		}
		emb, err := s.perTenant.ForTenant(ctx, t)
		if err != nil {
			return p, err
		}
		if m := emb.Model(); !slices.Contains(models, m) {
			models = append(models, m)
		}
		p.Model = modelsName(models)
		if err := s.backfillOwner(ctx, annals.Owner{TenantID: t}, emb, &p, progress); err != nil {
			return p, err
		}
	}
	return p, nil
}

// backfillOwner embeds owner's chats that are due with emb, a batch at a time.
func (s *Service) backfillOwner(ctx context.Context, owner annals.Owner, emb annals.Embedder, p *BackfillProgress, progress func(BackfillProgress)) error {
	model := emb.Model()
	failed := map[string]bool{}
	for {
		chats, err := s.store.FindChatsToEmbed(ctx, owner, model, embedBatch+len(failed))
		if err != nil {
			return err
		}
		batch := make([]*annals.Chat, 0, embedBatch)
		for _, c := range chats {
			if !failed[c.ID] && len(batch) < embedBatch {
				batch = append(batch, c)
			}
		}
		if len(batch) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.embedChats(ctx, emb, batch); err != nil {
			if annals.ErrorCode(err) == annals.EFORBIDDEN {
				return err // a read-only database: nothing can be stored
			}
			// One by one, so one chat that cannot be embedded does not hold back the batch.
			for _, c := range batch {
				if err := s.embedChats(ctx, emb, []*annals.Chat{c}); err != nil {
					failed[c.ID] = true
					p.Failed++
					s.log.Warn("embed chat", "chat", c.ID, "err", annals.ErrorDetail(err))
					continue
				}
				p.Embedded++
			}
		} else {
			p.Embedded += len(batch)
		}
		if progress != nil {
			progress(*p)
		}
	}
}
