package summarize

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/providerhttp"
)

// Client defaults.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultAnthropicVersion = "2023-06-01"
	// DefaultAnthropicMaxTokens is the answer budget sent to Anthropic, which requires one; a
	// 200-word recap needs about 300 tokens.
	DefaultAnthropicMaxTokens = 1024
	DefaultTimeout            = 120 * time.Second
)

// maxCompletionResponse bounds the bytes read from one model answer.
const maxCompletionResponse = 4 << 20

// OpenAIConfig configures an OpenAI-compatible chat-completions summarizer.
type OpenAIConfig struct {
	// BaseURL is the API root, as in the OpenAI SDKs: "https://api.openai.com/v1" (the default),
	// "http://localhost:11434/v1" (Ollama), "http://localhost:8000/v1" (vLLM). Requests go to
	// BaseURL + "/chat/completions"; a URL with no path at all gets "/v1" added.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>" when set. It never appears in an error.
	APIKey string
	// Model is the chat model, e.g. "gpt-4o-mini" or "llama3.1". Required.
	Model string
	// MaxTokens, when set, is sent as max_tokens. It is not sent by default because OpenAI's
	// reasoning models reject max_tokens, while every server has a sane default.
	MaxTokens int
	// ChunkTokens is the transcript budget of one call in estimated tokens (EstimateTokens);
	// 0 means DefaultChunkTokens.
	ChunkTokens int
	// MaxChunks bounds the chunk calls of one recap; 0 means DefaultMaxChunks.
	MaxChunks int
	Retrying
	// Timeout bounds each request when HTTPClient is nil; 0 means DefaultTimeout.
	Timeout time.Duration
	// HTTPClient, when set, is used as is.
	HTTPClient *http.Client
}

// Retrying configures retries and the concurrency limit of a summarizer client.
type Retrying struct {
	// Retries is how many times a failed call is retried (rate limits, 5xx, 529, timeouts,
	// unreachable); 0 means providerhttp.DefaultRetries (2), negative means never.
	Retries int
	// MaxBackoff caps each wait between attempts, Retry-After included: a provider asking for
	// longer fails the call at once. 0 means providerhttp.DefaultMaxBackoff (30 s).
	MaxBackoff time.Duration
	// Concurrency bounds the calls in flight at once; 0 means providerhttp.DefaultConcurrency (4).
	Concurrency int
}

// OpenAI is a Summarizer backed by an OpenAI-compatible POST /v1/chat/completions endpoint.
// A transcript longer than one chunk is summarised chunk by chunk, and the chunk notes are
// combined in a final call; the transcript is always quoted as untrusted data. It is safe for
// concurrent use.
type OpenAI struct {
	cfg      OpenAIConfig
	chunking chunking
	client   *providerhttp.Client
}

var _ annals.TitledSummarizer = (*OpenAI)(nil)

// NewOpenAI returns an OpenAI-compatible summarizer. It makes no request.
// Errors: invalid (a missing model, a malformed base URL, a setting out of range).
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, annals.Errorf(annals.EINVALID, "the openai summarizer needs a model (e.g. gpt-4o-mini, llama3.1)")
	}
	if cfg.MaxTokens < 0 || cfg.Timeout < 0 || cfg.MaxBackoff < 0 || cfg.Concurrency < 0 {
		return nil, annals.Errorf(annals.EINVALID, "the openai summarizer's max tokens, timeout, max backoff and concurrency must not be negative")
	}
	ch, err := newChunking(cfg.ChunkTokens, cfg.MaxChunks)
	if err != nil {
		return nil, err
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIBaseURL
	}
	u, err := joinEndpoint(cfg.BaseURL, "/v1", "/chat/completions")
	if err != nil {
		return nil, err
	}
	return &OpenAI{cfg: cfg, chunking: ch, client: newClient(u, cfg.APIKey, cfg.HTTPClient, cfg.Timeout, cfg.Retrying)}, nil
}

