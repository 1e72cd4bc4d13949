package history_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/pricing"
)

// A run's cache reads and writes are priced at the table's cache rates, not as fresh input:
// 1M prompt tokens of claude-sonnet-4-5 of which 800k read from the cache and 100k written to it
// cost 100k × $3 + 800k × $0.30 + 100k × $3.75 per million = $0.915 (all at the input price,
// $3.00). The chat's runs, the report's totals and the top list by cost say so, and the report
// sums the cache's tokens.
func TestCacheTokensArePricedAtTheirRates(t *testing.T) {
	svc, db := usageHistoryDB(t)
	ctx := context.Background()
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "a3", TenantID: "A", UserID: "ua", CreatedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.RecordRun(ctx, db, &annals.Run{ID: "r5", ChatID: "a3", Status: annals.StatusCompleted, Model: "claude-sonnet-4-5",
		StartedAt: time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC), InputTokens: 1_000_000, CacheReadTokens: 800_000, CacheCreationTokens: 100_000}); err != nil {
		t.Fatal(err)
	}
	const want = 0.915
	member := &annals.Principal{TenantID: "A", UserID: "ua", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser, annals.ScopeTenant}}
	runs, err := history.For(svc, member, history.Access{}).FindChatRuns(ctx, annals.ChatSelector{ID: "a3"})
	if err != nil || len(runs) != 1 || math.Abs(runs[0].EstimatedCostUSD-want) > 1e-9 {
		t.Fatalf("runs of a3: %+v %v; want one estimated at $%.3f", runs, err, want)
	}
	rep, err := usageAs(t, svc, "A", "ua", annals.UsageParams{ChatIDs: []string{"a3"}})
	if err != nil {
		t.Fatal(err)
	}
	tot := rep.Totals
	if math.Abs(tot.EstimatedCostUSD-want) > 1e-9 || tot.CacheReadTokens != 800_000 || tot.CacheCreationTokens != 100_000 {
		t.Errorf("a3's totals = %+v; want $%.3f estimated, 800000 tokens read from the cache and 100000 written", tot, want)
	}
	if len(rep.Top.ByCost) != 1 || math.Abs(rep.Top.ByCost[0].CostUSD-want) > 1e-9 {
		t.Errorf("by cost = %+v; want a3 at $%.3f", rep.Top.ByCost, want)
	}
}

// countingUsage is a store that counts its usage statements.
type countingUsage struct {
	annals.Store
	us            annals.UsageStore
	buckets, tops int
}

func (c *countingUsage) UsageBuckets(ctx context.Context, f annals.UsageFilter) ([]annals.UsageBucket, error) {
	c.buckets++
	return c.us.UsageBuckets(ctx, f)
}

func (c *countingUsage) TopUsageChats(ctx context.Context, q annals.UsageTopQuery) (annals.UsageTop, error) {
	c.tops++
	return c.us.TopUsageChats(ctx, q)
}

// A report of the costs only (the web UI's list, on every page) is one statement of the store,
// and gives each chat the cost the whole report's top list gives it, estimate included.
func TestCostsOnlyIsOneStatement(t *testing.T) {
	_, db := usageHistoryDB(t)
	store := &countingUsage{Store: db, us: db.(annals.UsageStore)}
	svc := history.New(history.Config{Store: store, Pricer: pricing.Builtin()})
	full, err := usageAs(t, svc, "A", "ua", annals.UsageParams{ChatIDs: []string{"a1"}})
	if err != nil || store.buckets != 1 || store.tops != 1 {
		t.Fatalf("the whole report: %v, %d bucket and %d top statements; want one of each", err, store.buckets, store.tops)
	}
	store.buckets, store.tops = 0, 0
	costs, err := usageAs(t, svc, "A", "ua", annals.UsageParams{ChatIDs: []string{"a1", "b1"}, CostsOnly: true})
	if err != nil || store.buckets+store.tops != 1 {
		t.Fatalf("the costs only: %v, %d bucket and %d top statements; want one in all", err, store.buckets, store.tops)
	}
	if len(costs.Top.ByCost) != 1 || len(full.Top.ByCost) != 1 {
		t.Fatalf("by cost: %+v and %+v; want a1 alone in each (b1 is another tenant's)", costs.Top.ByCost, full.Top.ByCost)
	}
	got, want := costs.Top.ByCost[0], full.Top.ByCost[0]
	if got.ChatID != "a1" || got.Runs != want.Runs || math.Abs(got.CostUSD-want.CostUSD) > 1e-9 || math.Abs(got.EstimatedCostUSD-want.EstimatedCostUSD) > 1e-9 {
		t.Errorf("a1's costs only = %+v; want the report's %+v", got, want)
	}
}
