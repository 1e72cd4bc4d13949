package embed_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
)

// Embedding a chat through an OpenAI-compatible server records what it spent as a run of the
// chat (kind embed, the provider's model, the chat's share of the request's tokens), and the
// shares of a batch add up to what the server reported; a query's embedding serves no chat, so
// it records no run and is counted in the query embedding usage instead.
func TestEmbeddingTokensAreRunsOfTheChatsTheyServed(t *testing.T) {
	ctx := t.Context()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	texts := map[string]string{
		"short": "flaky test",
		"long":  strings.Repeat("the replica falls behind the primary during the nightly bulk load ", 20),
		"mid":   "center the div with flexbox and justify content",
	}
	for id, text := range texts {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "t", UserID: "u", Title: id}); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, db, id, []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	hashing, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	srv, reported := openAIDoubleCounting(t, hashing)
	emb, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "double-embed"})
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: db, Embedder: emb})
	if p, err := svc.Backfill(ctx, nil); err != nil || p.Embedded != 3 {
		t.Fatalf("backfill: %+v, %v", p, err)
	}
	var sum int64
	tokens := map[string]int64{}
	for id := range texts {
		runs, err := db.FindRuns(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 {
			t.Fatalf("chat %s has %d runs after its embedding, want 1", id, len(runs))
		}
		r := runs[0]
		if r.Kind != annals.RunKindEmbed || r.Model != "double-embed" || r.Status != annals.StatusCompleted || r.InputTokens <= 0 || !strings.HasPrefix(r.ID, "embed-"+id+"-") {
			t.Errorf("chat %s's embedding run: %+v", id, r)
		}
		tokens[id] = r.InputTokens
		sum += r.InputTokens
		c, err := db.FindChatByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if c.Totals.InputTokens != r.InputTokens {
			t.Errorf("chat %s's totals count %d input tokens, its embedding run %d", id, c.Totals.InputTokens, r.InputTokens)
		}
	}
	if sum != reported.Load() {
		t.Errorf("the chats' embedding runs hold %d tokens, the server reported %d", sum, reported.Load())
	}
	if tokens["long"] <= tokens["mid"] || tokens["mid"] <= tokens["short"] {
		t.Errorf("the shares do not follow the texts' lengths: %v", tokens)
	}

	// A query: no chat's runs change; the query usage counts it.
	before := reported.Load()
	member := annals.Principal{TenantID: "t", UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes}
	if _, err := svc.FindRelated(annals.NewContextWithPrincipal(ctx, &member), annals.RelatedParams{Query: "replica lag behind primary"}); err != nil {
		t.Fatal(err)
	}
	for id := range texts {
		if runs, err := db.FindRuns(ctx, id); err != nil || len(runs) != 1 {
			t.Errorf("chat %s after a related query: %d runs (%v), want its one embedding run", id, len(runs), err)
		}
	}
	counts, err := svc.CountAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := reported.Load() - before; len(counts.QueryEmbeddings) != 1 || counts.QueryEmbeddings[0] != (history.QueryEmbeddingUsage{Model: "double-embed", Calls: 1, InputTokens: want}) || want != 4 {
		t.Errorf("query embedding usage %+v, want one call of %d tokens (4 words) at double-embed", counts.QueryEmbeddings, want)
	}
}
