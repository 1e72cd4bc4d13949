package historytest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
)

// One learned model per tenant (docs/SECURITY.md): the learned embedder's word statistics come
// from the tenant's own chats, so what one tenant writes never shapes another tenant's vectors,
// query embeddings or rankings.

// Two tenants with disjoint vocabularies: A talks about clusters, B about baking.
var (
	clusterWords = []string{"kubernetes", "pod", "crashloop", "ingress", "controller", "namespace", "helm", "chart",
		"deployment", "rollout", "replicaset", "kubelet", "node", "taint", "toleration", "daemonset", "etcd", "quorum",
		"scheduler", "affinity", "configmap", "secret", "sidecar", "probe", "liveness", "readiness"}
	bakingWords = []string{"sourdough", "starter", "flour", "hydration", "levain", "proof", "banneton", "crumb",
		"crust", "oven", "dutch", "autolyse", "gluten", "knead", "fold", "rye", "spelt", "scoring", "lame",
		"steam", "preheat", "dough", "loaf", "yeast", "ferment", "retard"}
)

// learnedConfig is small enough to learn from a few dozen chats.
var learnedConfig = embed.LearnedConfig{Dimension: 8, MinTokens: 300, MinCount: 2, LexicalDimension: 64}

// topicChats writes n chats of tenant, each of four messages drawn from words (a topic of two
// neighbouring ranges per chat, so words keep company in a learnable way).
func topicChats(t *testing.T, s annals.Store, tenant, prefix string, words []string, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		if _, err := annals.CreateChat(ctx, s, &annals.Chat{ID: id, TenantID: tenant, UserID: "u" + tenant, CreatedAt: base.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatalf("create %s: %v", id, err)
		}
		var es []*annals.Entry
		for j := range 4 {
			var b strings.Builder
			for k := range 9 {
				b.WriteString(words[(i*3+j*2+k*(1+i%3))%len(words)])
				b.WriteString(" ")
			}
			kind := annals.KindUser
			if j%2 == 1 {
				kind = annals.KindAssistant
			}
			es = append(es, &annals.Entry{ID: fmt.Sprintf("e%d", j), Kind: kind, Text: b.String()})
		}
		if _, err := annals.AppendEntries(ctx, s, id, es); err != nil {
			t.Fatalf("append %s: %v", id, err)
		}
	}
}

// readLog is a LearnSource that records every chat the learner was given to read.
type readLog struct {
	embed.LearnSource
	owners  []annals.Owner
	tenants map[string]bool // of the chats and entries returned
}

func (r *readLog) FindChats(ctx context.Context, f annals.ChatFilter) ([]*annals.Chat, int, error) {
	r.owners = append(r.owners, f.Owner)
	chats, n, err := r.LearnSource.FindChats(ctx, f)
	for _, c := range chats {
		r.tenants[c.TenantID] = true
	}
	return chats, n, err
}

func (r *readLog) FindEntries(ctx context.Context, f annals.EntryFilter) ([]*annals.Entry, error) {
	if f.Ref != nil {
		r.tenants[f.Ref.Owner.TenantID] = true
	} else {
		r.tenants["(unbound entry read)"] = true
	}
	return r.LearnSource.FindEntries(ctx, f)
}

