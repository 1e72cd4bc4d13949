package summarize_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/providerhttp"
	"github.com/annals-dev/annals/internal/providerhttp/providertest"
	"github.com/annals-dev/annals/summarize"
)

var noRetry = summarize.Retrying{Retries: -1}

var status = providertest.Reply

// metered builds a client of one protocol against the fake, recording the waits between attempts.
func metered(t *testing.T, proto string, f *fakeModel, r summarize.Retrying, timeout time.Duration) (annals.MeteredSummarizer, *providertest.Waits) {
	t.Helper()
	var s annals.MeteredSummarizer
	if proto == "openai" {
		srv := openAIServer(t, f)
		s = newOpenAI(t, summarize.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m", Retrying: r, Timeout: timeout})
	} else {
		srv := anthropicServer(t, f)
		s = newAnthropic(t, summarize.AnthropicConfig{BaseURL: srv.URL, APIKey: testKey, Model: "m", Retrying: r, Timeout: timeout})
	}
	waits := &providertest.Waits{}
	summarize.SetSleep(s, waits.Sleep)
	return s, waits
}

func TestSummarizerClientsRetryRateLimitsAndServerErrorsHonouringRetryAfter(t *testing.T) {
	for _, proto := range []string{"openai", "anthropic"} {
		t.Run(proto, func(t *testing.T) {
			f := &fakeModel{script: []providertest.Answer{
				status(429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}`),
				status(529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			}}
			s, waits := metered(t, proto, f, summarize.Retrying{}, 0)
			got, usage, err := s.SummarizeMetered(context.Background(), nil, fixTranscript().entries)
			if err != nil || got != "**Goal:** single-call recap" {
				t.Fatalf("Summarize = %q, %v; want the recap after two retries", got, err)
			}
			if n := f.requestCount(); n != 3 {
				t.Errorf("requests = %d, want 3", n)
			}
			// Retry-After (7 s) beats the first backoff (1 s); the second wait is the doubled backoff.
			if !waits.Equal(7*time.Second, 2*time.Second) {
				t.Errorf("waits = %v, want [7s 2s]", waits.All())
			}
			if usage.Calls != 1 || usage.InputTokens != 10 || usage.OutputTokens != 5 || usage.Model != "m" {
				t.Errorf("usage = %+v, want one call of 10 in, 5 out on model m", usage)
			}
		})
	}
}

func TestSummarizerClientsGiveUpAfterTheRetriesAndOnWhatRetryingCannotFix(t *testing.T) {
	always := func(fn providertest.Answer) []providertest.Answer {
		return []providertest.Answer{fn, fn, fn, fn, fn}
	}
	tests := []struct {
		name     string
		script   []providertest.Answer
		requests int
		waits    []time.Duration
		code     string
		msg      string
	}{
		{"500 every time", always(status(500, nil, `{"error":{"message":"The server had an error"}}`)), 3, []time.Duration{time.Second, 2 * time.Second}, annals.EUNAVAILABLE, "500 Internal Server Error"},
		{"400 is not retried", always(status(400, nil, `{"error":{"message":"bad field"}}`)), 1, nil, annals.EINVALID, "bad field"},
		{"401 is not retried", always(status(401, nil, `{"error":{"message":"Incorrect API key provided: `+testKey+`"}}`)), 1, nil, annals.EUNAVAILABLE, "[redacted]"},
		{"Retry-After beyond the cap", always(status(429, map[string]string{"Retry-After": "120"}, `{"error":{"message":"slow down"}}`)), 1, nil, annals.EUNAVAILABLE, "429 Too Many Requests"},
		{"malformed JSON, asked once more", always(status(200, nil, `{"choices":[{"message":`)), 2, nil, annals.EUNAVAILABLE, "unusable response"},
		{"empty answer, asked once more", always(status(200, nil, `{"choices":[{"message":{"content":" "}}],"content":[{"type":"text","text":" "}]}`)), 2, nil, annals.EUNAVAILABLE, "empty answer"},
	}
	for _, proto := range []string{"openai", "anthropic"} {
		for _, tt := range tests {
			t.Run(proto+"/"+tt.name, func(t *testing.T) {
				f := &fakeModel{script: tt.script}
				s, waits := metered(t, proto, f, summarize.Retrying{}, 0)
				got, usage, err := s.SummarizeMetered(context.Background(), nil, fixTranscript().entries)
				if got != "" || annals.ErrorCode(err) != tt.code || !strings.Contains(annals.ErrorMessage(err), tt.msg) {
					t.Fatalf("Summarize = %q, %q (%s); want %s naming %q", got, annals.ErrorMessage(err), annals.ErrorCode(err), tt.code, tt.msg)
				}
				if strings.Contains(annals.ErrorMessage(err), testKey) || strings.Contains(err.Error(), testKey) {
					t.Errorf("error reveals the key: %v", err)
				}
				if n := f.requestCount(); n != tt.requests {
					t.Errorf("requests = %d, want %d", n, tt.requests)
				}
				if !waits.Equal(tt.waits...) {
					t.Errorf("waits = %v, want %v", waits.All(), tt.waits)
				}
				if usage.Calls != tt.requests-len(tt.waits) {
					t.Errorf("usage.Calls = %d, want every failed call counted", usage.Calls)
				}
			})
		}
	}
}

func TestSummarizerClientsRetryATimedOutRequest(t *testing.T) {
	for _, proto := range []string{"openai", "anthropic"} {
		t.Run(proto, func(t *testing.T) {
			hang := make(chan struct{})
			f := &fakeModel{script: []providertest.Answer{func(http.ResponseWriter) { <-hang }}}
			s, waits := metered(t, proto, f, summarize.Retrying{}, 200*time.Millisecond)
			t.Cleanup(func() { close(hang) }) // before the server's Close, which waits for the handler
			got, _, err := s.SummarizeMetered(context.Background(), nil, fixTranscript().entries)
			if err != nil || got == "" {
				t.Fatalf("Summarize = %q, %v; want the recap from the second attempt", got, err)
			}
			if n := f.requestCount(); n != 2 || len(waits.All()) != 1 {
				t.Errorf("requests = %d, waits = %v; want 2 requests and one wait", n, waits.All())
			}
		})
	}
}

func TestSummarizerClientsHoldTheConcurrencyLimit(t *testing.T) {
	for _, proto := range []string{"openai", "anthropic"} {
		t.Run(proto, func(t *testing.T) {
			var mu sync.Mutex
			inFlight, most := 0, 0
			release := make(chan struct{})
			f := &fakeModel{}
			hold := func(w http.ResponseWriter) {
				mu.Lock()
				inFlight++
				most = max(most, inFlight)
				mu.Unlock()
				select { // wait until released or the limit is plainly exceeded
				case <-release:
				case <-time.After(300 * time.Millisecond):
				}
				mu.Lock()
				inFlight--
				mu.Unlock()
				status(200, nil, `{"choices":[{"message":{"content":"recap"}}],"content":[{"type":"text","text":"recap"}]}`)(w)
			}
			for range 6 {
				f.script = append(f.script, hold)
			}
			s, _ := metered(t, proto, f, summarize.Retrying{Concurrency: 2}, 0)
			var wg sync.WaitGroup
			errs := make(chan error, 6)
			for range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, _, err := s.SummarizeMetered(context.Background(), nil, fixTranscript().entries)
					errs <- err
				}()
			}
			wg.Wait()
			close(release)
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if most != 2 {
				t.Errorf("at most %d requests were in flight, want the limit of 2 reached and held", most)
			}
		})
	}
}

func TestSummarizerClientsCountTheTokensOfEveryCall(t *testing.T) {
	for _, proto := range []string{"openai", "anthropic"} {
		t.Run(proto, func(t *testing.T) {
			f := &fakeModel{}
			var s annals.MeteredSummarizer
			if proto == "openai" {
				srv := openAIServer(t, f)
				s = newOpenAI(t, summarize.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m", ChunkTokens: summarize.MinChunkTokens})
			} else {
				srv := anthropicServer(t, f)
				s = newAnthropic(t, summarize.AnthropicConfig{BaseURL: srv.URL, APIKey: testKey, Model: "m", ChunkTokens: summarize.MinChunkTokens})
			}
			_, usage, err := s.SummarizeMetered(context.Background(), nil, longTranscript(12))
			if err != nil {
				t.Fatal(err)
			}
			n := len(f.recorded())
			if n < 3 || usage.Calls != n || usage.InputTokens != int64(10*n) || usage.OutputTokens != int64(5*n) {
				t.Errorf("usage = %+v after %d calls, want every chunk and combine call counted", usage, n)
			}
		})
	}
}

func TestRetryAfterReadsSecondsDatesAndMilliseconds(t *testing.T) {
	now := time.Date(2026, 12, 6, 18, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		header map[string]string
		want   time.Duration
	}{
		{map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After": now.Add(20 * time.Second).Format(http.TimeFormat)}, 20 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "-4"}, 0},
		{nil, 0},
	} {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := providerhttp.RetryAfter(h, now); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// TestPromptsAskForGoalsConstraintsDecisionsFactsToolOutcomesAndOpenThreads checks what every
// call of a recap asks for: the single call, the chunk notes and the combining call alike.
func TestPromptsAskForGoalsConstraintsDecisionsFactsToolOutcomesAndOpenThreads(t *testing.T) {
	f := &fakeModel{}
	srv := openAIServer(t, f)
	s := newOpenAI(t, summarize.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m", ChunkTokens: summarize.MinChunkTokens})
	if _, err := s.Summarize(context.Background(), nil, longTranscript(12)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Summarize(context.Background(), nil, fixTranscript().entries); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.recorded() {
		system := strings.ToLower(c.system)
		for _, want := range []string{"goal", "constraints", "decisions", "facts", "tool outcomes", "open"} {
			if !strings.Contains(system, want) {
				t.Errorf("system prompt does not ask for %q:\n%s", want, c.system)
			}
		}
	}
}

func TestAMalformedAnswerIsAskedForOnceMore(t *testing.T) {
	for _, proto := range []string{"openai", "anthropic"} {
		t.Run(proto, func(t *testing.T) {
			f := &fakeModel{script: []providertest.Answer{status(200, nil, `{"choices": [{"message": {"content": nu`)}}
			s, waits := metered(t, proto, f, summarize.Retrying{}, 0)
			got, usage, err := s.SummarizeMetered(context.Background(), nil, fixTranscript().entries)
			if err != nil || got != "**Goal:** single-call recap" {
				t.Fatalf("Summarize = %q, %v; want the second answer", got, err)
			}
			if f.requestCount() != 2 || len(waits.All()) != 0 || usage.Calls != 2 {
				t.Errorf("requests = %d, waits = %v, calls = %d; want the question asked twice at once", f.requestCount(), waits.All(), usage.Calls)
			}
		})
	}
}
