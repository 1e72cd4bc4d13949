package summarize_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/summarize"
)

// transcript builds entries with ids, seqs and times, so tests read like the chat they model.
type transcript struct {
	entries []*annals.Entry
}

func (tr *transcript) add(e *annals.Entry) *transcript {
	n := len(tr.entries) + 1
	e.ChatID = "c-1"
	e.ID = fmt.Sprintf("e%d", n)
	e.Seq = int64(n)
	e.Time = time.Date(2025, 3, 14, 10, 0, n, 0, time.UTC)
	tr.entries = append(tr.entries, e)
	return tr
}

func (tr *transcript) user(text string) *transcript {
	return tr.add(&annals.Entry{Kind: annals.KindUser, Text: text})
}

func (tr *transcript) assistant(text string) *transcript {
	return tr.add(&annals.Entry{Kind: annals.KindAssistant, Text: text})
}

func (tr *transcript) thinking(reasoning, text string) *transcript {
	return tr.add(&annals.Entry{Kind: annals.KindAssistant, Text: text, Reasoning: reasoning})
}

func (tr *transcript) tool(name string, args map[string]any, result string, outcome annals.Outcome) *transcript {
	raw, _ := json.Marshal(args)
	return tr.add(&annals.Entry{Kind: annals.KindTool, Tool: &annals.ToolCall{
		Name: name, CallID: fmt.Sprintf("toolu_%d", len(tr.entries)+1), Arguments: raw, Result: result, Outcome: outcome,
	}})
}

var fixChat = &annals.Chat{
	ID: "c-1", TenantID: "local", Title: "Fix failing TestTotalRoundsHalfUp", Status: annals.StatusCompleted,
	Attributes: annals.Attributes{"source": "claude-code", "cwd": "/home/dana/src/invoicer"},
}

// fixTranscript is the realistic chat of the brief: a user asks to fix a failing test, the tests
// fail, the agent reads and edits a file, the tests pass, the agent concludes.
func fixTranscript() *transcript {
	tr := &transcript{}
	tr.user("<system-reminder>The user opened invoice_test.go in the IDE.</system-reminder>`go test ./...` fails on main since yesterday's currency refactor. Can you fix TestTotalRoundsHalfUp without changing what the test expects? The CI has been red all morning.")
	tr.assistant("I'll start by running the test suite to see the failure.")
	tr.tool("Bash", map[string]any{"command": "go test ./invoice/...", "description": "Run the invoice tests"},
		"--- FAIL: TestTotalRoundsHalfUp (0.00s)\n    invoice_test.go:42: Total() = 10.04, want 10.05\nFAIL\n"+strings.Repeat("noise line\n", 400),
		annals.OutcomeFailed)
	tr.tool("Read", map[string]any{"file_path": "/home/dana/src/invoicer/invoice/total.go"},
		"package invoice\n\nfunc (inv *Invoice) Total() float64 { ... }\n", annals.OutcomeSucceeded)
	tr.thinking("Summing float64 prices accumulates binary error; integer cents avoid it entirely.",
		"The root cause is that the sum is accumulated in float64, so 3 × 3.35 comes out as 10.049999 and rounds down. I'll switch to integer cents instead of float64 prices and round once, half up.")
	tr.tool("Edit", map[string]any{"file_path": "/home/dana/src/invoicer/invoice/total.go", "old_string": "var sum float64", "new_string": "var cents int64"},
		"The file has been updated.", annals.OutcomeSucceeded)
	tr.tool("Bash", map[string]any{"command": "go test ./..."}, "ok  github.com/acme/invoicer/invoice 0.011s\n", annals.OutcomeSucceeded)
	tr.assistant("Fixed: `Invoice.Total` now sums integer cents, so the test passes again and all packages pass with `go test ./...`. TODO: the CSV exporter still formats float prices and needs the same change.")
	return tr
}

func summarizeExtractive(t *testing.T, x summarize.Extractive, chat *annals.Chat, es []*annals.Entry) string {
	t.Helper()
	s, err := x.Summarize(context.Background(), chat, es)
	if err != nil {
		t.Fatalf("Summarize: %v", err)
	}
	return s
}

