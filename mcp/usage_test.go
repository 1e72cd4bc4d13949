package mcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// The history meta-tool answers the usage op in the session's scope: alice's tenant's runs
// only, never bob's.
func TestHistoryToolAnswersUsageInScope(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		p    *annals.Principal
		chat string
		in   int64
	}{{alice(), "alice-1", 1234}, {bob(), "bob-1", 999999}} {
		ctx := annals.NewContextWithPrincipal(context.Background(), c.p)
		run := &annals.Run{ID: c.chat + "-r", ChatID: c.chat, Status: annals.StatusCompleted, Model: "gpt-4o", StartedAt: t0.Add(time.Minute), InputTokens: c.in}
		if _, err := annals.RecordRun(ctx, e.svc, run); err != nil {
			t.Fatal(err)
		}
	}
	cs := e.connect(alice(), false)
	r := callTool(t, cs, "history", map[string]any{"op": "usage", "zone": "UTC"})
	if r.isError {
		t.Fatalf("usage: %s", r.text)
	}
	totals, _ := r.data["totals"].(map[string]any)
	if totals["runs"] != float64(1) || totals["input_tokens"] != float64(1234) {
		t.Errorf("usage totals over MCP = %v; want alice's one run of 1234 input tokens", totals)
	}
}
