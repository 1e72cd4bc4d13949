package history_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// A report for some chats counts their runs only (the web UI's per-chat cost): a2's run stays
// out of a report for a1, and b1 (another tenant's) adds nothing when a member names it.
func TestUsageOfSomeChats(t *testing.T) {
	svc, db := usageHistoryDB(t)
	ctx := context.Background()
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "a2", TenantID: "A", UserID: "ua", CreatedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.RecordRun(ctx, db, &annals.Run{ID: "r4", ChatID: "a2", Status: annals.StatusCompleted, Model: "gpt-4o",
		StartedAt: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC), InputTokens: 2_000_000}); err != nil {
		t.Fatal(err)
	}
	rep, err := usageAs(t, svc, "A", "ua", annals.UsageParams{ChatIDs: []string{"a1", "b1"}, Top: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Runs != 3 || math.Abs(rep.Totals.EstimatedCostUSD-2.5) > 1e-9 {
		t.Errorf("a1's totals = %+v; want its 3 runs, $2.50 estimated", rep.Totals)
	}
	if len(rep.Top.ByCost) != 1 || rep.Top.ByCost[0].ChatID != "a1" {
		t.Errorf("by cost = %+v; want a1 alone", rep.Top.ByCost)
	}
	rep, err = usageAs(t, svc, "A", "ua", annals.UsageParams{ChatIDs: []string{"a2"}})
	if err != nil || rep.Totals.Runs != 1 || math.Abs(rep.Totals.EstimatedCostUSD-5) > 1e-9 {
		t.Errorf("a2's report = %+v, %v; want its run at $5.00 estimated", rep, err)
	}
	rep, err = usageAs(t, svc, "A", "ua", annals.UsageParams{ChatIDs: []string{}})
	if err != nil || rep.Totals.Runs != 0 {
		t.Errorf("no chats = %+v, %v; want nothing counted", rep, err)
	}
	many := make([]string, annals.MaxUsageTop+1)
	for i := range many {
		many[i] = "c"
	}
	for name, ids := range map[string][]string{"too many": many, "an escape": {"a\x1b"}} {
		if _, err := usageAs(t, svc, "A", "ua", annals.UsageParams{ChatIDs: ids}); annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(annals.ErrorMessage(err), "chat_ids") {
			t.Errorf("%s: %v; want invalid naming chat_ids", name, err)
		}
	}
}

// A chat's runs come with the estimate of a run that recorded tokens but no cost and whose
// model the table prices; a recorded cost and an unknown model are left alone.
func TestChatRunsCarryTheirEstimate(t *testing.T) {
	svc := usageHistory(t)
	member := &annals.Principal{TenantID: "A", UserID: "ua", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser, annals.ScopeTenant}}
	runs, err := history.For(svc, member, history.Access{}).FindChatRuns(context.Background(), annals.ChatSelector{ID: "a1"})
	if err != nil || len(runs) != 3 {
		t.Fatalf("runs of a1: %v %v", runs, err)
	}
	est := map[string]float64{}
	for _, r := range runs {
		est[r.ID] = r.EstimatedCostUSD
	}
	if math.Abs(est["r1"]-2.5) > 1e-9 || est["r2"] != 0 || est["r3"] != 0 {
		t.Errorf("estimates = %v; want r1 $2.50 (1M gpt-4o input), none for r2 (recorded) and r3 (unknown model)", est)
	}
}