// Summarize returns the model's recap of the transcript. Errors: unavailable (the provider is
// unreachable, rate-limits, fails, refuses the configured key or model, or answers nothing
// usable), invalid (the provider rejects the request as too large or malformed).
func (o *OpenAI) Summarize(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, error) {
	s, _, err := o.SummarizeMetered(ctx, chat, entries)
	return s, err
}

// SummarizeMetered is Summarize plus the calls and tokens spent, also on error.
func (o *OpenAI) SummarizeMetered(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, annals.SummaryUsage, error) {
	m := &meter{c: o, usage: annals.SummaryUsage{Model: o.cfg.Model}}
	t, err := summarizeWith(ctx, m, o.chunking, chat, entries, false)
	return t.Summary, m.usage, err
}

// SummarizeTitled is SummarizeMetered with a title: the final call asks for strict JSON
// {title, summary}, and an answer that is not exactly that is asked for once more, then fails.
func (o *OpenAI) SummarizeTitled(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (annals.TitledSummary, annals.SummaryUsage, error) {
	m := &meter{c: o, usage: annals.SummaryUsage{Model: o.cfg.Model}}
	t, err := summarizeWith(ctx, m, o.chunking, chat, entries, true)
	return t, m.usage, err
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model     string        `json:"model"`
	Messages  []chatMessage `json:"messages"`
	MaxTokens int           `json:"max_tokens,omitempty"`
	// ResponseFormat asks for a JSON object (JSON mode), for a titled recap.
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type string `json:"type"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

const summaryWhat = "summarization provider"

func (o *OpenAI) complete(ctx context.Context, r request) (string, tokens, error) {
	req := chatRequest{
		Model:     o.cfg.Model,
		Messages:  []chatMessage{{Role: "system", Content: r.system}, {Role: "user", Content: r.user}},
		MaxTokens: o.cfg.MaxTokens,
	}
	if r.json {
		req.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	headers := http.Header{}
	if o.cfg.APIKey != "" {
		headers.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	raw, err := o.client.PostJSON(ctx, headers, req)
	if err != nil {
		return "", tokens{}, err
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return "", tokens{}, malformedAnswer{providerhttp.BadResponse(summaryWhat, o.client.Display, "not a chat completion JSON object", err)}
	}
	used := tokens{in: cr.Usage.PromptTokens, out: cr.Usage.CompletionTokens}
	if len(cr.Choices) == 0 || cr.Choices[0].Message.Content == nil {
		return "", used, malformedAnswer{providerhttp.BadResponse(summaryWhat, o.client.Display, "no message content in choices", nil)}
	}
	return *cr.Choices[0].Message.Content, used, nil
}

// joinEndpoint joins a base URL and an endpoint path. A base URL without a path gets
// versionPath first, the usual mistake of configuring "http://localhost:11434" for Ollama; a base
// URL that already ends in versionPath is used as is.
func joinEndpoint(base, versionPath, path string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, annals.Errorf(annals.EINVALID, "base URL %q is not an http(s) URL", redactedInput(base))
	}
	p := strings.TrimRight(u.Path, "/")
	if p == "" {
		p = versionPath
	}
	u.Path = p + path
	u.RawPath = ""
	return u, nil
}

// redactedInput keeps user info out of a message about a malformed URL.
func redactedInput(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "(unparseable)"
}

func httpClient(c *http.Client, timeout time.Duration) *http.Client {
	if c != nil {
		return c
	}
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	return &http.Client{Timeout: timeout}
}

// newClient builds the retrying, limited poster of one endpoint.
func newClient(u *url.URL, apiKey string, hc *http.Client, timeout time.Duration, r Retrying) *providerhttp.Client {
	c := &providerhttp.Client{
		HTTP: httpClient(hc, timeout), What: summaryWhat, Endpoint: u.String(), Display: providerhttp.DisplayURL(u),
		APIKey: apiKey, Retries: providerhttp.Retries(r.Retries), MaxBackoff: r.MaxBackoff, MaxResponse: maxCompletionResponse,
	}
	return c.WithLimit(providerhttp.NewLimit(r.Concurrency))
}