func testLearnedModelPerTenant(t *testing.T, open Opener) {
	s := open(t)
	src, ok := s.(embed.LearnSource)
	if !ok {
		t.Skip("the store keeps no embedder state")
	}
	topicChats(t, s, "A", "a", clusterWords, 30)
	topicChats(t, s, "B", "b", bakingWords, 30)
	ctx := context.Background()
	// One chat of B holds a word no other chat has, so the full-text arm of the hybrid query
	// below finds that chat alone, whatever the full-text statistics (which span tenants,
	// docs/SECURITY.md, known limits): what changes with A's history is then only the model.
	if _, err := annals.AppendEntries(ctx, s, "b-5", []*annals.Entry{{ID: "tartine", Kind: annals.KindUser, Text: "a tartine with more hydration"}}); err != nil {
		t.Fatal(err)
	}

	// Training B reads B's chats alone and saves under B alone.
	log := &readLog{LearnSource: src, tenants: map[string]bool{}}
	logged, err := embed.NewLearnedTenants(log, learnedConfig, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := logged.Learn(ctx, "B"); err != nil {
		t.Fatalf("learn B: %v", err)
	}
	for _, o := range log.owners {
		if o != (annals.Owner{TenantID: "B"}) {
			t.Errorf("learning B listed chats with owner %s, want tenant B only", o)
		}
	}
	if len(log.tenants) != 1 || !log.tenants["B"] {
		t.Errorf("learning B read chats and entries of %v, want B's only", log.tenants)
	}
	if _, err := src.LoadEmbedderState(ctx, "A", "learned-v1"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("after learning B alone, A's state = %v; want none saved", err)
	}

	learned, err := embed.NewLearnedTenants(src, learnedConfig, 0)
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: s, Embedders: learned})
	if p, err := svc.Backfill(ctx, nil); err != nil || p.Embedded != 60 {
		t.Fatalf("backfill = %+v, %v; want 60 chats embedded", p, err)
	}
	embA, embB := mustForTenant(t, learned, "A"), mustForTenant(t, learned, "B")
	modelA, modelB := embA.Model(), embB.Model() // the embedders follow what Learn makes later
	if !strings.HasPrefix(modelA, "annals-learned-v2-") || !strings.HasPrefix(modelB, "annals-learned-v2-") || modelA == modelB {
		t.Fatalf("models A %s, B %s: want two learned models of their own", modelA, modelB)
	}

	// B's model does not know A's words: a text of A's words alone has no learned part in B's
	// model (only the hashed lexical part), and adding A's words to a query of B's moves B's
	// learned part not at all. A's model knows them.
	learnedPart := func(emb annals.Embedder, text string) []float32 {
		t.Helper()
		v, err := emb.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		return v[0][:emb.Dimension()-learnedConfig.LexicalDimension]
	}
	aOnly := "crashloop kubelet etcd quorum"
	if v := learnedPart(embB, aOnly); !allZero(v) {
		t.Errorf("B's model gives A's words a learned vector %v; want none", v)
	}
	if v := learnedPart(embA, aOnly); allZero(v) {
		t.Errorf("A's model gives A's own words no learned vector")
	}
	if a, b := learnedPart(embB, "sourdough hydration"), learnedPart(embB, "sourdough hydration "+aOnly); !sameDirection(a, b) {
		t.Errorf("A's words moved the learned part of B's query: %v vs %v", a, b)
	}

	// Vectors record their tenant's model: each tenant's chats hold its own model's vectors.
	for tenant, emb := range map[string]annals.Embedder{"A": embA, "B": embB} {
		vs, err := s.FindEmbeddings(ctx, annals.EmbeddingFilter{Owner: annals.Owner{TenantID: tenant}, Model: emb.Model(), IncludeArchived: true})
		if err != nil || len(vs) != 30 {
			t.Errorf("tenant %s's vectors of its model: %d, %v; want 30", tenant, len(vs), err)
		}
	}

	// What B sees by meaning does not change when A's history does: more of A's chats (enough to
	// refactorise a shared model) and a backfill leave B's related and hybrid answers, scores
	// included, exactly as they were.
	asB := as(member("B", "uB", "", annals.ScopeTenant))
	before := meaningAnswers(asB, t, svc)
	// A now uses some of B's words too: a shared model would learn their company from A.
	topicChats(t, s, "A", "a-more", append(slices.Clone(clusterWords[5:]), "levain", "banneton", "autolyse"), 40)
	if _, err := svc.Backfill(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := mustForTenant(t, learned, "A").Model(); got == modelA {
		t.Fatalf("A's model did not change after its history grew by more than a quarter (%s)", got)
	}
	if got := mustForTenant(t, learned, "B").Model(); got != modelB {
		t.Errorf("B's model changed when A's history did: %s, was %s", got, modelB)
	}
	if after := meaningAnswers(asB, t, svc); after != before {
		t.Errorf("B's answers by meaning changed when A's history did:\nbefore %s\nafter  %s", before, after)
	}

	// An admin's global ranking reaches both tenants, each ranked in its own model.
	page, err := svc.FindRelated(as(admin(allScopes...)), annals.RelatedParams{Query: "sourdough starter kubernetes pod", Scope: annals.ScopeGlobal, Limit: 10})
	if err != nil {
		t.Fatalf("global related: %v", err)
	}
	tenants := map[string]bool{}
	for _, r := range page.Results {
		tenants[r.Chat.TenantID] = true
	}
	if !tenants["A"] || !tenants["B"] || page.Model != "2 models, one per tenant" {
		t.Errorf("global related reached tenants %v with model %q; want both, one model each", tenants, page.Model)
	}
}

// meaningAnswers is what a caller sees by meaning: related by query and by chat, and search
// ranked hybrid and semantic (member searches get no scores; the order shows).
func meaningAnswers(ctx context.Context, t *testing.T, svc *history.Service) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []annals.RelatedParams{{Query: "sourdough starter hydration"}, {ChatID: "b-3"}} {
		page, err := svc.FindRelated(ctx, p)
		if err != nil {
			t.Fatalf("related %+v: %v", p, err)
		}
		fmt.Fprintf(&b, "related %s%s (%s):", p.Query, p.ChatID, page.Model)
		for _, r := range page.Results {
			fmt.Fprintf(&b, " %s=%.6f", r.Chat.ID, r.Score)
		}
		b.WriteString("; ")
	}
	for _, rank := range []string{annals.RankHybrid, annals.RankSemantic} {
		page, err := svc.SearchChats(ctx, annals.SearchParams{Query: "tartine hydration", Rank: rank})
		if err != nil {
			t.Fatalf("search rank %s: %v", rank, err)
		}
		fmt.Fprintf(&b, "%s: %q; ", rank, hitIDs(page.Chats))
	}
	return b.String()
}

func mustForTenant(t *testing.T, e annals.TenantEmbedders, tenant string) annals.Embedder {
	t.Helper()
	emb, err := e.ForTenant(context.Background(), tenant)
	if err != nil {
		t.Fatalf("embedder of tenant %s: %v", tenant, err)
	}
	return emb
}

func allZero(v []float32) bool {
	return !slices.ContainsFunc(v, func(f float32) bool { return f != 0 })
}

// sameDirection reports whether a and b are equal after normalising each (a learned part is the
// learned mean scaled by the whole vector's norm).
func sameDirection(a, b []float32) bool {
	var na, nb, dot float64
	for i := range a {
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
		dot += float64(a[i]) * float64(b[i])
	}
	return na > 0 && nb > 0 && dot/(math.Sqrt(na)*math.Sqrt(nb)) > 1-1e-6
}
