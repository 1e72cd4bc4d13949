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

// usageHistory: tenant A's chat a1 (source codex) has a run with tokens and no cost late on
// 2026-03-01 UTC (gpt-4o, priced by the table: 1M input tokens, $2.50), a run with a recorded
// cost on 2026-03-02 and a run of a model no table knows; tenant B's chat b1 a large run.
func usageHistory(t *testing.T) *history.Service {
	t.Helper()
	svc, _ := usageHistoryDB(t)
	return svc
}

// usageHistoryDB is usageHistory with its store.
func usageHistoryDB(t *testing.T) (*history.Service, annals.Store) {
	t.Helper()
	db := openSQLite(t)
	ctx := context.Background()
	for _, c := range []*annals.Chat{
		{ID: "a1", TenantID: "A", UserID: "ua", Attributes: annals.Attributes{"source": "codex"}, CreatedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{ID: "b1", TenantID: "B", UserID: "ub", CreatedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if _, err := annals.CreateChat(ctx, db, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []*annals.Run{
		{ID: "r1", ChatID: "a1", Model: "gpt-4o-2024-08-06", StartedAt: time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC), InputTokens: 1_000_000},
		{ID: "r2", ChatID: "a1", Model: "claude-sonnet-4", StartedAt: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC), OutputTokens: 1_000_000, CostUSD: 20},
		{ID: "r3", ChatID: "a1", Model: "unknown-x", StartedAt: time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC), InputTokens: 10},
		{ID: "r9", ChatID: "b1", Model: "gpt-4o", StartedAt: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC), InputTokens: 9e9, CostUSD: 999},
	} {
		r.Status = annals.StatusCompleted
		if _, err := annals.RecordRun(ctx, db, r); err != nil {
			t.Fatal(err)
		}
	}
	return history.New(history.Config{Store: db, Pricer: pricing.Builtin()}), db
}

func usageAs(t *testing.T, svc *history.Service, tenant, user string, p annals.UsageParams) (*annals.UsageReport, error) {
	t.Helper()
	member := &annals.Principal{TenantID: tenant, UserID: user, Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser, annals.ScopeTenant}}
	return history.For(svc, member, history.Access{}).Usage(context.Background(), p)
}

func dayKeys(rows []annals.UsageRow) []string {
	out := []string{}
	for _, r := range rows {
		out = append(out, r.Key)
	}
	return out
}

// A member's report sums its tenant's runs only, prices tokens recorded without a cost from
// the table and marks them estimated, and counts the runs no price covers.
func TestUsageInScopeWithEstimates(t *testing.T) {
	svc := usageHistory(t)
	rep, err := usageAs(t, svc, "A", "ua", annals.UsageParams{})
	if err != nil {
		t.Fatal(err)
	}
	tot := rep.Totals
	if tot.Runs != 3 || tot.InputTokens != 1_000_010 || math.Abs(tot.CostUSD-22.5) > 1e-9 || math.Abs(tot.EstimatedCostUSD-2.5) > 1e-9 || tot.UnpricedRuns != 1 {
		t.Errorf("totals = %+v; want 3 runs of tenant A, $22.50 of which $2.50 estimated, 1 unpriced", tot)
	}
	if rep.Scope != "tenant" || rep.Zone != "UTC" || rep.Pricing == nil || rep.Pricing.Snapshot == "" {
		t.Errorf("scope %q, zone %q, pricing %+v", rep.Scope, rep.Zone, rep.Pricing)
	}
	wantIDs(t, "days in UTC", dayKeys(rep.Days), "2026-03-01", "2026-03-02")
	wantIDs(t, "models by tokens", dayKeys(rep.Models), "claude-sonnet-4", "gpt-4o-2024-08-06", "unknown-x")
	if len(rep.Tools) != 1 || rep.Tools[0].Key != "codex" || rep.Tools[0].Runs != 3 {
		t.Errorf("tools = %+v; want codex with 3 runs", rep.Tools)
	}
	if len(rep.Top.ByCost) != 1 || rep.Top.ByCost[0].ChatID != "a1" || math.Abs(rep.Top.ByCost[0].EstimatedCostUSD-2.5) > 1e-9 {
		t.Errorf("top by cost = %+v; want a1 with $2.50 estimated", rep.Top.ByCost)
	}
	b, err := usageAs(t, svc, "B", "ub", annals.UsageParams{})
	if err != nil || b.Totals.Runs != 1 || b.Totals.CostUSD != 999 || b.Totals.Estimated() {
		t.Errorf("tenant B's report = %+v, %v; want its one run at its recorded $999", b, err)
	}
}

// Days and the heatmap are counted in the caller's zone; a range of dates lists each of its
// days, empty ones included, and its end is inclusive.
func TestUsageCountsDaysInTheZone(t *testing.T) {
	svc := usageHistory(t)
	rep, err := usageAs(t, svc, "A", "ua", annals.UsageParams{Zone: "Asia/Tokyo"})
	if err != nil {
		t.Fatal(err)
	}
	wantIDs(t, "days in Tokyo", dayKeys(rep.Days), "2026-03-02")
	// 2026-03-02 is a Monday: r1 at 08:30, r2 at 19:00, r3 at 20:00 Tokyo time.
	if h := rep.Heatmap.Runs[0]; h[8] != 1 || h[19] != 1 || h[20] != 1 || rep.Heatmap.Tokens[0][8] != 1_000_000 {
		t.Errorf("Monday's heatmap = %v; want a run at 8, 19 and 20", h)
	}
	from, err := annals.ParseDateOrTimeIn("2026-02-27", false, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	to, _ := annals.ParseDateOrTimeIn("2026-03-01", true, time.UTC)
	rep, err = usageAs(t, svc, "A", "ua", annals.UsageParams{From: &from, To: &to})
	if err != nil {
		t.Fatal(err)
	}
	wantIDs(t, "days of a range", dayKeys(rep.Days), "2026-02-27", "2026-02-28", "2026-03-01")
	if rep.Totals.Runs != 1 || rep.Days[2].Runs != 1 || rep.Days[0].Runs != 0 {
		t.Errorf("range 02-27..03-01 = %+v; want r1 alone, on its last day", rep.Totals)
	}
}

// Bad parameters are refused naming what is allowed; a caller without a scope gets nothing.
func TestUsageRefusesBadParameters(t *testing.T) {
	svc := usageHistory(t)
	late, early := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for name, p := range map[string]annals.UsageParams{
		"unknown zone":  {Zone: "Mars/Olympus"},
		"a path":        {Zone: "../../../etc/passwd"},
		"Local":         {Zone: "Local"},
		"to before":     {From: &late, To: &early},
		"top too large": {Top: annals.MaxUsageTop + 1},
		"negative top":  {Top: -1},
	} {
		if _, err := usageAs(t, svc, "A", "ua", p); annals.ErrorCode(err) != annals.EINVALID {
			t.Errorf("%s: %v; want invalid", name, err)
		}
	}
	if _, err := history.For(svc, nil, history.Access{}).Usage(context.Background(), annals.UsageParams{}); annals.ErrorCode(err) != annals.EFORBIDDEN {
		t.Errorf("no principal: %v; want forbidden", err)
	}
}

func wantIDs(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s = %q; want %q", what, got, want)
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s = %q; want %q", what, got, want)
			return
		}
	}
}
