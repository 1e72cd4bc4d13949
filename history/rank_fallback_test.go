package history_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
)

// embeddingsServer is a real HTTP server speaking the OpenAI embeddings protocol: while up it
// answers each input with a vector of its words' first letters; once down it holds every request
// until the client gives up (a provider that accepts connections and never answers). calls,
// when not nil, counts the requests it received.
func embeddingsServer(t *testing.T, down *atomic.Bool, calls *atomic.Int32) *httptest.Server {
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
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, in := range req.Input {
			v := make([]float64, 8)
			for _, w := range strings.Fields(strings.ToLower(in)) {
				v[int(w[0])%8]++
			}
			v[0] += 0.5 // never the zero vector
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first
	return srv
}

// A default search over a provider that is down does not wait for the provider's own timeout
// (a minute, with retries) nor fail: the query's embedding has a short deadline, and the search
// ranks lexical, its explain saying that hybrid fell back. A search that names hybrid refuses
// within the same deadline with unavailable.
func TestDefaultHybridSearchFallsBackWhenTheProviderHangs(t *testing.T) {
	s := openSQLite(t)
	hybridCorpus(t, s)
	var down atomic.Bool
	srv := embeddingsServer(t, &down, nil)
	provider, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "hangs-later"})
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: s, Embedder: provider})
	if _, err := svc.Backfill(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	a := annals.Principal{TenantID: "A", UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes}
	if rank, why := explainRank(t, svc, a, annals.SearchParams{Query: "replica lag"}); rank != annals.RankHybrid {
		t.Fatalf("with the provider up: rank %q (%s), want hybrid", rank, why)
	}

	down.Store(true)
	ctx := annals.NewContextWithPrincipal(t.Context(), &a)
	page, err := svc.SearchChats(ctx, annals.SearchParams{Query: "replica lag", Explain: true})
	if err != nil {
		t.Fatalf("a default search with the provider down: %v; want the lexical ranking", err)
	}
	if x := page.Explain; x == nil || x.Rank != annals.RankLexical || !strings.Contains(x.RankReason, "hybrid fell back to lexical") ||
		!strings.Contains(x.RankReason, history.DefaultQueryEmbedTimeout.String()) {
		t.Fatalf("explain with the provider down: %+v; want lexical, saying hybrid fell back after %s", page.Explain, history.DefaultQueryEmbedTimeout)
	}
	if len(page.Chats) == 0 || !strings.HasPrefix(page.Chats[0].Chat.ID, "db-") {
		t.Fatalf("the fallen-back search found %+v; want the chats about replica lag", page.Chats)
	}
	_, err = svc.SearchChats(ctx, annals.SearchParams{Query: "replica lag", Rank: annals.RankHybrid})
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !strings.Contains(err.Error(), "did not embed the query within") {
		t.Fatalf("hybrid asked for with the provider down: %v; want unavailable, naming the query's deadline", err)
	}
}
