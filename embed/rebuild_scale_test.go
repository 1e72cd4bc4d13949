package embed_test

import (
	"os"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
)

// TestRebuildAtScale times what annals reindex --embeddings does on a copy of a database
// (docs/BENCHMARKS.md): each tenant's learned model rebuilt from scratch (its saved state
// dropped first), then every chat embedded with it, with the CPU of each step. It runs only
// with ANNALS_REBUILD_DB naming the copy (it writes to it); it reports, it does not assert.
func TestRebuildAtScale(t *testing.T) {
	path := os.Getenv("ANNALS_REBUILD_DB")
	if path == "" {
		t.Skip("set ANNALS_REBUILD_DB to a copy of a database to time rebuilding the learned embedder")
	}
	ctx := annals.NewContextWithPrincipal(t.Context(), history.LocalOwner())
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(annals.ErrorDetail(err))
	}
	defer db.Close()
	tenants, err := db.FindTenants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tenant := range tenants {
		if err := embed.ForgetLearned(ctx, db, tenant); err != nil {
			t.Fatal(err)
		}
	}
	learned, err := embed.NewLearnedTenants(db, embed.LearnedConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tenant := range tenants {
		start, cpu := time.Now(), processCPU()
		if _, err := learned.Learn(ctx, tenant); err != nil {
			t.Fatal(err)
		}
		emb, _ := learned.ForTenant(ctx, tenant)
		t.Logf("learn tenant %s from scratch: %s wall, %s CPU; model %s", tenant, time.Since(start).Round(time.Millisecond), (processCPU() - cpu).Round(time.Millisecond), emb.Model())
	}
	svc := history.New(history.Config{Store: db, Embedders: learned})
	start, cpu := time.Now(), processCPU()
	p, err := svc.Backfill(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	t.Logf("backfill (learn with nothing new, then embed): %d chats in %s wall, %s CPU: %.0f chats/s wall, %.0f chats/s of CPU",
		p.Embedded, d.Round(time.Millisecond), (processCPU() - cpu).Round(time.Millisecond), float64(p.Embedded)/d.Seconds(), float64(p.Embedded)/(processCPU()-cpu).Seconds())
}
