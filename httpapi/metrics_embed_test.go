package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/sqlite"
)

// A query's embedding serves no chat: what it spent at the provider is in /metrics, per model
// (docs/PROVIDERS.md, "Token and cost accounting").
func TestMetricsCountQueryEmbeddingTokens(t *testing.T) {
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		out := struct {
			Data  []datum        `json:"data"`
			Usage map[string]int `json:"usage"`
		}{Usage: map[string]int{"prompt_tokens": 5 * len(req.Input), "total_tokens": 5 * len(req.Input)}}
		for i := range req.Input {
			out.Data = append(out.Data, datum{i, []float64{1, float64(i), 0.5}})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(provider.Close)
	emb, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: provider.URL + "/v1", Model: "small-embed"})
	if err != nil {
		t.Fatal(err)
	}
	var svc *history.Service
	withProvider := func(c *httpapi.Config) {
		svc = history.New(history.Config{Store: c.Keys.(*sqlite.DB), Embedder: emb})
		c.Service, c.View, c.Stats, c.Replica = svc, svc, svc, svc
	}
	e := newEnv(t, nil, withProvider)
	e.must(http.StatusOK, "POST", "/v1/history", "", `{"op":"related","query":"replica lag"}`)
	e.must(http.StatusOK, "POST", "/v1/history", "", `{"op":"related","query":"flaky test"}`)
	body := string(e.must(http.StatusOK, "GET", "/metrics", "", "").body)
	for _, want := range []string{
		"# TYPE annals_query_embedding_input_tokens_total counter",
		`annals_query_embedding_requests_total{model="small-embed"} 2`,
		`annals_query_embedding_input_tokens_total{model="small-embed"} 10`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
}
