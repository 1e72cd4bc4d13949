package providertest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// EmbeddingsServer is a real HTTP server speaking the OpenAI embeddings protocol, for the tests
// of a provider that goes down: while up it answers each input with a small vector of its words'
// first letters (never the zero vector); once down is set it holds every request until the
// client gives up (a provider that accepts connections and never answers). calls, when not nil,
// counts the requests it received. The server is closed when the test ends.
func EmbeddingsServer(t testing.TB, down *atomic.Bool, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls != nil {
			calls.Add(1)
		}
		if down.Load() {
			_, _ = io.Copy(io.Discard, r.Body) // the server notices a client that left only past the body
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, in := range req.Input {
			v := make([]float64, 8)
			for _, w := range strings.Fields(strings.ToLower(in)) {
				v[int(w[0])%8]++
			}
			v[0] += 0.5
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first
	return srv
}
