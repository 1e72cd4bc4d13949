package history_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
)

// explainRank runs a search as p asks, with explain, and returns the rank it used and why.
func explainRank(t *testing.T, svc annals.HistoryService, who annals.Principal, p annals.SearchParams) (string, string) {
	t.Helper()
	p.Explain = true
	page, err := svc.SearchChats(annals.NewContextWithPrincipal(t.Context(), &who), p)
	if err != nil {
		t.Fatalf("search %+v: %v", p, err)
	}
	if page.Explain == nil {
		t.Fatalf("search %+v: no explain", p)
	}
	return page.Explain.Rank, page.Explain.RankReason
}

// A search that names no rank ranks hybrid when its query is plain words, the scope's embedder
// ranks by meaning and the scope holds vectors of its model; lexical otherwise. A named rank
// always wins; explain says which and why (docs/QUERY.md, "Which ranking a search uses").
func TestSearchDefaultRank(t *testing.T) {
	s := openSQLite(t)
	hybridCorpus(t, s)
	learned, err := embed.NewLearnedTenants(s.(embed.LearnSource), embed.LearnedConfig{Dimension: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: s, Embedders: learned})
	a := annals.Principal{TenantID: "A", UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes}
	b := annals.Principal{TenantID: "B", UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes}
	admin := annals.Principal{TenantID: "A", UserID: "root", Role: annals.RoleAdmin, Scopes: annals.Scopes}
	plain := annals.SearchParams{Query: "replica lag"}

	// Learned, but no chat has a vector of the learned model yet: lexical.
	if _, err := learned.Learn(t.Context(), "A"); err != nil {
		t.Fatal(err)
	}
	if rank, why := explainRank(t, svc, a, plain); rank != annals.RankLexical || !strings.Contains(why, "no chat in scope has a vector") {
		t.Errorf("before the backfill: rank %q (%s), want lexical for want of vectors", rank, why)
	}
	if _, err := svc.Backfill(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if rank, why := explainRank(t, svc, a, plain); rank != annals.RankHybrid || !strings.HasPrefix(why, "by default: plain words") || !strings.Contains(why, "annals-learned-") {
		t.Errorf("plain words over a learned model with vectors: rank %q (%s), want hybrid", rank, why)
	}
	if rank, _ := explainRank(t, svc, a, annals.SearchParams{Query: "emag.ro standby"}); rank != annals.RankHybrid {
		t.Errorf("a word with punctuation is a plain word: rank %q, want hybrid", rank)
	}
	if rank, _ := explainRank(t, svc, admin, annals.SearchParams{Query: "replica lag", Scope: annals.ScopeGlobal}); rank != annals.RankHybrid {
		t.Errorf("an admin's global search over a learned tenant: rank %q, want hybrid", rank)
	}
	// Tenant B's history is too small to learn from: its model is hashing.
	if rank, why := explainRank(t, svc, b, plain); rank != annals.RankLexical || !strings.Contains(why, "ranks by the words") {
		t.Errorf("tenant B (hashing): rank %q (%s), want lexical", rank, why)
	}
	for _, p := range []annals.SearchParams{
		{Query: "replica lag", Mode: annals.SearchEntriesMode},
		{Query: "replica lag", Sort: annals.SortRecent},
		{Query: "replica lag tag:ops"},
		{Query: "replica lag role:user"},
		{Query: "replica lag", In: []string{annals.FieldTitle}},
		{Query: "in:title replica"},
		{Query: "replica lag", Filter: annals.ChatQuery{Agent: "x"}},
		{Query: "repl* lag"},
		{Query: `"replica lag"`},
		{Query: "replica -lag"},
		{Query: "replica OR standby"},
		{Query: "tag:ops"},
	} {
		if rank, why := explainRank(t, svc, a, p); rank != annals.RankLexical || !strings.HasPrefix(why, "by default: ") {
			t.Errorf("search %+v: rank %q (%s), want lexical by default", p, rank, why)
		}
	}
	// A named rank wins, both ways.
	for _, rank := range []string{annals.RankLexical, annals.RankSemantic, annals.RankHybrid} {
		if got, why := explainRank(t, svc, a, annals.SearchParams{Query: "replica lag", Rank: rank}); got != rank || why != "asked for" {
			t.Errorf("rank %s asked for: ran %q (%s)", rank, got, why)
		}
	}
	if got, _ := explainRank(t, svc, b, annals.SearchParams{Query: "replica lag", Rank: annals.RankHybrid}); got != annals.RankHybrid {
		t.Errorf("hybrid asked for over hashing: ran %q", got)
	}

	// Hashing for all, and no embedder at all: lexical.
	hashing, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	hsvc := history.New(history.Config{Store: s, Embedder: hashing})
	if _, err := hsvc.Backfill(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if rank, why := explainRank(t, hsvc, a, plain); rank != annals.RankLexical || !strings.Contains(why, "annals-hash-v1-512") {
		t.Errorf("hashing: rank %q (%s), want lexical", rank, why)
	}
	if rank, why := explainRank(t, history.New(history.Config{Store: s}), a, plain); rank != annals.RankLexical || !strings.Contains(why, "no embedder") {
		t.Errorf("no embedder: rank %q (%s), want lexical", rank, why)
	}
}
