package history_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
)

// testClock is a clock the test moves by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// An outage is remembered (docs/PROVIDERS.md, "When the provider is down"): once the provider
// failed a search's query, default searches rank lexical without asking it, their explain saying
// it failed recently and when it is tried again, for 30 s, doubled per failure in a row; a
// search that names hybrid still asks it; the first query it embeds ends the memory.
func TestAnOutageIsRemembered(t *testing.T) {
	s := openSQLite(t)
	hybridCorpus(t, s)
	var down atomic.Bool
	var calls atomic.Int32
	srv := embeddingsServer(t, &down, &calls)
	provider, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "flaky", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{now: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)}
	// The deadline is far shorter than the hang (the server never answers while down), and long
	// enough that a loaded machine answers within it while the server is up (50 ms was not, at
	// load 8).
	svc := history.New(history.Config{Store: s, Embedder: provider, QueryEmbedTimeout: time.Second, Now: clock.Now})
	if _, err := svc.Backfill(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	a := annals.Principal{TenantID: "A", UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes}
	ctx := annals.NewContextWithPrincipal(t.Context(), &a)
	search := func(p annals.SearchParams) (asked int32, rank, why string, err error) {
		t.Helper()
		before := calls.Load()
		p.Query, p.Explain = "replica lag", true
		page, err := svc.SearchChats(ctx, p)
		if err == nil {
			rank, why = page.Explain.Rank, page.Explain.RankReason
		}
		return calls.Load() - before, rank, why, err
	}
	expect := func(step string, p annals.SearchParams, wantAsked int32, wantRank string, wantWhy ...string) {
		t.Helper()
		asked, rank, why, err := search(p)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if asked != wantAsked || rank != wantRank {
			t.Fatalf("%s: the provider was asked %d times, rank %q (%s); want %d times, %q", step, asked, rank, why, wantAsked, wantRank)
		}
		for _, w := range wantWhy {
			if !strings.Contains(why, w) {
				t.Fatalf("%s: explain %q; want it to say %q", step, why, w)
			}
		}
	}
	expect("provider up", annals.SearchParams{}, 1, annals.RankHybrid)

	down.Store(true)
	expect("first search with the provider hanging", annals.SearchParams{}, 1, annals.RankLexical, "hybrid fell back to lexical", "within 1s")
	clock.advance(10 * time.Second)
	expect("a default search 10 s after the failure", annals.SearchParams{}, 0, annals.RankLexical,
		"hybrid skipped: the embedder failed 10s ago (it did not embed the query within 1s)",
		"tried again in 20s, at 2026-12-07T12:00:30Z")

	// Hybrid asked for still asks the provider (and its failure is the second in a row: 60 s).
	if asked, _, _, err := search(annals.SearchParams{Rank: annals.RankHybrid}); asked != 1 || annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Fatalf("hybrid asked for during the outage: asked %d times, %v; want the provider asked once, unavailable", asked, err)
	}
	clock.advance(30 * time.Second)
	expect("30 s after the second failure", annals.SearchParams{}, 0, annals.RankLexical, "tried again in 30s, at 2026-12-07T12:01:10Z")
	clock.advance(30 * time.Second)
	expect("60 s after the second failure: tried again", annals.SearchParams{}, 1, annals.RankLexical, "hybrid fell back to lexical")
	expect("after the third failure", annals.SearchParams{}, 0, annals.RankLexical, "tried again in 2m0s")
	for range 4 { // 2 m, 4 m, then the cap
		clock.advance(5 * time.Minute)
		expect("once the wait passed", annals.SearchParams{}, 1, annals.RankLexical, "hybrid fell back to lexical")
	}
	expect("after many failures", annals.SearchParams{}, 0, annals.RankLexical, "tried again in 5m0s")

	// Recovered: the first search after the wait asks the provider, ranks hybrid, and the memory
	// ends: a new failure is remembered for 30 s again.
	down.Store(false)
	clock.advance(5 * time.Minute)
	expect("recovered", annals.SearchParams{}, 1, annals.RankHybrid)
	expect("recovered, again", annals.SearchParams{}, 1, annals.RankHybrid)
	down.Store(true)
	expect("down again", annals.SearchParams{}, 1, annals.RankLexical, "hybrid fell back to lexical")
	expect("remembered from the first failure again", annals.SearchParams{}, 0, annals.RankLexical, "tried again in 30s")

	// A hybrid search that succeeds ends the memory too.
	down.Store(false)
	if asked, _, _, err := search(annals.SearchParams{Rank: annals.RankHybrid}); asked != 1 || err != nil {
		t.Fatalf("hybrid asked for once the provider is up: asked %d times, %v", asked, err)
	}
	expect("after a hybrid search succeeded", annals.SearchParams{}, 1, annals.RankHybrid)
}
