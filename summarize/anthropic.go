package summarize

import (
	"context"
	"encoding/json"
	"github.com/annals-dev/annals/internal/providerhttp"
	"net/http"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// AnthropicConfig configures an Anthropic Messages API summarizer.
type AnthropicConfig struct {
	// BaseURL is the API root, as in Anthropic's SDKs: "https://api.anthropic.com" (the
	// default). Requests go to BaseURL + "/v1/messages" (a base URL ending in "/v1" is accepted
	// too).
	BaseURL string
	// APIKey is sent as the x-api-key header. It never appears in an error.
	APIKey string
	// Model is the model, e.g. "claude-3-5-haiku-latest". Required.
	Model string
	// MaxTokens is the answer budget the API requires; 0 means DefaultAnthropicMaxTokens.
	MaxTokens int
	// Version is the anthropic-version header; "" means DefaultAnthropicVersion.
	Version string
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

// Anthropic is a Summarizer backed by the Anthropic Messages API (POST /v1/messages). Long
// transcripts are chunked and combined exactly as by OpenAI. It is safe for concurrent use.
type Anthropic struct {
	cfg      AnthropicConfig
	chunking chunking
	client   *providerhttp.Client
}

var _ annals.TitledSummarizer = (*Anthropic)(nil)

// NewAnthropic returns an Anthropic Messages summarizer. It makes no request.
// Errors: invalid (a missing model, a malformed base URL, a setting out of range).
func NewAnthropic(cfg AnthropicConfig) (*Anthropic, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, annals.Errorf(annals.EINVALID, "the anthropic summarizer needs a model (e.g. claude-3-5-haiku-latest)")
	}
	if cfg.MaxTokens < 0 || cfg.Timeout < 0 || cfg.MaxBackoff < 0 || cfg.Concurrency < 0 {
		return nil, annals.Errorf(annals.EINVALID, "the anthropic summarizer's max tokens, timeout, max backoff and concurrency must not be negative")
	}
	ch, err := newChunking(cfg.ChunkTokens, cfg.MaxChunks)
	if err != nil {
		return nil, err
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultAnthropicBaseURL
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultAnthropicMaxTokens
	}
	if cfg.Version == "" {
		cfg.Version = DefaultAnthropicVersion
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	path := "/v1/messages"
	if strings.HasSuffix(base, "/v1") {
		path = "/messages"
	}
	// Unlike OpenAI's, Anthropic's base URL has no version path, so nothing is added to a bare host.
	u, err := joinEndpoint(base, "", path)
	if err != nil {
		return nil, err
	}
	return &Anthropic{cfg: cfg, chunking: ch, client: newClient(u, cfg.APIKey, cfg.HTTPClient, cfg.Timeout, cfg.Retrying)}, nil
}

// Summarize returns the model's recap of the transcript. Errors: unavailable (the provider is
// unreachable, rate-limits, is overloaded, fails, refuses the configured key or model, or answers
// nothing usable), invalid (the provider rejects the request as too large or malformed).
func (a *Anthropic) Summarize(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, error) {
	s, _, err := a.SummarizeMetered(ctx, chat, entries)
	return s, err
}

// SummarizeMetered is Summarize plus the calls and tokens spent, also on error.
func (a *Anthropic) SummarizeMetered(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, annals.SummaryUsage, error) {
	m := &meter{c: a, usage: annals.SummaryUsage{Model: a.cfg.Model}}
	t, err := summarizeWith(ctx, m, a.chunking, chat, entries, false)
	return t.Summary, m.usage, err
}

// SummarizeTitled is SummarizeMetered with a title: the final call asks for strict JSON
// {title, summary}, and an answer that is not exactly that is asked for once more, then fails.
func (a *Anthropic) SummarizeTitled(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (annals.TitledSummary, annals.SummaryUsage, error) {
	m := &meter{c: a, usage: annals.SummaryUsage{Model: a.cfg.Model}}
	t, err := summarizeWith(ctx, m, a.chunking, chat, entries, true)
	return t, m.usage, err
}

type messagesRequest struct {
	Model     string        `json:"model"`
	MaxTokens int           `json:"max_tokens"`
	System    string        `json:"system"`
	Messages  []chatMessage `json:"messages"`
}

type messagesResponse struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
}

func (a *Anthropic) complete(ctx context.Context, r request) (string, tokens, error) {
	req := messagesRequest{
		Model:     a.cfg.Model,
		MaxTokens: a.cfg.MaxTokens,
		System:    r.system,
		Messages:  []chatMessage{{Role: "user", Content: r.user}},
	}
	headers := http.Header{}
	headers.Set("anthropic-version", a.cfg.Version)
	if a.cfg.APIKey != "" {
		headers.Set("x-api-key", a.cfg.APIKey)
	}
	raw, err := a.client.PostJSON(ctx, headers, req)
	if err != nil {
		return "", tokens{}, err
	}
	var mr messagesResponse
	if err := json.Unmarshal(raw, &mr); err != nil {
		return "", tokens{}, malformedAnswer{providerhttp.BadResponse(summaryWhat, a.client.Display, "not a Messages API JSON object", err)}
	}
	// The answer is the concatenation of its text blocks; other block types (thinking, tool
	// use) are not part of the recap.
	var b strings.Builder
	for _, c := range mr.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String(), tokens{in: mr.Usage.InputTokens, out: mr.Usage.OutputTokens}, nil
}
