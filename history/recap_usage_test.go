package history_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/summarize"
)

// TestRecapRecordsWhatTheProviderSpentAndAFailureLeavesTheSummary runs recap against a real
// HTTP server speaking the OpenAI chat-completions protocol: a recap records its tokens as a run
// of the chat it served, and a provider failure (after its retries) stores nothing but a failed
// run — the summary written before is untouched.
func TestRecapRecordsWhatTheProviderSpentAndAFailureLeavesTheSummary(t *testing.T) {
	var failing atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if failing.Load() {
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, `{"error":{"message":"upstream down"}}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []map[string]any{{"message": map[string]any{"role": "assistant", "content": "**Goal:** fix the login test"}}},
			"usage":   map[string]int{"prompt_tokens": 120, "completion_tokens": 30},
		})
	}))
	defer srv.Close()
	sum, err := summarize.NewOpenAI(summarize.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "gpt-4o-mini",
		Retrying: summarize.Retrying{Retries: 1, MaxBackoff: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	store := openSQLite(t)
	ctx := context.Background()
	chat := &annals.Chat{ID: "c1", TenantID: "T", UserID: "u", AgentID: "bot", CreatedAt: time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)}
	if _, err := annals.CreateChat(ctx, store, chat); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, store, "c1", []*annals.Entry{
		{ID: "e1", Kind: annals.KindUser, Text: "Please fix the flaky login test", Time: chat.CreatedAt},
		{ID: "e2", Kind: annals.KindAssistant, Text: "Fixed with a fake clock.", Time: chat.CreatedAt.Add(time.Second)},
	}); err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: store, Summarizer: sum})
	caller := annals.NewContextWithPrincipal(ctx, &annals.Principal{TenantID: "T", UserID: "u", AgentID: "bot", Role: annals.RoleMember, Scopes: annals.Scopes})

	rc, err := svc.RecapChat(caller, annals.ChatSelector{ID: "c1"})
	if err != nil || rc.Summary != "**Goal:** fix the login test" {
		t.Fatalf("recap = %+v, %v", rc, err)
	}
	runs, err := store.FindRuns(ctx, "c1")
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs = %v, %v; want the recap's run", runs, err)
	}
	if r := runs[0]; r.Model != "gpt-4o-mini" || r.InputTokens != 120 || r.OutputTokens != 30 || r.Status != annals.StatusCompleted {
		t.Errorf("recap run = %+v, want gpt-4o-mini, 120 in, 30 out, completed", r)
	}

	failing.Store(true)
	_, err = svc.RecapChat(caller, annals.ChatSelector{ID: "c1"})
	if annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Fatalf("recap against a failing provider = %v, want unavailable", err)
	}
	got, err := store.FindChatByID(ctx, "c1")
	if err != nil || got.Summary != "**Goal:** fix the login test" {
		t.Fatalf("stored summary after a failed recap = %q, %v; want the earlier one untouched", got.Summary, err)
	}
	runs, _ = store.FindRuns(ctx, "c1")
	if len(runs) != 2 || runs[1].Status != annals.StatusFailed || runs[1].InputTokens != 0 {
		t.Errorf("runs after the failure = %+v, want a second, failed run with no tokens", runs)
	}
}

// TestTitledSummaryRecordsItsRunAndAMalformedAnswerIsAFailure: the digest's titled summary
// through a real HTTP server speaking the Anthropic Messages protocol: strict JSON gives a title
// and a summary and records the run; an answer that is not the JSON asked for is asked once
// more, then fails with a failed run and nothing to store.
func TestTitledSummaryRecordsItsRunAndAMalformedAnswerIsAFailure(t *testing.T) {
	var answer atomic.Value
	answer.Store(`{"title": "Flaky login test", "summary": "**Goal:** fix the login test"}`)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" || r.Header.Get("anthropic-version") == "" {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"type": "message", "role": "assistant", "stop_reason": "end_turn",
			"content": []map[string]any{{"type": "text", "text": answer.Load().(string)}},
			"usage":   map[string]int{"input_tokens": 200, "output_tokens": 40},
		})
	}))
	defer srv.Close()
	sum, err := summarize.NewAnthropic(summarize.AnthropicConfig{BaseURL: srv.URL, Model: "claude-test", Retrying: summarize.Retrying{Retries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	store := openSQLite(t)
	ctx := context.Background()
	chat := &annals.Chat{ID: "c1", TenantID: "T", UserID: "u", CreatedAt: time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)}
	if _, err := annals.CreateChat(ctx, store, chat); err != nil {
		t.Fatal(err)
	}
	entries := []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "Please fix the flaky login test", Time: chat.CreatedAt}}
	if _, err := annals.AppendEntries(ctx, store, "c1", entries); err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: store, Summarizer: sum})
	got, err := history.SummarizeTitled(svc, ctx, chat, entries)
	if err != nil || got.Title != "Flaky login test" || got.Summary != "**Goal:** fix the login test" || calls.Load() != 1 {
		t.Fatalf("titled summary = %+v, %v after %d calls", got, err, calls.Load())
	}
	answer.Store(`{"title": "Flaky login test", "summary": "**Goal:** x", "confidence": 0.9}`)
	got, err = history.SummarizeTitled(svc, ctx, chat, entries)
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || got != (annals.TitledSummary{}) || calls.Load() != 3 {
		t.Fatalf("malformed twice = %+v, %v after %d calls; want unavailable and nothing after 2 more calls", got, err, calls.Load())
	}
	runs, _ := store.FindRuns(ctx, "c1")
	if len(runs) != 2 || runs[0].Status != annals.StatusCompleted || runs[0].InputTokens != 200 ||
		runs[1].Status != annals.StatusFailed || runs[1].InputTokens != 400 || runs[1].Model != "claude-test" {
		t.Errorf("runs = %+v; want a completed run (200 in) and a failed one counting both calls (400 in)", runs)
	}
}
