package embed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
)

// The meaning benchmark (docs/PROVIDERS.md, "Measured"): a corpus of agent transcripts generated
// from testdata/meaning/topics.json — 24 problems, each told with interchangeable words (a
// replica is also a standby, a follower, a secondary) — and the hand-written queries of
// testdata/meaning/queries.json, each naming its problem in words its chats mostly do not use.
// A chat is relevant to a query when it is about the query's problem. The dev split was used to
// choose the learned embedder's defaults; the test split was run as written.

type topicFile struct {
	GenericUser      []string `json:"generic_user"`
	GenericAssistant []string `json:"generic_assistant"`
	Topics           []struct {
		ID        string              `json:"id"`
		Slots     map[string][]string `json:"slots"`
		User      []string            `json:"user"`
		Assistant []string            `json:"assistant"`
	} `json:"topics"`
}

type labelledQuery struct {
	Split string `json:"split"`
	Topic string `json:"topic"`
	Query string `json:"query"`
}

const (
	chatsPerTopic = 10
	noiseChats    = 60
)

var slotRef = regexp.MustCompile(`\{([A-Z])\}`)

// buildMeaningCorpus writes the corpus into s and returns the chat ids of each topic.
func buildMeaningCorpus(t testing.TB, ctx context.Context, s annals.CaptureStore) map[string][]string {
	return buildMeaningCorpusN(t, ctx, s, chatsPerTopic, noiseChats)
}

