package embed_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
)

// TestMeaningAtScale times the learned embedder at 10k chats (docs/BENCHMARKS.md): learning
// from scratch, embedding every chat, and the p50 of related, hybrid and semantic searches. It
// runs only with ANNALS_MEANING_SCALE=1: it takes minutes and reports, it does not assert.
func TestMeaningAtScale(t *testing.T) {
	if os.Getenv("ANNALS_MEANING_SCALE") == "" {
		t.Skip("set ANNALS_MEANING_SCALE=1 to time the learned embedder at 10k chats")
	}
	ctx := annals.NewContextWithPrincipal(t.Context(), history.LocalOwner())
	// ANNALS_MEANING_SCALE_DB keeps the database: built there when absent, and when present only
	// queried, so two builds of the code can be timed side by side on one database.
	path := os.Getenv("ANNALS_MEANING_SCALE_DB")
	reuse := false
	if path == "" {
		path = filepath.Join(t.TempDir(), "annals.db")
	} else if _, err := os.Stat(path); err == nil {
		reuse = true
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(annals.ErrorDetail(err))
	}
	defer db.Close()
	tenants, err := embed.NewLearnedTenants(db, embed.LearnedConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: db, Embedders: tenants})
	if !reuse {
		buildAndEmbedAtScale(t, ctx, db, tenants, svc)
	}
	timeMeaningQueries(t, ctx, svc)
}

// buildAndEmbedAtScale writes the 10k-chat corpus, learns its model and embeds every chat,
// timing each step.
func buildAndEmbedAtScale(t *testing.T, ctx context.Context, db *sqlite.DB, tenants *embed.LearnedTenants, svc *history.Service) {
	start := time.Now()
	buildMeaningCorpusN(t, ctx, db, 400, 400)
	t.Logf("corpus: 10,000 chats written in %s", time.Since(start).Round(time.Millisecond))
	emb, err := tenants.ForTenant(ctx, "local")
	if err != nil {
		t.Fatal(err)
	}
	learned := emb.(*embed.Learned)
	start = time.Now()
	if _, err := learned.Learn(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("learn from scratch (count, factorise, save): %s, model %s", time.Since(start).Round(time.Millisecond), learned.Model())
	start = time.Now()
	p, err := svc.Backfill(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	t.Logf("backfill: %d chats in %s (%.0f chats/s, embedded text read from the store included)", p.Embedded, d.Round(time.Millisecond), float64(p.Embedded)/d.Seconds())
	start = time.Now()
	if _, err := learned.Learn(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("learn with nothing new (the worker's check): %s", time.Since(start).Round(time.Millisecond))
}

// timeMeaningQueries times related, and search by each rank, over the labelled queries.
func timeMeaningQueries(t *testing.T, ctx context.Context, svc *history.Service) {
	var queries []labelledQuery
	readJSON(t, "testdata/meaning/queries.json", &queries)
	p50 := func(name string, call func(q string) error) {
		// The first call of each kind is timed alone: it fills the vector cache (related) or the
		// page cache, which every later call finds warm.
		s := time.Now()
		if err := call(queries[0].Query); err != nil {
			t.Fatalf("%s %q: %v", name, queries[0].Query, err)
		}
		t.Logf("%s: first call %s", name, time.Since(s).Round(10*time.Microsecond))
		var ds []time.Duration
		for _, q := range queries {
			s := time.Now()
			if err := call(q.Query); err != nil {
				t.Fatalf("%s %q: %v", name, q.Query, err)
			}
			ds = append(ds, time.Since(s))
		}
		slices.Sort(ds)
		t.Logf("%s: p50 %s, p95 %s over %d queries", name, ds[len(ds)/2].Round(10*time.Microsecond), ds[len(ds)*95/100].Round(10*time.Microsecond), len(ds))
	}
	p50("related --query", func(q string) error {
		_, err := svc.FindRelated(ctx, annals.RelatedParams{Query: q, Limit: 10})
		return err
	})
	for _, rank := range []string{annals.RankLexical, annals.RankHybrid, annals.RankSemantic} {
		p50("search rank "+rank, func(q string) error {
			_, err := svc.SearchChats(ctx, annals.SearchParams{Query: q, Rank: rank, Page: annals.PageParams{Limit: 10}})
			return err
		})
	}
}