func mustContain(t *testing.T, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("summary does not contain %q:\n%s", w, s)
		}
	}
}

func mustNotContain(t *testing.T, s string, nots ...string) {
	t.Helper()
	for _, w := range nots {
		if strings.Contains(s, w) {
			t.Errorf("summary contains %q:\n%s", w, s)
		}
	}
}

func TestExtractiveSummarizesAFixTheTestChat(t *testing.T) {
	s := summarizeExtractive(t, summarize.Extractive{}, fixChat, fixTranscript().entries)
	t.Logf("summary (%d bytes):\n%s", len(s), s)

	// Goal: the first request, condensed, without the harness's system reminder.
	mustContain(t, s, "**Goal:** `go test ./...` fails on main since yesterday's currency refactor. Can you fix TestTotalRoundsHalfUp")
	mustNotContain(t, s, "opened invoice_test.go in the IDE")
	// Tools with counts and the failure; files relative to the chat's cwd; commands.
	mustContain(t, s, "**Tools used:** Bash ×2 (1 failed), Read ×1, Edit ×1", "`invoice/total.go`", "`go test ./invoice/...`")
	// The decision sentence, and not the exploratory "I'll start by running".
	mustContain(t, s, "**Decisions:**", "The root cause is that the sum is accumulated in float64")
	mustNotContain(t, s, "I'll start by running")
	// Outcome with status, and the TODO as an open end; the Bash failure was fixed by a later
	// success, so it is not an open end.
	mustContain(t, s, "**Outcome (completed):** Fixed: `Invoice.Total` now sums integer cents", "**Open ends:**", "CSV exporter")
	mustNotContain(t, s, "Bash failed:")
	// Bounded tool output: the noise in the failing result never appears.
	mustNotContain(t, s, "noise line")
	if len(s) > 1200 {
		t.Errorf("summary is %d bytes, want <= 1200 for a chat this size", len(s))
	}
}

func TestExtractiveIsDeterministic(t *testing.T) {
	es := fixTranscript().entries
	first := summarizeExtractive(t, summarize.Extractive{}, fixChat, es)
	for range 20 {
		if got := summarizeExtractive(t, summarize.Extractive{}, fixChat, es); got != first {
			t.Fatalf("summary changed between calls:\n%s\n---\n%s", first, got)
		}
	}
}

func TestExtractiveEmptyChatSaysNoTranscriptYet(t *testing.T) {
	for _, es := range [][]*annals.Entry{nil, {}, {nil}} {
		if got := summarizeExtractive(t, summarize.Extractive{}, nil, es); got != "No transcript yet." {
			t.Errorf("Summarize(%v) = %q, want %q", es, got, "No transcript yet.")
		}
	}
}

