package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
)

const testKey = "sk-test-0123456789abcdef"

// fakeEmbeddings is an OpenAI-compatible /v1/embeddings server. Each input gets a deterministic,
// deliberately unnormalised vector derived from its text, so tests can check order and
// normalisation. It records every request.
type fakeEmbeddings struct {
	t   *testing.T
	dim int

	mu       sync.Mutex
	requests []embeddingsRequest
	// respond, when set, replaces the normal answer.
	respond func(w http.ResponseWriter, req embeddingsRequest)
}

type embeddingsRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions"`
	auth       string
}

func newFakeEmbeddings(t *testing.T, dim int) (*fakeEmbeddings, *httptest.Server) {
	f := &fakeEmbeddings{t: t, dim: dim}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", f.serve)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeEmbeddings) serve(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		http.Error(w, `{"error":{"message":"want JSON"}}`, http.StatusUnsupportedMediaType)
		return
	}
	var req embeddingsRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	req.auth = r.Header.Get("Authorization")
	f.mu.Lock()
	f.requests = append(f.requests, req)
	respond := f.respond
	f.mu.Unlock()
	if respond != nil {
		respond(w, req)
		return
	}
	f.answer(w, req)
}

// answer is the fake's normal answer: the key checked, a vector per input, in reverse order.
func (f *fakeEmbeddings) answer(w http.ResponseWriter, req embeddingsRequest) {
	if req.auth != "Bearer "+testKey {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(req.auth, "Bearer ")+`.","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	resp := struct {
		Object string  `json:"object"`
		Data   []datum `json:"data"`
		Model  string  `json:"model"`
		Usage  any     `json:"usage"`
	}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}}
	// Answer in reverse order: the protocol orders by "index", not by position.
	for i := len(req.Input) - 1; i >= 0; i-- {
		resp.Data = append(resp.Data, datum{Object: "embedding", Index: i, Embedding: fakeVector(req.Input[i], f.dim)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// fakeVector is a deterministic vector of norm > 1 for text.
func fakeVector(text string, dim int) []float64 {
	v := make([]float64, dim)
	h := fnv.New64a()
	io.WriteString(h, text)
	s := h.Sum64()
	for i := range v {
		s = s*6364136223846793005 + 1442695040888963407
		v[i] = float64(int64(s>>11)%2000-1000) / 100
	}
	return v
}

func (f *fakeEmbeddings) reqs() []embeddingsRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]embeddingsRequest(nil), f.requests...)
}

func mustOpenAI(t *testing.T, cfg embed.OpenAIConfig) *embed.OpenAI {
	t.Helper()
	o, err := embed.NewOpenAI(cfg)
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	return o
}

func TestOpenAIEmbedsInBatchesInOrderNormalisedWithBearerKey(t *testing.T) {
	f, srv := newFakeEmbeddings(t, 8)
	o := mustOpenAI(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "text-embedding-3-small", BatchSize: 3})
	if got := o.Dimension(); got != 0 {
		t.Errorf("Dimension() before any request = %d, want 0 (not configured, not learned)", got)
	}
	texts := []string{"one", "two", "three", "four", "five", "six", "seven"}
	vs, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.reqs()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want 3 (batches of 3, 3, 1)", len(reqs))
	}
	var sent []string
	for i, r := range reqs {
		if r.auth != "Bearer "+testKey {
			t.Errorf("request %d Authorization = %q, want the bearer key", i, r.auth)
		}
		if r.Model != "text-embedding-3-small" {
			t.Errorf("request %d model = %q", i, r.Model)
		}
		if r.Dimensions != 0 {
			t.Errorf("request %d sent dimensions %d without SendDimensions", i, r.Dimensions)
		}
		sent = append(sent, r.Input...)
	}
	if strings.Join(sent, ",") != strings.Join(texts, ",") {
		t.Errorf("inputs sent = %v, want %v", sent, texts)
	}
	if len(vs) != len(texts) {
		t.Fatalf("vectors = %d, want %d", len(vs), len(texts))
	}
	for i, v := range vs {
		if math.Abs(norm(v)-1) > 1e-5 {
			t.Errorf("norm of vector %d = %v, want 1", i, norm(v))
		}
		// Same direction as the server's vector for this text: proves the index mapping.
		want := fakeVector(texts[i], 8)
		var dot, wn float64
		for k := range v {
			dot += float64(v[k]) * want[k]
			wn += want[k] * want[k]
		}
		if c := dot / math.Sqrt(wn); math.Abs(c-1) > 1e-5 {
			t.Errorf("vector %d is not the server's vector for %q (cosine %v)", i, texts[i], c)
		}
	}
	if got := o.Dimension(); got != 8 {
		t.Errorf("Dimension() after a response = %d, want 8 (learned)", got)
	}
	if got := o.Model(); got != "text-embedding-3-small" {
		t.Errorf("Model() = %q", got)
	}
}

func TestOpenAIBareHostGetsV1AndNoKeyMeansNoAuthorization(t *testing.T) {
	f, srv := newFakeEmbeddings(t, 4)
	f.respond = func(w http.ResponseWriter, req embeddingsRequest) {
		fmt.Fprintf(w, `{"data":[{"index":0,"embedding":[3,4,0,0]}],"model":%q}`, req.Model)
	}
	o := mustOpenAI(t, embed.OpenAIConfig{BaseURL: srv.URL, Model: "nomic-embed-text"})
	vs, err := o.Embed(context.Background(), []string{"hello"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.reqs()[0].auth; got != "" {
		t.Errorf("Authorization = %q, want none without a key", got)
	}
	if want := []float32{0.6, 0.8, 0, 0}; fmt.Sprint(vs[0]) != fmt.Sprint(want) {
		t.Errorf("vector = %v, want %v", vs[0], want)
	}
}

func TestOpenAIEmptyTextsAreNotSentAndGetZeroVectors(t *testing.T) {
	f, srv := newFakeEmbeddings(t, 4)
	o := mustOpenAI(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m"})
	vs, err := o.Embed(context.Background(), []string{"", "hello", "  "})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.reqs()[0].Input; len(got) != 1 || got[0] != "hello" {
		t.Errorf("inputs sent = %q, want only hello", got)
	}
	if len(vs[0]) != 4 || norm(vs[0]) != 0 || len(vs[2]) != 4 || norm(vs[2]) != 0 {
		t.Errorf("empty texts got %v and %v, want zero vectors of dimension 4", vs[0], vs[2])
	}

	// Before the dimension is known, an empty text cannot get a vector of the right length.
	fresh := mustOpenAI(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m"})
	if _, err := fresh.Embed(context.Background(), []string{""}); annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("err = %v, want invalid", err)
	}
	configured := mustOpenAI(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m", Dimension: 4})
	if vs, err := configured.Embed(context.Background(), []string{""}); err != nil || len(vs[0]) != 4 {
		t.Errorf("with a configured dimension: %v, %v; want one zero vector of 4", vs, err)
	}
	if n := len(f.reqs()); n != 1 {
		t.Errorf("requests = %d, want 1 (empty texts never reach the server)", n)
	}
}

func TestOpenAISendsDimensionsAndRejectsAnotherLength(t *testing.T) {
	f, srv := newFakeEmbeddings(t, 6)
	o := mustOpenAI(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "m", Dimension: 4, SendDimensions: true})
	_, err := o.Embed(context.Background(), []string{"x"})
	if got := f.reqs()[0].Dimensions; got != 4 {
		t.Errorf("dimensions sent = %d, want 4", got)
	}
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !strings.Contains(err.Error(), "dimension 6, want 4") {
		t.Errorf("err = %v, want unavailable naming the dimensions", err)
	}
	if _, err := embed.NewOpenAI(embed.OpenAIConfig{Model: "m", SendDimensions: true}); annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("SendDimensions without Dimension: err = %v, want invalid", err)
	}
}

func TestOpenAIMapsProviderErrors(t *testing.T) {
	body := func(status int, s string) func(http.ResponseWriter, embeddingsRequest) {
		return func(w http.ResponseWriter, _ embeddingsRequest) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, s)
		}
	}
	tests := []struct {
		name        string
		respond     func(http.ResponseWriter, embeddingsRequest)
		key         string
		wantCode    string
		wantMessage []string
	}{
		{"bad key is unavailable with provider message, key scrubbed", nil, "sk-wrong-key-987654321", annals.EUNAVAILABLE,
			[]string{"401 Unauthorized", "Incorrect API key provided: [redacted]"}},
		{"rate limit", body(429, `{"error":{"message":"Rate limit reached for text-embedding-3-small","type":"requests"}}`), testKey, annals.EUNAVAILABLE,
			[]string{"429", "Rate limit reached"}},
		{"server error", body(503, `{"error":"model is loading"}`), testKey, annals.EUNAVAILABLE,
			[]string{"503 Service Unavailable", "model is loading"}},
		{"html error page", body(502, `<html><body>Bad Gateway</body></html>`), testKey, annals.EUNAVAILABLE,
			[]string{"502 Bad Gateway"}},
		{"input rejected", body(400, `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error"}}`), testKey, annals.EINVALID,
			[]string{"400", "maximum context length"}},
		{"unknown model", body(404, `{"error":{"message":"The model 'nope' does not exist"}}`), testKey, annals.EUNAVAILABLE,
			[]string{"404", "does not exist"}},
		{"malformed success", body(200, `{"data": "nope"}`), testKey, annals.EUNAVAILABLE,
			[]string{"unusable response"}},
		{"wrong count", body(200, `{"data":[]}`), testKey, annals.EUNAVAILABLE,
			[]string{"0 embeddings for 1 inputs"}},
		{"index out of range", body(200, `{"data":[{"index":5,"embedding":[1]}]}`), testKey, annals.EUNAVAILABLE,
			[]string{"index 5 is out of range"}},
		{"non-finite value", body(200, `{"data":[{"index":0,"embedding":[1e999]}]}`), testKey, annals.EUNAVAILABLE,
			[]string{"unusable response"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeEmbeddings(t, 4)
			f.respond = tt.respond
			o := mustOpenAI(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: tt.key, Model: "m", Retries: -1})
			_, err := o.Embed(context.Background(), []string{"x"})
			if got := annals.ErrorCode(err); got != tt.wantCode {
				t.Fatalf("code = %q (err %v), want %q", got, err, tt.wantCode)
			}
			msg := annals.ErrorMessage(err)
			for _, w := range append(tt.wantMessage, srv.URL+"/v1/embeddings") {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
			if strings.Contains(msg, tt.key) || strings.Contains(fmt.Sprint(errors.Unwrap(err)), tt.key) {
				t.Errorf("error %q reveals the API key", msg)
			}
		})
	}
}

