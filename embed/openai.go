package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/providerhttp"
)

// OpenAI client defaults.
const (
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	DefaultBatchSize     = 64
	DefaultMaxInputChars = 16000
	DefaultTimeout       = 60 * time.Second
)

// maxEmbeddingResponse bounds the bytes read from one response: 64 inputs of 3072 floats
// written as JSON text are about 4 MiB, so 64 MiB leaves room without trusting the server.
const maxEmbeddingResponse = 64 << 20

// OpenAIConfig configures an OpenAI-compatible embeddings client.
type OpenAIConfig struct {
	// BaseURL is the API root, as in the OpenAI SDKs: "https://api.openai.com/v1" (the default),
	// "http://localhost:11434/v1" (Ollama), "http://localhost:8000/v1" (vLLM). Requests go to
	// BaseURL + "/embeddings"; a URL with no path at all gets "/v1" added.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>" when set; local servers need none. It never
	// appears in an error message.
	APIKey string
	// Model is the embedding model, e.g. "text-embedding-3-small" or "nomic-embed-text". Required.
	Model string
	// Dimension is the expected vector length. 0 learns it from the first response; when set,
	// a response of another length is an error rather than a silent mix of dimensions.
	Dimension int
	// SendDimensions asks the provider for Dimension-long vectors (the "dimensions" request
	// field, which OpenAI's text-embedding-3 models honour). Servers that do not know the field
	// may reject it, so it is opt-in.
	SendDimensions bool
	// BatchSize is how many texts go in one request; 0 means DefaultBatchSize.
	BatchSize int
	// MaxInputChars truncates each text (in bytes, at a rune boundary) before sending, so a long
	// text is embedded by its head instead of failing the provider's token limit; 0 means
	// DefaultMaxInputChars.
	MaxInputChars int
	// Retries is how many times a failed request is retried (rate limits, 5xx, timeouts,
	// unreachable), with a backoff doubling from 1 s and honouring Retry-After; 0 means
	// providerhttp.DefaultRetries (2), negative means never.
	Retries int
	// MaxBackoff caps each wait between attempts, Retry-After included: a provider asking for
	// longer fails the request at once. 0 means providerhttp.DefaultMaxBackoff (30 s).
	MaxBackoff time.Duration
	// Concurrency bounds the requests in flight at once; 0 means providerhttp.DefaultConcurrency.
	Concurrency int
	// Timeout bounds each request when HTTPClient is nil; 0 means DefaultTimeout.
	Timeout time.Duration
	// HTTPClient, when set, is used as is (its own timeout applies).
	HTTPClient *http.Client
}

// OpenAI is an Embedder backed by an OpenAI-compatible POST /v1/embeddings endpoint. Vectors are
// L2-normalised on arrival, whatever the server does. It is safe for concurrent use.
type OpenAI struct {
	cfg    OpenAIConfig
	client *providerhttp.Client

	mu  sync.Mutex
	dim int // configured, or learned from the first response; 0 until known
}

var _ annals.MeteredEmbedder = (*OpenAI)(nil)

// NewOpenAI returns an OpenAI-compatible embeddings client. It makes no request.
// Errors: invalid (a missing model, a malformed base URL, a negative setting).
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, annals.Errorf(annals.EINVALID, "the openai embedder needs a model (e.g. text-embedding-3-small, nomic-embed-text)")
	}
	if cfg.Dimension < 0 || cfg.BatchSize < 0 || cfg.MaxInputChars < 0 || cfg.Timeout < 0 || cfg.MaxBackoff < 0 || cfg.Concurrency < 0 {
		return nil, annals.Errorf(annals.EINVALID, "the openai embedder's dimension, batch size, input limit, timeout, max backoff and concurrency must not be negative")
	}
	if cfg.SendDimensions && cfg.Dimension == 0 {
		return nil, annals.Errorf(annals.EINVALID, "the openai embedder can only send dimensions when a dimension is configured")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIBaseURL
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.MaxInputChars == 0 {
		cfg.MaxInputChars = DefaultMaxInputChars
	}
	endpoint, err := endpointURL(cfg.BaseURL, "/embeddings")
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		timeout := cfg.Timeout
		if timeout == 0 {
			timeout = DefaultTimeout
		}
		hc = &http.Client{Timeout: timeout}
	}
	client := &providerhttp.Client{
		HTTP: hc, What: embedWhat, Endpoint: endpoint.String(), Display: providerhttp.DisplayURL(endpoint),
		APIKey: cfg.APIKey, Retries: providerhttp.Retries(cfg.Retries), MaxBackoff: cfg.MaxBackoff, MaxResponse: maxEmbeddingResponse,
	}
	return &OpenAI{cfg: cfg, client: client.WithLimit(providerhttp.NewLimit(cfg.Concurrency)), dim: cfg.Dimension}, nil
}

