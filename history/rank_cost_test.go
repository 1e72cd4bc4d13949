package history_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
)

// vectorReads counts the store's reads of chat vectors.
type vectorReads struct {
	annals.Store
	n atomic.Int64
}

func (v *vectorReads) FindEmbeddings(ctx context.Context, f annals.EmbeddingFilter) ([]annals.ChatVector, error) {
	v.n.Add(1)
	return v.Store.FindEmbeddings(ctx, f)
}

// An admin's default search over every tenant, while no tenant's model ranks by meaning yet,
// ranks lexical without reading a single vector: the models are asked first. Reading every
// tenant's candidates only to find that none was learned cost a CLI search at 1M ~0.25 s of its
// first call (issue 33 item 5). Once a tenant has learned, the vectors are read and the search
// ranks hybrid as before.
func TestDefaultRankAsksTheModelsBeforeReadingVectors(t *testing.T) {
	base := openSQLite(t)
	hybridCorpus(t, base)
	store := &vectorReads{Store: base}
	learned, err := embed.NewLearnedTenants(base.(embed.LearnSource), embed.LearnedConfig{Dimension: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: store, Embedders: learned})
	admin := annals.Principal{TenantID: "A", UserID: "root", Role: annals.RoleAdmin, Scopes: annals.Scopes}
	global := annals.SearchParams{Query: "replica lag", Scope: annals.ScopeGlobal}

	store.n.Store(0)
	rank, why := explainRank(t, svc, admin, global)
	if rank != annals.RankLexical || !strings.Contains(why, "no model of the scope ranks by meaning yet") {
		t.Fatalf("no tenant learned: rank %q (%s), want lexical for want of a model", rank, why)
	}
	if n := store.n.Load(); n != 0 {
		t.Errorf("no tenant learned: the default search read vectors %d times, want 0", n)
	}

	if _, err := learned.Learn(t.Context(), "A"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Backfill(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	store.n.Store(0)
	if rank, why := explainRank(t, svc, admin, global); rank != annals.RankHybrid {
		t.Errorf("tenant A learned: rank %q (%s), want hybrid", rank, why)
	}
	if store.n.Load() == 0 {
		t.Error("tenant A learned: the hybrid search read no vectors")
	}
}