func TestOpenAIUnreachableAndSlowProvidersAreUnavailable(t *testing.T) {
	// A server that is closed before the request: connection refused.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	o := mustOpenAI(t, embed.OpenAIConfig{BaseURL: url + "/v1", APIKey: testKey, Model: "m", Retries: -1})
	_, err := o.Embed(context.Background(), []string{"x"})
	if annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Fatalf("code = %q (err %v), want unavailable", annals.ErrorCode(err), err)
	}
	if msg := annals.ErrorMessage(err); !strings.Contains(msg, url+"/v1/embeddings") || strings.Contains(msg, testKey) {
		t.Errorf("message %q should name the endpoint and not the key", msg)
	}

	// A server slower than the client's timeout.
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	o = mustOpenAI(t, embed.OpenAIConfig{BaseURL: slow.URL + "/v1", Model: "m", Retries: -1, Timeout: 50 * time.Millisecond})
	_, err = o.Embed(context.Background(), []string{"x"})
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("err = %v, want unavailable: timed out", err)
	}
}

func TestOpenAIUserInfoInBaseURLNeverReachesMessages(t *testing.T) {
	_, srv := newFakeEmbeddings(t, 4)
	u := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1)
	o := mustOpenAI(t, embed.OpenAIConfig{BaseURL: u + "/v1?api-key=hunter2", APIKey: "wrong", Model: "m"})
	_, err := o.Embed(context.Background(), []string{"x"})
	if err == nil || strings.Contains(annals.ErrorMessage(err), "hunter2") {
		t.Errorf("err = %v, want an error without the credentials", err)
	}
	if _, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: "ftp://user:hunter2@x", Model: "m"}); annals.ErrorCode(err) != annals.EINVALID || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad scheme: err = %v, want invalid without the password", err)
	}
}

func TestNewOpenAIRequiresModel(t *testing.T) {
	if _, err := embed.NewOpenAI(embed.OpenAIConfig{}); annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("err = %v, want invalid", err)
	}
}
