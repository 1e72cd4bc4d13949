package storetest

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// boundsTests prove that numbers and times a caller gives are range-checked at capture, with a
// clear error naming the field, and that nothing of a refused batch is stored.
func boundsTests() []test {
	return []test{
		{"TokenCountsAndCostsAreBounded", testTokenAndCostBounds},
		{"TimesOutsideTheStoredRangeAreRefused", testTimeBounds},
		{"TokenSumsNeverOverflow", testTokenSumsAtTheBound},
	}
}

func testTokenAndCostBounds(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	entry := func(in, out int64) annals.CaptureOp {
		return annals.CaptureOp{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{{ID: "e", Kind: annals.KindAssistant, Text: "x", InputTokens: in, OutputTokens: out}}}}
	}
	run := func(in int64, cost float64) annals.CaptureOp {
		return annals.CaptureOp{Run: &annals.Run{ID: "r", ChatID: "c1", Status: annals.StatusCompleted, StartedAt: runStart, InputTokens: in, CostUSD: cost}}
	}
	for _, tc := range []struct {
		name, field string
		op          annals.CaptureOp
	}{
		{"entry input tokens at the int64 limit", "entry.input_tokens", entry(math.MaxInt64, 0)},
		{"entry output tokens past 10^12", "entry.output_tokens", entry(0, annals.MaxTokens+1)},
		{"negative entry tokens", "entry.input_tokens", entry(-1, 0)},
		{"run input tokens at the int64 limit", "run.input_tokens", run(math.MaxInt64, 0)},
		{"run cost past 10^9", "run.cost_usd", run(0, 1e10)},
		{"run cost NaN", "run.cost_usd", run(0, math.NaN())},
		{"run cost infinite", "run.cost_usd", run(0, math.Inf(1))},
	} {
		_, err := s.Capture(t.Context(), []annals.CaptureOp{tc.op})
		wantCode(t, tc.name, err, annals.EINVALID)
		if msg := annals.ErrorMessage(err); !strings.Contains(msg, tc.field) {
			t.Errorf("%s: message %q does not name %s", tc.name, msg, tc.field)
		}
	}
	c := mustChat(t, s, "c1")
	if c.Totals != (annals.Totals{}) {
		t.Errorf("totals after refused captures = %+v, want all zero", c.Totals)
	}
	// The bounds themselves are accepted, and two of them sum exactly.
	big := annals.CaptureOp{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{
		{ID: "b1", Kind: annals.KindAssistant, Text: "x", InputTokens: annals.MaxTokens},
		{ID: "b2", Kind: annals.KindAssistant, Text: "y", InputTokens: annals.MaxTokens},
	}}}
	if _, err := s.Capture(t.Context(), []annals.CaptureOp{big, run(annals.MaxTokens, annals.MaxCostUSD)}); err != nil {
		t.Fatalf("capture at the bounds: %v", err)
	}
	c = mustChat(t, s, "c1")
	if want := int64(3 * annals.MaxTokens); c.Totals.InputTokens != want || c.Totals.CostUSD != annals.MaxCostUSD {
		t.Errorf("totals at the bounds: input %d cost %v, want %d and %v", c.Totals.InputTokens, c.Totals.CostUSD, want, float64(annals.MaxCostUSD))
	}
}

func testTimeBounds(t *testing.T, s Store) {
	far := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	early := time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC)
	mustCreateChat(t, s, NewChat("c1", "A"))
	for _, tc := range []struct {
		name, field string
		op          annals.CaptureOp
	}{
		{"a chat created in 3000", "chat.created_at", annals.CaptureOp{Chat: &annals.Chat{ID: "c2", TenantID: "A", CreatedAt: far}}},
		{"a chat archived in 1600", "chat.archived_at", annals.CaptureOp{Chat: &annals.Chat{ID: "c3", TenantID: "A", ArchivedAt: &early}}},
		{"an entry in 3000", "entry.time", annals.CaptureOp{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: "x", Time: far}}}}},
		{"a run started in 1600", "run.started_at", annals.CaptureOp{Run: &annals.Run{ID: "r", ChatID: "c1", Status: annals.StatusRunning, StartedAt: early}}},
		{"a run ended in 3000", "run.ended_at", annals.CaptureOp{Run: &annals.Run{ID: "r", ChatID: "c1", Status: annals.StatusCompleted, StartedAt: runStart, EndedAt: &far}}},
	} {
		_, err := s.Capture(t.Context(), []annals.CaptureOp{tc.op})
		wantCode(t, tc.name, err, annals.EINVALID)
		if msg := annals.ErrorMessage(err); !strings.Contains(msg, tc.field) || !strings.Contains(msg, "1900") {
			t.Errorf("%s: message %q does not name %s and the allowed range", tc.name, msg, tc.field)
		}
	}
	wantChatSet(t, s, "chats after refused captures", annals.ChatFilter{Owner: allTenants, IncludeArchived: true}, "c1")
	if c := mustChat(t, s, "c1"); c.Totals.Entries != 0 || c.Totals.Runs != 0 {
		t.Errorf("c1 after refused captures: totals %+v, want none", c.Totals)
	}
}

// testTokenSumsAtTheBound appends many entries at the token bound, then rewinds: the counters
// stay exact (the sums are far below the point where a float would round).
func testTokenSumsAtTheBound(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	var es []*annals.Entry
	for i := range 50 {
		es = append(es, &annals.Entry{ID: "e" + strconv.Itoa(i), Kind: annals.KindAssistant, Text: "x", InputTokens: annals.MaxTokens, OutputTokens: annals.MaxTokens - 1})
	}
	mustAppend(t, s, "c1", es...)
	if c := mustChat(t, s, "c1"); c.Totals.InputTokens != 50*annals.MaxTokens || c.Totals.OutputTokens != 50*(annals.MaxTokens-1) {
		t.Errorf("totals = %+v, want 50 x the bound", c.Totals)
	}
	if _, err := annals.TruncateChat(t.Context(), s, "c1", annals.TruncatePoint{Seq: 11}); err != nil {
		t.Fatal(err)
	}
	if c := mustChat(t, s, "c1"); c.Totals.InputTokens != 10*annals.MaxTokens || c.Totals.OutputTokens != 10*(annals.MaxTokens-1) {
		t.Errorf("totals after a rewind to 10 entries = %+v", c.Totals)
	}
}