// buildMeaningCorpusN is buildMeaningCorpus with perTopic chats per problem and noise chats of
// chatter.
func buildMeaningCorpusN(t testing.TB, ctx context.Context, s annals.CaptureStore, perTopic, noise int) map[string][]string {
	t.Helper()
	var tf topicFile
	readJSON(t, "testdata/meaning/topics.json", &tf)
	rng := rand.New(rand.NewPCG(28, 2026))
	byTopic := map[string][]string{}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(id string, texts []string) {
		at = at.Add(time.Hour)
		if _, err := annals.CreateChat(ctx, s, &annals.Chat{ID: id, TenantID: "local", UserID: "local", CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		entries := make([]*annals.Entry, len(texts))
		for i, text := range texts {
			kind := annals.KindUser
			if i%2 == 1 {
				kind = annals.KindAssistant
			}
			entries[i] = &annals.Entry{ID: fmt.Sprintf("e%d", i), Kind: kind, Text: text, Time: at.Add(time.Duration(i) * time.Second)}
		}
		if _, err := annals.AppendEntries(ctx, s, id, entries); err != nil {
			t.Fatal(err)
		}
	}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	for _, tp := range tf.Topics {
		for n := range perTopic {
			choice := map[string]string{}
			for _, k := range slices.Sorted(maps.Keys(tp.Slots)) { // in one order, so the corpus is the same every run
				syn := tp.Slots[k]
				choice[k] = syn[rng.IntN(len(syn))]
			}
			fill := func(tmpl string) string {
				return slotRef.ReplaceAllStringFunc(tmpl, func(m string) string { return choice[m[1:2]] })
			}
			turns := 6 + rng.IntN(7)
			texts := make([]string, turns)
			for i := range texts {
				switch {
				case i%2 == 0 && (i == 0 || rng.Float64() < 0.6):
					texts[i] = fill(pick(tp.User))
				case i%2 == 0:
					texts[i] = pick(tf.GenericUser)
				case rng.Float64() < 0.7:
					texts[i] = fill(pick(tp.Assistant))
				default:
					texts[i] = pick(tf.GenericAssistant)
				}
			}
			id := fmt.Sprintf("%s-%d", tp.ID, n)
			write(id, texts)
			byTopic[tp.ID] = append(byTopic[tp.ID], id)
		}
	}
	for n := range noise {
		texts := make([]string, 4+rng.IntN(5))
		for i := range texts {
			if i%2 == 0 {
				texts[i] = pick(tf.GenericUser)
			} else {
				texts[i] = pick(tf.GenericAssistant)
			}
		}
		write(fmt.Sprintf("noise-%d", n), texts)
	}
	return byTopic
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// scores are recall@10 and nDCG@10 (binary relevance), averaged over queries.
type scores struct{ recall, ndcg float64 }

// evaluate embeds the corpus with the embedder(s) of cfg (the history service's backfill, as
// annals does) and ranks every query of split with related --query.
func evaluate(t *testing.T, db *sqlite.DB, cfg history.Config, byTopic map[string][]string, queries []labelledQuery, split string) scores {
	t.Helper()
	ctx := annals.NewContextWithPrincipal(t.Context(), history.LocalOwner())
	cfg.Store = db
	svc := history.New(cfg)
	if p, err := svc.Backfill(ctx, nil); err != nil {
		t.Fatalf("backfill with %s: %v", p.Model, err)
	}
	var sum scores
	n := 0
	for _, q := range queries {
		if q.Split != split {
			continue
		}
		n++
		page, err := svc.FindRelated(ctx, annals.RelatedParams{Query: q.Query, Limit: 10, Scope: annals.ScopeGlobal})
		if err != nil {
			t.Fatalf("related %q: %v", q.Query, err)
		}
		relevant := map[string]bool{}
		for _, id := range byTopic[q.Topic] {
			relevant[id] = true
		}
		var hits, dcg, idcg float64
		for i, r := range page.Results {
			if relevant[r.Chat.ID] {
				hits++
				dcg += 1 / math.Log2(float64(i+2))
			}
		}
		for i := range min(10, len(relevant)) {
			idcg += 1 / math.Log2(float64(i+2))
		}
		sum.recall += hits / float64(min(10, len(relevant)))
		sum.ndcg += dcg / idcg
	}
	return scores{sum.recall / float64(n), sum.ndcg / float64(n)}
}

// openAIDouble is an HTTP server speaking the OpenAI embeddings protocol (POST /v1/embeddings,
// {"model", "input": [...]} → {"data": [{"index", "embedding"}], "model", "usage":
// {"prompt_tokens", "total_tokens"}}), answering with the vectors of inner and one token per
// word of the inputs: the stand-in for a real embedding server in CI.
func openAIDouble(t *testing.T, inner annals.Embedder) *httptest.Server {
	srv, _ := openAIDoubleCounting(t, inner)
	return srv
}

// openAIDoubleCounting is openAIDouble and the tokens it reported, in all.
func openAIDoubleCounting(t *testing.T, inner annals.Embedder) (*httptest.Server, *atomic.Int64) {
	var reported atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		vecs, err := inner.Embed(r.Context(), req.Input)
		if err != nil {
			http.Error(w, `{"error":{"message":"inner"}}`, http.StatusInternalServerError)
			return
		}
		type datum struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		tokens := 0
		for _, in := range req.Input {
			tokens += len(strings.Fields(in))
		}
		reported.Add(int64(tokens))
		out := struct {
			Object string         `json:"object"`
			Data   []datum        `json:"data"`
			Model  string         `json:"model"`
			Usage  map[string]int `json:"usage"`
		}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}}
		for i, v := range vecs {
			out.Data = append(out.Data, datum{"embedding", i, v})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv, &reported
}

// TestMeaningBenchmark measures hashing, learned and an OpenAI-protocol server on the labelled
// set and holds the learned embedder to issue 28's target: at least 1.5 times hashing's
// recall@10 on the test split. ANNALS_EVAL_EMBEDDINGS_URL and ANNALS_EVAL_EMBEDDINGS_MODEL
// (and OPENAI_API_KEY) measure a real server instead of the double.
func TestMeaningBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 300-chat corpus three times")
	}
	var queries []labelledQuery
	readJSON(t, "testdata/meaning/queries.json", &queries)
	hashing, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	open := func() (*sqlite.DB, map[string][]string) {
		db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db, buildMeaningCorpus(t, t.Context(), db)
	}
	serverURL, serverModel := os.Getenv("ANNALS_EVAL_EMBEDDINGS_URL"), os.Getenv("ANNALS_EVAL_EMBEDDINGS_MODEL")
	serverName := "a real server (" + serverModel + ")"
	if serverURL == "" {
		serverURL, serverModel, serverName = openAIDouble(t, hashing).URL+"/v1", "double", "OpenAI-protocol test server (hashing inside)"
	}
	results := map[string]map[string]scores{}
	for _, name := range []string{"hashing", "learned", "server"} {
		db, byTopic := open()
		var cfg history.Config
		switch name {
		case "hashing":
			cfg.Embedder = hashing
		case "learned":
			l, err := embed.NewLearnedTenants(db, embed.LearnedConfig{}, 0)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Embedders = l
		case "server":
			c, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: serverURL, Model: serverModel, APIKey: os.Getenv("OPENAI_API_KEY")})
			if err != nil {
				t.Fatal(err)
			}
			cfg.Embedder = c
		}
		results[name] = map[string]scores{}
		for _, split := range []string{"dev", "test"} {
			results[name][split] = evaluate(t, db, cfg, byTopic, queries, split)
		}
		if name == "learned" {
			emb, err := cfg.Embedders.ForTenant(t.Context(), "local")
			if err != nil {
				t.Fatal(err)
			}
			checkLearnedPersists(t, db, emb)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| embedder | recall@10 (test) | nDCG@10 (test) | recall@10 (dev) | nDCG@10 (dev) |\n|---|---|---|---|---|\n")
	for _, name := range []string{"hashing", "learned", "server"} {
		label := map[string]string{"hashing": "hashing (`annals-hash-v1-512`)", "learned": "learned (defaults)", "server": serverName}[name]
		r := results[name]
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f |\n", label, r["test"].recall, r["test"].ndcg, r["dev"].recall, r["dev"].ndcg)
	}
	t.Logf("meaning benchmark (%d test and %d dev queries):\n%s", countSplit(queries, "test"), countSplit(queries, "dev"), b.String())
	if h, l := results["hashing"]["test"].recall, results["learned"]["test"].recall; l < 1.5*h {
		t.Errorf("learned recall@10 %.3f is under 1.5 × hashing's %.3f on the test split", l, h)
	}
}

