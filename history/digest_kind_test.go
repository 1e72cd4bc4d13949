package history_test

import (
	"context"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// meteredTitler is a model-like summarizer that reports what each call spent.
type meteredTitler struct{ titledSummarizer }

func (s meteredTitler) SummarizeTitled(context.Context, *annals.Chat, []*annals.Entry) (annals.TitledSummary, annals.SummaryUsage, error) {
	return annals.TitledSummary{Title: s.title, Summary: "**Goal:** a metered digest"},
		annals.SummaryUsage{Calls: 1, Model: "gpt-4o-mini", InputTokens: 300, OutputTokens: 40}, nil
}

func (s meteredTitler) SummarizeMetered(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, annals.SummaryUsage, error) {
	out, u, err := s.SummarizeTitled(ctx, chat, entries)
	return out.Summary, u, err
}

// TestDigestRunIsRecordedButIsNotActivity: a digest's model call is recorded as a run of the
// chat it served (model, tokens, kind recap) and counted in its totals, but the chat's last
// activity, status and place in the list stay where its own work left them, so the next pass
// finds nothing due and a newer chat stays above it.
func TestDigestRunIsRecordedButIsNotActivity(t *testing.T) {
	f := newDigestFixture(t)
	f.svc = history.New(history.Config{Store: f.store.(history.Store), Summarizer: meteredTitler{titledSummarizer{title: "Metered"}}, Now: func() time.Time { return *f.now }})
	ctx := context.Background()
	f.chat(t, "old", "", 2, digestT0.Add(-2*time.Hour))
	if _, err := annals.RecordRun(ctx, f.store, &annals.Run{ID: "own", ChatID: "old", Status: annals.StatusAwaitingInput, StartedAt: digestT0.Add(-3 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	f.chat(t, "newer", "Named", 1, digestT0.Add(-time.Minute))
	before := f.get(t, "old")

	if p := f.pass(t); p.Digested != 1 {
		t.Fatalf("pass = %+v; want old digested", p)
	}
	after := f.get(t, "old")
	if after.Title != "Metered" || after.Summary == "" {
		t.Fatalf("old: title %q summary %q", after.Title, after.Summary)
	}
	if !after.LastActivity.Equal(before.LastActivity) || after.Status != annals.StatusAwaitingInput {
		t.Errorf("after its digest: last activity %v (was %v), status %q; want both unmoved (awaiting_input)", after.LastActivity, before.LastActivity, after.Status)
	}
	if after.Totals.Runs != 2 || after.Totals.InputTokens != 300 || after.Totals.OutputTokens != 40 {
		t.Errorf("totals %+v; want the digest's run counted (2 runs, 300 in, 40 out)", after.Totals)
	}
	runs, err := f.store.FindRuns(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	var recap *annals.Run
	for _, r := range runs {
		if r.Kind == annals.RunKindRecap {
			recap = r
		}
	}
	if recap == nil || recap.Model != "gpt-4o-mini" || recap.InputTokens != 300 {
		t.Fatalf("runs %+v; want the digest's recorded as a recap run of gpt-4o-mini, 300 in", runs)
	}
	list, _, err := f.store.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{TenantID: "T"}, Limit: 10})
	if err != nil || len(list) != 2 || list[0].ID != "newer" {
		t.Fatalf("list = %+v, %v; want newer first (the digest moved nothing)", list, err)
	}
	if p := f.pass(t); p.Digested != 0 || p.Checked != 1 {
		t.Fatalf("second pass = %+v; want only newer (not idle yet) checked", p)
	}
}
