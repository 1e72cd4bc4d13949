package summarize_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/summarize"
)

// titledClient is a client of one protocol against the fake, with no retries of failed calls
// (a malformed answer is still asked for once more: that is not a retry of the call).
func titledClient(t *testing.T, proto string, f *fakeModel, chunkTokens int) annals.TitledSummarizer {
	t.Helper()
	if proto == "openai" {
		srv := openAIServer(t, f)
		return newOpenAI(t, summarize.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m", Retrying: noRetry, ChunkTokens: chunkTokens})
	}
	srv := anthropicServer(t, f)
	return newAnthropic(t, summarize.AnthropicConfig{BaseURL: srv.URL, APIKey: testKey, Model: "m", Retrying: noRetry, ChunkTokens: chunkTokens})
}

func TestTitledRecapIsStrictJSONTitleAndSummary(t *testing.T) {
	for _, proto := range []string{"openai", "anthropic"} {
		t.Run(proto, func(t *testing.T) {
			f := &fakeModel{titled: []string{"```json\n{\"title\": \"  Fix the\\nrounding test \", \"summary\": \"**Goal:** fix it\"}\n```"}}
			s := titledClient(t, proto, f, 0)
			got, usage, err := s.SummarizeTitled(context.Background(), fixChat, fixTranscript().entries)
			if err != nil || got.Title != "Fix the rounding test" || got.Summary != "**Goal:** fix it" {
				t.Fatalf("SummarizeTitled = %+v, %v; want the title on one line and the summary", got, err)
			}
			calls := f.recorded()
			if len(calls) != 1 || usage.Calls != 1 {
				t.Fatalf("calls = %d (usage %+v), want 1", len(calls), usage)
			}
			if !strings.Contains(calls[0].system, "Answer with one JSON object") || strings.Contains(calls[0].system, "Answer with the recap only") {
				t.Errorf("the titled call does not ask for JSON only:\n%s", calls[0].system)
			}
			if proto == "openai" && calls[0].format != "json_object" {
				t.Errorf("response_format = %q, want json_object", calls[0].format)
			}
			// The plain recap asks for Markdown, and never for JSON mode.
			f2 := &fakeModel{}
			if _, err := titledClient(t, proto, f2, 0).Summarize(context.Background(), fixChat, fixTranscript().entries); err != nil {
				t.Fatal(err)
			}
			if c := f2.recorded()[0]; c.format != "" || !strings.Contains(c.system, "Answer with the recap only") {
				t.Errorf("the plain recap asked for JSON (format %q)", c.format)
			}
		})
	}
}

func TestTitledRecapAsksOnceMoreForAMalformedAnswerThenFails(t *testing.T) {
	good := `{"title": "Billing migration", "summary": "**Goal:** migrate"}`
	malformed := map[string]string{
		"not json":        "Here is the recap: **Goal:** migrate",
		"extra field":     `{"title": "t", "summary": "s", "tags": ["x"]}`,
		"missing summary": `{"title": "t"}`,
		"wrong case":      `{"Title": "t", "summary": "s"}`,
		"not strings":     `{"title": 7, "summary": ["s"]}`,
		"empty title":     `{"title": "  ", "summary": "s"}`,
		"empty summary":   `{"title": "t", "summary": ""}`,
		"trailing text":   good + " I hope this helps!",
		"two objects":     good + good,
		"long title":      `{"title": "` + strings.Repeat("word ", 30) + `", "summary": "s"}`,
		"control chars":   `{"title": "t\u001b[31m", "summary": "s"}`,
		"huge summary":    `{"title": "t", "summary": "` + strings.Repeat("x", 9000) + `"}`,
		"an array":        `[{"title": "t", "summary": "s"}]`,
	}
	for _, proto := range []string{"openai", "anthropic"} {
		for name, bad := range malformed {
			t.Run(proto+"/"+name, func(t *testing.T) {
				// Malformed once, then good: the second answer is used, both calls counted.
				f := &fakeModel{titled: []string{bad, good}}
				got, usage, err := titledClient(t, proto, f, 0).SummarizeTitled(context.Background(), fixChat, fixTranscript().entries)
				if err != nil || got.Title != "Billing migration" || usage.Calls != 2 {
					t.Errorf("after one malformed answer: %+v %+v %v; want the second answer after 2 calls", got, usage, err)
				}
				// Malformed twice: the recap fails (unavailable) with nothing to store.
				f = &fakeModel{titled: []string{bad}}
				got, usage, err = titledClient(t, proto, f, 0).SummarizeTitled(context.Background(), fixChat, fixTranscript().entries)
				if annals.ErrorCode(err) != annals.EUNAVAILABLE || got != (annals.TitledSummary{}) || usage.Calls != 2 || len(f.recorded()) != 2 {
					t.Errorf("after two malformed answers: %+v %+v %v (%d calls); want unavailable, nothing, 2 calls", got, usage, err, len(f.recorded()))
				}
			})
		}
	}
}

func TestTitledRecapOfALongTranscriptAsksForJSONOnlyInTheCombiningCall(t *testing.T) {
	for _, proto := range []string{"openai", "anthropic"} {
		t.Run(proto, func(t *testing.T) {
			f := &fakeModel{}
			got, usage, err := titledClient(t, proto, f, 1000).SummarizeTitled(context.Background(), nil, longTranscript(20))
			calls := f.recorded()
			if err != nil || got.Title != "Billing migration" || len(calls) < 3 || usage.Calls != len(calls) {
				t.Fatalf("SummarizeTitled = %+v, %v after %d calls (usage %+v)", got, err, len(calls), usage)
			}
			for i, c := range calls {
				last := i == len(calls)-1
				asksJSON := strings.Contains(c.system, "JSON object")
				if asksJSON != last || (proto == "openai" && (c.format == "json_object") != last) {
					t.Errorf("call %d of %d: asks for JSON %v (format %q); only the combining call should", i+1, len(calls), asksJSON, c.format)
				}
			}
		})
	}
}

func TestByOwnerTitlesWithTheChosenClientOrLeavesTheTitleToTheCaller(t *testing.T) {
	f := &fakeModel{}
	srv := openAIServer(t, f)
	model := newOpenAI(t, summarize.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Retrying: noRetry})
	r, err := summarize.NewByOwner(summarize.Extractive{}, summarize.Choice{Tenant: "a", Summarizer: model})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := r.SummarizeTitled(context.Background(), &annals.Chat{ID: "c", TenantID: "a"}, fixTranscript().entries)
	if err != nil || got.Title != "Billing migration" {
		t.Errorf("tenant a: %+v %v; want its model's title", got, err)
	}
	got, usage, err := r.SummarizeTitled(context.Background(), &annals.Chat{ID: "c", TenantID: "b"}, fixTranscript().entries)
	if err != nil || got.Title != "" || !strings.Contains(got.Summary, "**Goal:**") || usage.Calls != 0 {
		t.Errorf("tenant b (offline): %+v %+v %v; want the extractive summary and no title", got, usage, err)
	}
}
