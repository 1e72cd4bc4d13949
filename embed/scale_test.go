package embed_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/sqlite"
)

// TestMeaningAtScale times the learned embedder at 10k chats (docs/BENCHMARKS.md): learning
// from scratch, embedding every chat, and the p50 of related, hybrid and semantic searches. It
// runs only with ANNALS_MEANING_SCALE=1: it takes minutes and reports, it does not assert.
// ANNALS_MEANING_SCALE_ONLY (e.g. "hybrid,semantic") times those kinds alone;
// ANNALS_MEANING_SCALE_DSN times the queries on a PostgreSQL database holding the corpus (copied
// there with annals copy and embedded with annals reindex --embeddings) instead.
func TestMeaningAtScale(t *testing.T) {
	if os.Getenv("ANNALS_MEANING_SCALE") == "" {
		t.Skip("set ANNALS_MEANING_SCALE=1 to time the learned embedder at 10k chats")
	}
	ctx := annals.NewContextWithPrincipal(t.Context(), history.LocalOwner())
	if dsn := os.Getenv("ANNALS_MEANING_SCALE_DSN"); dsn != "" {
		pg, err := postgres.Open(ctx, dsn, postgres.Options{})
		if err != nil {
			t.Fatal(annals.ErrorDetail(err))
		}
		defer pg.Close()
		tenants, err := embed.NewLearnedTenants(pg, embed.LearnedConfig{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		timeMeaningQueries(t, ctx, history.New(history.Config{Store: pg, Embedders: tenants}))
		return
	}
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
	if depths := os.Getenv("ANNALS_MEANING_SCALE_DEPTHS"); depths != "" {
		fuseDepthsAtScale(t, db, tenants, depths)
		return
	}
	timeMeaningQueries(t, ctx, svc)
}

// fuseDepthsAtScale scores hybrid search at 10k chats with its rankings read at each of depths
// (comma-separated; "lexical" or "semantic" scores that rank instead) deep: recall@10 and nDCG@10 on the labelled and the shared-word queries
// (a chat is relevant when it is about the query's problem: its id is the problem's), and how
// many of each page's 10 chats the page at the first depth also holds.
func fuseDepthsAtScale(t *testing.T, db annals.Store, tenants annals.TenantEmbedders, depths string) {
	var queries []labelledQuery
	readJSON(t, "testdata/meaning/queries.json", &queries)
	queries = append(queries, sharedWordQueries(t)...)
	ctx := annals.NewContextWithPrincipal(t.Context(), history.LocalOwner())
	var first [][]string
	for i, ds := range strings.Split(depths, ",") {
		rank := annals.RankHybrid
		d, err := strconv.Atoi(ds)
		if err != nil {
			rank, d = ds, 0 // lexical or semantic, for comparison
		}
		svc := history.New(history.Config{Store: db, Embedders: tenants, FuseDepth: d})
		sums := map[string]*scores{"test": {}, "dev": {}, "shared": {}}
		counts := map[string]int{}
		same := 0
		for qi, q := range queries {
			page, err := svc.SearchChats(ctx, annals.SearchParams{Query: q.Query, Rank: rank, Page: annals.PageParams{Limit: 10}})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, h := range page.Chats {
				ids = append(ids, h.Chat.ID)
			}
			sc := judge(ids, func(id string) bool { return id[:strings.LastIndexByte(id, '-')] == q.Topic }, 400)
			sums[q.Split].recall += sc.recall
			sums[q.Split].ndcg += sc.ndcg
			counts[q.Split]++
			if i == 0 {
				first = append(first, ids)
			}
			for _, id := range ids {
				if slices.Contains(first[qi], id) {
					same++
				}
			}
		}
		var line strings.Builder
		for _, split := range []string{"test", "dev", "shared"} {
			n := float64(counts[split])
			fmt.Fprintf(&line, " | %.3f | %.3f", sums[split].recall/n, sums[split].ndcg/n)
		}
		t.Logf("%s, %d deep%s | %.3f of the first depth's pages", rank, d, line.String(), float64(same)/float64(10*len(queries)))
	}
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
	only := os.Getenv("ANNALS_MEANING_SCALE_ONLY")
	p50 := func(name string, call func(q string) error) {
		if only != "" && !slices.ContainsFunc(strings.Split(only, ","), func(k string) bool { return strings.HasSuffix(name, k) }) {
			return
		}
		// The first call of each kind is timed alone: it fills the vector cache (related) or the
		// page cache, which every later call finds warm.
		s := time.Now()
		if err := call(queries[0].Query); err != nil {
			t.Fatalf("%s %q: %v", name, queries[0].Query, err)
		}
		t.Logf("%s: first call %s", name, time.Since(s).Round(10*time.Microsecond))
		var ds []time.Duration
		cpu := processCPU()
		for _, q := range queries {
			s := time.Now()
			if err := call(q.Query); err != nil {
				t.Fatalf("%s %q: %v", name, q.Query, err)
			}
			ds = append(ds, time.Since(s))
		}
		cpu = (processCPU() - cpu) / time.Duration(len(queries))
		slices.Sort(ds)
		t.Logf("%s: p50 %s, p95 %s over %d queries; CPU %s a call", name, ds[len(ds)/2].Round(10*time.Microsecond), ds[len(ds)*95/100].Round(10*time.Microsecond), len(ds), cpu.Round(10*time.Microsecond))
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
