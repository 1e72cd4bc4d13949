package history_test

import (
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/internal/providerhttp/providertest"
)

// embeddingsServer is providertest.EmbeddingsServer (a provider that can go down).
func embeddingsServer(t *testing.T, down *atomic.Bool, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	return providertest.EmbeddingsServer(t, down, calls)
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