// endpointURL joins an OpenAI-style base URL and an endpoint path. A bare host gets "/v1", the
// usual mistake of configuring "http://localhost:11434" for Ollama.
func endpointURL(base, path string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, annals.Errorf(annals.EINVALID, "base URL %q is not an http(s) URL (e.g. https://api.openai.com/v1)", redactedInput(base))
	}
	p := strings.TrimRight(u.Path, "/")
	if p == "" {
		p = "/v1"
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

// Model returns the configured model name.
func (o *OpenAI) Model() string { return o.cfg.Model }

// Dimension returns the vector length: the configured one, or the one learned from the first
// response, or 0 before the first response when none is configured.
func (o *OpenAI) Dimension() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dim
}

// Embed returns one L2-normalised vector per text, sending the non-empty texts in batches of
// BatchSize. An empty (or all-space) text is never sent, since providers reject it, and gets the
// zero vector. Errors: unavailable (the provider is unreachable, rate-limits, fails, refuses the
// configured key or model, or answers something unusable), invalid (the provider rejects the
// input, or an empty text must be embedded before the dimension is known).
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out, _, err := o.EmbedMetered(ctx, texts)
	return out, err
}

// EmbedMetered is Embed plus what it spent: the requests made and the tokens each answered
// request reported (usage.prompt_tokens), split over its texts in proportion to their length.
// A server that reports no usage counts 0 tokens.
func (o *OpenAI) EmbedMetered(ctx context.Context, texts []string) ([][]float32, annals.EmbeddingUsage, error) {
	usage := annals.EmbeddingUsage{Model: o.cfg.Model}
	out := make([][]float32, len(texts))
	var idx []int
	var inputs []string
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue
		}
		idx = append(idx, i)
		inputs = append(inputs, truncateUTF8(t, o.cfg.MaxInputChars))
	}
	for start := 0; start < len(inputs); start += o.cfg.BatchSize {
		end := min(start+o.cfg.BatchSize, len(inputs))
		vecs, tokens, calls, err := o.request(ctx, inputs[start:end])
		usage.Calls += calls
		if tokens > 0 {
			if usage.TextTokens == nil {
				usage.TextTokens = make([]int64, len(texts))
			}
			usage.InputTokens += tokens
			for k, n := range splitTokens(tokens, inputs[start:end]) {
				usage.TextTokens[idx[start+k]] = n
			}
		}
		if err != nil {
			return nil, usage, err
		}
		for k, v := range vecs {
			out[idx[start+k]] = v
		}
	}
	if len(idx) < len(texts) {
		dim := o.Dimension()
		if dim == 0 {
			return nil, usage, annals.Errorf(annals.EINVALID, "cannot embed an empty text before the dimension of model %q is known; set the embedder's dimension", o.cfg.Model)
		}
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, dim)
			}
		}
	}
	return out, usage, nil
}

// splitTokens splits one request's tokens over its inputs in proportion to their length in
// bytes, the remainder to the first inputs, so the shares sum to tokens exactly.
func splitTokens(tokens int64, inputs []string) []int64 {
	out := make([]int64, len(inputs))
	var total int64
	for _, in := range inputs {
		total += int64(len(in))
	}
	if total == 0 {
		return out
	}
	var given int64
	for i, in := range inputs {
		out[i] = tokens * int64(len(in)) / total
		given += out[i]
	}
	for i := 0; given < tokens; i = (i + 1) % len(out) {
		out[i]++
		given++
	}
	return out
}

type embeddingRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type embeddingResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
	Usage struct {
		PromptTokens int64 `json:"prompt_tokens"`
	} `json:"usage"`
}

const embedWhat = "embedding provider"

// request embeds one batch and returns its vectors in input order, the tokens the answers
// reported and how many requests it made. Failed requests are retried by the client (rate
// limits, 5xx, timeouts); a 2xx answer that is not the protocol (bad JSON, the wrong count) is
// asked for once more, then fails.
func (o *OpenAI) request(ctx context.Context, inputs []string) (vecs [][]float32, tokens int64, calls int, err error) {
	req := embeddingRequest{Model: o.cfg.Model, Input: inputs}
	if o.cfg.SendDimensions {
		req.Dimensions = o.cfg.Dimension
	}
	headers := http.Header{}
	if o.cfg.APIKey != "" {
		headers.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	for attempt := 0; ; attempt++ {
		calls++
		raw, err := o.client.PostJSON(ctx, headers, req)
		if err != nil {
			return nil, tokens, calls, err
		}
		vecs, used, err := o.decode(raw, len(inputs))
		tokens += used
		var m malformed
		if err == nil || !errors.As(err, &m) || attempt == 1 {
			return vecs, tokens, calls, err
		}
	}
}

// malformed marks a 2xx answer that is not the embeddings protocol, worth asking once more.
type malformed struct{ error }

func (m malformed) Unwrap() error { return m.error }

// decode reads one answer's vectors, in input order, normalised, and the tokens it reported
// (also when the vectors are unusable: the provider counted them).
func (o *OpenAI) decode(raw []byte, n int) ([][]float32, int64, error) {
	display := o.client.Display
	var er embeddingResponse
	if err := json.Unmarshal(raw, &er); err != nil {
		return nil, 0, malformed{providerhttp.BadResponse(embedWhat, display, "not an embeddings JSON object", err)}
	}
	vecs, err := o.vectors(er, n)
	return vecs, max(er.Usage.PromptTokens, 0), err
}

// vectors checks an answer's vectors and returns them in input order, normalised.
func (o *OpenAI) vectors(er embeddingResponse, n int) ([][]float32, error) {
	display := o.client.Display
	if len(er.Data) != n {
		return nil, malformed{providerhttp.BadResponse(embedWhat, display, fmt.Sprintf("%d embeddings for %d inputs", len(er.Data), n), nil)}
	}
	vecs := make([][]float32, n)
	for _, d := range er.Data {
		if d.Index < 0 || d.Index >= n || vecs[d.Index] != nil {
			return nil, malformed{providerhttp.BadResponse(embedWhat, display, fmt.Sprintf("embedding index %d is out of range or repeated", d.Index), nil)}
		}
		if len(d.Embedding) == 0 {
			return nil, malformed{providerhttp.BadResponse(embedWhat, display, fmt.Sprintf("embedding %d is empty", d.Index), nil)}
		}
		if err := o.checkDimension(len(d.Embedding)); err != nil {
			return nil, err
		}
		v := make([]float32, len(d.Embedding))
		for i, f := range d.Embedding {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, malformed{providerhttp.BadResponse(embedWhat, display, fmt.Sprintf("embedding %d holds a non-finite value", d.Index), nil)}
			}
			v[i] = float32(f)
		}
		normalize(v)
		vecs[d.Index] = v
	}
	return vecs, nil
}

// checkDimension learns the dimension from the first vector and holds every later one to it, so
// one Embedder never hands out vectors of two lengths (which Cosine could not compare).
func (o *OpenAI) checkDimension(n int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.dim == 0 {
		o.dim = n
		return nil
	}
	if n != o.dim {
		return providerhttp.BadResponse(embedWhat, o.client.Display, fmt.Sprintf("a vector of dimension %d, want %d (model %q)", n, o.dim, o.cfg.Model), nil)
	}
	return nil
}

// truncateUTF8 cuts s to at most n bytes without splitting a rune.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
