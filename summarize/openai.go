package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/annals-dev/annals/internal/providerhttp"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/annals-dev/annals"
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
	// ChunkChars is the transcript budget of one call; 0 means DefaultChunkChars.
	ChunkChars int
	// MaxChunks bounds the chunk calls of one recap; 0 means DefaultMaxChunks.
	MaxChunks int
	// Timeout bounds each request when HTTPClient is nil; 0 means DefaultTimeout.
	Timeout time.Duration
	// HTTPClient, when set, is used as is.
	HTTPClient *http.Client
}

// OpenAI is a Summarizer backed by an OpenAI-compatible POST /v1/chat/completions endpoint.
// A transcript longer than one chunk is summarised chunk by chunk, and the chunk notes are
// combined in a final call; the transcript is always quoted as untrusted data. It is safe for
// concurrent use.
type OpenAI struct {
	cfg      OpenAIConfig
	chunking chunking
	endpoint string
	display  string
	client   *http.Client
}

var _ annals.Summarizer = (*OpenAI)(nil)

// NewOpenAI returns an OpenAI-compatible summarizer. It makes no request.
// Errors: invalid (a missing model, a malformed base URL, a setting out of range).
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, annals.Errorf(annals.EINVALID, "the openai summarizer needs a model (e.g. gpt-4o-mini, llama3.1)")
	}
	if cfg.MaxTokens < 0 || cfg.Timeout < 0 {
		return nil, annals.Errorf(annals.EINVALID, "the openai summarizer's max tokens and timeout must not be negative")
	}
	ch, err := newChunking(cfg.ChunkChars, cfg.MaxChunks)
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
	return &OpenAI{cfg: cfg, chunking: ch, endpoint: u.String(), display: providerhttp.DisplayURL(u), client: httpClient(cfg.HTTPClient, cfg.Timeout)}, nil
}

// Summarize returns the model's recap of the transcript. Errors: unavailable (the provider is
// unreachable, rate-limits, fails, refuses the configured key or model, or answers nothing
// usable), invalid (the provider rejects the request as too large or malformed).
func (o *OpenAI) Summarize(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, error) {
	return summarizeWith(ctx, o, o.chunking, chat, entries)
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model     string        `json:"model"`
	Messages  []chatMessage `json:"messages"`
	MaxTokens int           `json:"max_tokens,omitempty"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

const summaryWhat = "summarization provider"

func (o *OpenAI) complete(ctx context.Context, system, user string) (string, error) {
	req := chatRequest{
		Model:     o.cfg.Model,
		Messages:  []chatMessage{{Role: "system", Content: system}, {Role: "user", Content: user}},
		MaxTokens: o.cfg.MaxTokens,
	}
	headers := http.Header{}
	if o.cfg.APIKey != "" {
		headers.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	raw, err := post(ctx, o.client, o.endpoint, o.display, headers, req, o.cfg.APIKey)
	if err != nil {
		return "", err
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return "", providerhttp.BadResponse(summaryWhat, o.display, "not a chat completion JSON object", err)
	}
	if len(cr.Choices) == 0 || cr.Choices[0].Message.Content == nil {
		return "", providerhttp.BadResponse(summaryWhat, o.display, "no message content in choices", nil)
	}
	return *cr.Choices[0].Message.Content, nil
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

// post sends body as JSON and returns the 2xx response body, mapping every failure to an
// *annals.Error that names the endpoint and never the key.
func post(ctx context.Context, client *http.Client, endpoint, display string, headers http.Header, body any, apiKey string) ([]byte, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, annals.Internal("encode summarization request", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return nil, annals.Internal("build summarization request", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, vs := range headers {
		req.Header[k] = vs
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, providerhttp.TransportError(ctx, summaryWhat, display, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxCompletionResponse+1))
	if err != nil {
		return nil, providerhttp.TransportError(ctx, summaryWhat, display, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, providerhttp.StatusError(summaryWhat, display, resp.StatusCode, raw, apiKey)
	}
	if len(raw) > maxCompletionResponse {
		return nil, providerhttp.BadResponse(summaryWhat, display, fmt.Sprintf("larger than %d MiB", maxCompletionResponse>>20), nil)
	}
	return raw, nil
}