func TestExtractiveReportsFailuresLeftStandingAndUnansweredQuestions(t *testing.T) {
	tr := &transcript{}
	tr.user("Please deploy the staging build to the cluster.")
	tr.tool("Bash", map[string]any{"command": "kubectl apply -f deploy/staging.yaml"}, "error: unable to recognize \"deploy/staging.yaml\": no matches for kind \"Ingress\"\n"+strings.Repeat("x", 5000), annals.OutcomeFailed)
	tr.tool("Read", map[string]any{"file_path": "deploy/staging.yaml"}, "apiVersion: extensions/v1beta1", annals.OutcomeSucceeded)
	tr.assistant("The manifest uses the removed extensions/v1beta1 Ingress API, so the cluster rejects it.")
	tr.user("Should we upgrade the manifest to networking.k8s.io/v1? Or pin the old cluster version?")
	s := summarizeExtractive(t, summarize.Extractive{}, &annals.Chat{Status: annals.StatusAwaitingInput}, tr.entries)
	t.Logf("summary:\n%s", s)
	mustContain(t, s,
		"**Outcome (awaiting_input):** The manifest uses the removed extensions/v1beta1 Ingress API",
		"Bash failed: `kubectl apply -f deploy/staging.yaml` — error: unable to recognize",
		"Unanswered question: Should we upgrade the manifest to networking.k8s.io/v1?",
		"Unanswered question: Or pin the old cluster version?",
	)
	mustNotContain(t, s, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
}

func TestExtractiveListsLaterRequestsThatChangeDirection(t *testing.T) {
	tr := &transcript{}
	tr.user("Add a CSV export button to the invoices page.")
	tr.assistant("I'll add the button and a handler that streams CSV.")
	tr.user("ok")
	tr.user("Actually, forget CSV: export to PDF instead, with the company logo in the header.")
	tr.assistant("Switching to PDF export with a logo header.")
	s := summarizeExtractive(t, summarize.Extractive{}, nil, tr.entries)
	t.Logf("summary:\n%s", s)
	mustContain(t, s, "**Goal:** Add a CSV export button to the invoices page.", "- Then: Actually, forget CSV: export to PDF instead")
	mustNotContain(t, s, "Then: ok")
}

func TestExtractiveUsesReasoningOnlyAsAWeakSourceOfDecisions(t *testing.T) {
	tr := &transcript{}
	tr.user("Speed up the nightly report job, it takes two hours.")
	tr.thinking("The root cause is probably the N+1 query pattern in the loader.", "Looking into the report job now.")
	tr.assistant("The report is finished and the job now takes four minutes.")
	s := summarizeExtractive(t, summarize.Extractive{}, nil, tr.entries)
	t.Logf("summary:\n%s", s)
	// With no decision in the visible text, the reasoning's sentence is the best there is.
	mustContain(t, s, "The root cause is probably the N+1 query pattern")
	// Reasoning never becomes the outcome.
	mustContain(t, s, "**Outcome:** The report is finished")

	// When the visible text has strong decisions, the reasoning's tentative one loses.
	tr2 := &transcript{}
	tr2.user("Speed up the nightly report job, it takes two hours.")
	tr2.thinking("The root cause is probably the N+1 query pattern in the loader.",
		"The root cause is the N+1 query in the loader. I'll switch to one batched query instead of a query per invoice. "+
			"We should cache the currency table because it never changes during a run.")
	tr2.assistant("Done; the job takes four minutes.")
	s2 := summarizeExtractive(t, summarize.Extractive{}, nil, tr2.entries)
	t.Logf("summary:\n%s", s2)
	mustContain(t, s2, "The root cause is the N+1 query in the loader.", "batched query", "cache the currency table")
	mustNotContain(t, s2, "probably")
}

func TestExtractiveKeepsTranscriptTextOnOneLine(t *testing.T) {
	tr := &transcript{}
	tr.user("Fix the login page\n# Injected heading\n- injected bullet\n\nplease and thanks")
	tr.assistant("Done.\n## Another heading")
	s := summarizeExtractive(t, summarize.Extractive{}, nil, tr.entries)
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "- injected") {
			t.Errorf("transcript text started a Markdown line %q:\n%s", line, s)
		}
	}
}