func countSplit(qs []labelledQuery, split string) int {
	n := 0
	for _, q := range qs {
		if q.Split == split {
			n++
		}
	}
	return n
}

// checkLearnedPersists: what was learned is saved in the database, so a new process serves the
// same model (and its stored vectors stay current); more history that does not grow the counts
// by a quarter keeps the model, and a quarter more makes a new one (the fingerprint).
func checkLearnedPersists(t *testing.T, db *sqlite.DB, emb annals.Embedder) {
	t.Helper()
	if !strings.HasPrefix(emb.Model(), "annals-learned-") {
		t.Fatalf("the learned embedder learned nothing from the corpus: model %s", emb.Model())
	}
	again, err := embed.NewLearned(t.Context(), db, "local", embed.LearnedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Model() != emb.Model() || again.Dimension() != emb.Dimension() {
		t.Fatalf("reopened learned embedder: %s (%d), want the saved %s (%d)", again.Model(), again.Dimension(), emb.Model(), emb.Dimension())
	}
	a, _ := emb.Embed(t.Context(), []string{"replica lag"})
	b, _ := again.Embed(t.Context(), []string{"replica lag"})
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("the reopened embedder embeds differently")
	}
	changed, err := again.Learn(t.Context())
	if err != nil || changed {
		t.Fatalf("Learn with nothing new: changed %v, %v; want no change", changed, err)
	}
	grow := func(prefix string, n int) {
		for i := range n {
			id := fmt.Sprintf("%s-%d", prefix, i)
			if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: id, TenantID: "local", UserID: "local"}); err != nil {
				t.Fatal(err)
			}
			if _, err := annals.AppendEntries(t.Context(), db, id, []*annals.Entry{{ID: "e", Kind: annals.KindUser,
				Text: "the standby replica replays the write ahead log slowly and falls behind the primary"}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	grow("small", 5)
	if changed, err := again.Learn(t.Context()); err != nil || changed {
		t.Fatalf("Learn after a little more history: changed %v, %v; want the same model", changed, err)
	}
	grow("large", 2000)
	if changed, err := again.Learn(t.Context()); err != nil || !changed || again.Model() == emb.Model() {
		t.Fatalf("Learn after the history grew by more than a quarter: changed %v, %v, model %s; want a new model", changed, err, again.Model())
	}
	// The first instance (another server on the same database) adopts the saved model rather
	// than making one of its own: the two never embed under two names.
	first := emb.(*embed.Learned)
	if changed, err := first.Learn(t.Context()); err != nil || !changed || first.Model() != again.Model() {
		t.Fatalf("the other instance after a save: changed %v, %v, model %s; want the saved %s", changed, err, first.Model(), again.Model())
	}
}

// judge scores one ranked list of chat ids against the relevant chats (nRelevant of them):
// recall@10 and nDCG@10 with binary relevance.
func judge(ids []string, relevant func(id string) bool, nRelevant int) scores {
	var hits, dcg, idcg float64
	for i, id := range ids[:min(10, len(ids))] {
		if relevant(id) {
			hits++
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := range min(10, nRelevant) {
		idcg += 1 / math.Log2(float64(i+2))
	}
	return scores{hits / float64(min(10, nRelevant)), dcg / idcg}
}

// evaluateSearch ranks every query of split with search by rank (limit 10) and averages the
// scores.
func evaluateSearch(t *testing.T, svc *history.Service, rank string, byTopic map[string][]string, queries []labelledQuery, split string) scores {
	t.Helper()
	ctx := annals.NewContextWithPrincipal(t.Context(), history.LocalOwner())
	var sum scores
	n := 0
	for _, q := range queries {
		if q.Split != split {
			continue
		}
		n++
		page, err := svc.SearchChats(ctx, annals.SearchParams{Query: q.Query, Rank: rank, Page: annals.PageParams{Limit: 10}})
		if err != nil {
			t.Fatalf("search %q rank %s: %v", q.Query, rank, err)
		}
		var ids []string
		for _, h := range page.Chats {
			ids = append(ids, h.Chat.ID)
		}
		s := judge(ids, func(id string) bool { return slices.Contains(byTopic[q.Topic], id) }, len(byTopic[q.Topic]))
		sum.recall += s.recall
		sum.ndcg += s.ndcg
	}
	return scores{sum.recall / float64(n), sum.ndcg / float64(n)}
}

// sharedWordQueries are queries that share words with some of their problem's chats, so the
// full-text ranking finds them too: for each problem of topics.json and each i of 0..3, the i-th
// word of its first two concepts ("flaky test", "intermittent spec", ...), in split "shared".
// They are generated, not written: the labelled queries share too few words for the full-text
// half of a hybrid ranking to matter.
func sharedWordQueries(t testing.TB) []labelledQuery {
	var tf topicFile
	readJSON(t, "testdata/meaning/topics.json", &tf)
	var out []labelledQuery
	for _, tp := range tf.Topics {
		keys := slices.Sorted(maps.Keys(tp.Slots))
		for i := range 4 {
			out = append(out, labelledQuery{Split: "shared", Topic: tp.ID, Query: tp.Slots[keys[0]][i] + " " + tp.Slots[keys[1]][i]})
		}
	}
	return out
}

// TestSearchRankQuality measures search ranked lexical, semantic and hybrid (at several depths
// of the rankings it fuses) with the learned embedder on the labelled set (docs/PROVIDERS.md,
// "Search by meaning"), and holds hybrid at its default depth to no less recall@10 and nDCG@10
// than at the depth it had before (200) on either split.
func TestSearchRankQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 300-chat corpus")
	}
	var queries []labelledQuery
	readJSON(t, "testdata/meaning/queries.json", &queries)
	queries = append(queries, sharedWordQueries(t)...)
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	byTopic := buildMeaningCorpus(t, t.Context(), db)
	learned, err := embed.NewLearnedTenants(db, embed.LearnedConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := annals.NewContextWithPrincipal(t.Context(), history.LocalOwner())
	if _, err := history.New(history.Config{Store: db, Embedders: learned}).Backfill(ctx, nil); err != nil {
		t.Fatal(err)
	}
	type row struct {
		name      string
		rank      string
		depth     int
		test, dev scores
		shared    scores
	}
	rows := []row{{name: "lexical", rank: annals.RankLexical}, {name: "semantic", rank: annals.RankSemantic}}
	for _, d := range []int{200, 100, 50, 20, 10} {
		name := fmt.Sprintf("hybrid, rankings read %d deep", d)
		if d == history.DefaultFuseDepth {
			name += " (default)"
		}
		rows = append(rows, row{name: name, rank: annals.RankHybrid, depth: d})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| search rank | recall@10 (test) | nDCG@10 (test) | recall@10 (dev) | nDCG@10 (dev) | recall@10 (shared words) | nDCG@10 (shared words) |\n|---|---|---|---|---|---|---|\n")
	byDepth := map[int]row{}
	for _, r := range rows {
		svc := history.New(history.Config{Store: db, Embedders: learned, FuseDepth: r.depth})
		r.test = evaluateSearch(t, svc, r.rank, byTopic, queries, "test")
		r.dev = evaluateSearch(t, svc, r.rank, byTopic, queries, "dev")
		r.shared = evaluateSearch(t, svc, r.rank, byTopic, queries, "shared")
		if r.rank == annals.RankHybrid {
			byDepth[r.depth] = r
		}
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", r.name, r.test.recall, r.test.ndcg, r.dev.recall, r.dev.ndcg, r.shared.recall, r.shared.ndcg)
	}
	t.Logf("search ranks on the meaning benchmark (learned embedder):\n%s", b.String())
	def, old := byDepth[history.DefaultFuseDepth], byDepth[200]
	for _, c := range []struct {
		what     string
		got, was float64
	}{{"test recall@10", def.test.recall, old.test.recall}, {"test nDCG@10", def.test.ndcg, old.test.ndcg},
		{"dev recall@10", def.dev.recall, old.dev.recall}, {"dev nDCG@10", def.dev.ndcg, old.dev.ndcg},
		{"shared-word recall@10", def.shared.recall, old.shared.recall}, {"shared-word nDCG@10", def.shared.ndcg, old.shared.ndcg}} {
		if c.got < c.was {
			t.Errorf("hybrid at the default depth %d: %s %.3f, under the %.3f of depth 200", history.DefaultFuseDepth, c.what, c.got, c.was)
		}
	}
}