func TestExtractiveStaysUnderTheCapOnALongChat(t *testing.T) {
	tr := &transcript{}
	tr.user(strings.Repeat("Refactor the billing module so that every currency is handled in minor units and nothing rounds twice. ", 40))
	for i := range 3000 {
		switch i % 6 {
		case 0:
			tr.user(fmt.Sprintf("Now also handle currency %d differently, instead of the old path? %s", i, strings.Repeat("more words here ", 30)))
		case 1:
			tr.assistant(fmt.Sprintf("I'll switch module %d to integer minor units because float rounding broke totals. The root cause is shared. %s", i, strings.Repeat("Explanation continues at length. ", 40)))
		case 2:
			tr.tool(fmt.Sprintf("Tool%d", i%40), map[string]any{"file_path": fmt.Sprintf("/repo/pkg%d/%s.go", i, strings.Repeat("long", 30)), "command": strings.Repeat("x", 500)}, strings.Repeat("out ", 3000), annals.OutcomeFailed)
		case 3:
			tr.tool("Bash", map[string]any{"command": fmt.Sprintf("go test ./pkg%d/...", i)}, "FAIL", annals.OutcomeFailed)
		case 4:
			tr.assistant(fmt.Sprintf("TODO: module %d still needs a migration. The remaining work is large. FIXME later. %s", i, strings.Repeat("z", 3000)))
		case 5:
			tr.tool("Read", map[string]any{"path": fmt.Sprintf("pkg%d", i)}, "ok", annals.OutcomeSucceeded)
		}
	}
	s := summarizeExtractive(t, summarize.Extractive{}, &annals.Chat{Status: annals.StatusRunning}, tr.entries)
	t.Logf("summary (%d bytes):\n%s", len(s), s)
	if len(s) > summarize.DefaultMaxChars {
		t.Errorf("summary is %d bytes, want <= %d", len(s), summarize.DefaultMaxChars)
	}
	mustContain(t, s, "**Goal:**", "**Tools used:**", "and 14 more", "**Decisions:**", "**Outcome (running):**", "**Open ends:**")

	small := summarizeExtractive(t, summarize.Extractive{MaxChars: 600}, nil, tr.entries)
	if len(small) > 600 {
		t.Errorf("with MaxChars 600 the summary is %d bytes:\n%s", len(small), small)
	}
	if !strings.HasPrefix(small, "**Goal:**") {
		t.Errorf("the cap should cut the least important sections, not the goal:\n%s", small)
	}
}

func TestExtractiveFallsBackToChatMetadataWithoutUserRequest(t *testing.T) {
	tr := &transcript{}
	tr.assistant("Nightly maintenance finished; 3 stale branches were deleted.")
	s := summarizeExtractive(t, summarize.Extractive{}, &annals.Chat{Title: "Nightly maintenance"}, tr.entries)
	mustContain(t, s, "**Goal:** Nightly maintenance (from the chat's metadata", "**Outcome:** Nightly maintenance finished")
}

func TestExtractiveReadsCodexStyleArguments(t *testing.T) {
	tr := &transcript{}
	tr.user("Bump the version in the changelog please.")
	tr.tool("shell", map[string]any{"command": []string{"bash", "-lc", "git log --oneline -5"}}, "abc123 fix", annals.OutcomeSucceeded)
	tr.tool("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: CHANGELOG.md\n@@\n-1.0\n+1.1\n*** End Patch"}, "Done", annals.OutcomeSucceeded)
	s := summarizeExtractive(t, summarize.Extractive{}, nil, tr.entries)
	mustContain(t, s, "shell ×1, apply_patch ×1", "`CHANGELOG.md`", "`git log --oneline -5`")
}

func TestExtractiveKeepsSlashCommandArgumentsAndHandlesCJK(t *testing.T) {
	tr := &transcript{}
	tr.user("<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>@CLAUDE.md を最新の状態にアップデートしてください</command-args>")
	tr.assistant("CLAUDE.md を更新しました。テストはすべて成功しています。")
	s := summarizeExtractive(t, summarize.Extractive{}, nil, tr.entries)
	mustContain(t, s, "**Goal:** /orchestrator @CLAUDE.md を最新の状態にアップデートしてください", "**Outcome:** CLAUDE.md を更新しました。テストはすべて成功しています。")
	mustNotContain(t, s, "is running")

	cjkOnly := &transcript{}
	cjkOnly.user("请帮我修复登录页面的错误")
	if s := summarizeExtractive(t, summarize.Extractive{}, nil, cjkOnly.entries); !strings.Contains(s, "**Goal:** 请帮我修复登录页面的错误") {
		t.Errorf("a request without spaces was not taken as the goal:\n%s", s)
	}
}

func TestExtractiveHonoursCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := summarize.Extractive{}.Summarize(ctx, nil, fixTranscript().entries)
	if annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Errorf("err = %v, want unavailable", err)
	}
}

func BenchmarkExtractive3000Entries(b *testing.B) {
	tr := fixTranscript()
	for len(tr.entries) < 3000 {
		tr.entries = append(tr.entries, fixTranscript().entries...)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (summarize.Extractive{}).Summarize(context.Background(), fixChat, tr.entries); err != nil {
			b.Fatal(err)
		}
	}
}
