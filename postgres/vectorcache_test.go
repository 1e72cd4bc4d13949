package postgres_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/postgres"
)

// The vector cache (vectorcache.go) must never serve what another server sharing the database
// changed since: a vector rewritten at the same instant (clocks that stand still), a chat
// embedded, archived or deleted there. Two stores on one schema are two servers, each with its
// own cache; one clock that never moves for both.
func frozenServers(t *testing.T) (a, b *postgres.DB) {
	t.Helper()
	dsn := MustCreateSchema(t)
	at := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	opts := postgres.Options{PoolSize: 4, Now: func() time.Time { return at }}
	return MustOpen(t, dsn, opts), MustOpen(t, dsn, opts)
}

func embedPG(t *testing.T, db *postgres.DB, id string, v []float32) {
	t.Helper()
	c, err := db.FindChatByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpsertEmbedding(t.Context(), c.Ref(), "m", v, 0); err != nil {
		t.Fatal(err)
	}
}

// candidates is tenant T's candidates of model m as FindEmbeddings returns them: id → vector.
func candidates(t *testing.T, db *postgres.DB) map[string][]float32 {
	t.Helper()
	vs, err := db.FindEmbeddings(t.Context(), annals.EmbeddingFilter{Owner: annals.Owner{TenantID: "T"}, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float32{}
	for _, v := range vs {
		out[v.ChatID] = v.Vector
	}
	return out
}

func TestFindEmbeddingsSeesWhatAnotherServerWrote(t *testing.T) {
	a, b := frozenServers(t)
	ctx := t.Context()
	for _, id := range []string{"c1", "c2", "c3"} {
		if _, err := annals.CreateChat(ctx, a, &annals.Chat{ID: id, TenantID: "T", UserID: "u"}); err != nil {
			t.Fatal(err)
		}
	}
	embedPG(t, a, "c1", []float32{1, 0, 0})
	embedPG(t, a, "c2", []float32{0, 1, 0})
	for range 2 { // the second read is served by the cache
		if got := candidates(t, a); len(got) != 2 || !slices.Equal(got["c1"], []float32{1, 0, 0}) {
			t.Fatalf("before any change: %v", got)
		}
	}

	// Server b rewrites c1's vector at the same instant.
	embedPG(t, b, "c1", []float32{3, 0, 0})
	if got := candidates(t, a); !slices.Equal(got["c1"], []float32{3, 0, 0}) || !slices.Equal(got["c2"], []float32{0, 1, 0}) {
		t.Errorf("after server b rewrote c1, server a reads %v, want c1 [3 0 0] and c2 [0 1 0]", got)
	}
	// ... embeds a chat that had no vector.
	embedPG(t, b, "c3", []float32{0, 0, 1})
	if got := candidates(t, a); !slices.Equal(got["c3"], []float32{0, 0, 1}) {
		t.Errorf("after server b embedded c3, server a reads %v, want c3 among them", got)
	}
	// ... archives c2 (no vector is written: only the walk changes).
	c2, err := b.FindChatByID(ctx, "c2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.UpdateChat(ctx, c2.Ref(), annals.ChatUpdate{Archived: ptrTo(true)}); err != nil {
		t.Fatal(err)
	}
	if got := candidates(t, a); len(got) != 2 || got["c2"] != nil {
		t.Errorf("after server b archived c2, server a reads %v, want c1 and c3 only", got)
	}
	// ... deletes c3.
	c3, err := b.FindChatByID(ctx, "c3")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteChat(ctx, c3.Ref()); err != nil {
		t.Fatal(err)
	}
	if got := candidates(t, a); len(got) != 1 || got["c1"] == nil {
		t.Errorf("after server b deleted c3, server a reads %v, want c1 alone", got)
	}
	// And a's own rewrite at the same instant.
	embedPG(t, a, "c1", []float32{4, 0, 0})
	if got := candidates(t, a); !slices.Equal(got["c1"], []float32{4, 0, 0}) {
		t.Errorf("after its own rewrite, server a reads %v, want c1 [4 0 0]", got)
	}
	if got := candidates(t, b); !slices.Equal(got["c1"], []float32{4, 0, 0}) {
		t.Errorf("after server a's rewrite, server b reads %v, want c1 [4 0 0]", got)
	}
}

func ptrTo[T any](v T) *T { return &v }

// A backfill that embedded many chats leaves the planner statistics of the vectors current:
// before, right after one the planner still believed chat_embeddings empty (it was analysed
// before anything was embedded) and hashed and sorted every vector on each related call.
func TestBackfillAnalyzesTheVectors(t *testing.T) {
	db := MustOpenDB(t)
	ctx := annals.NewContextWithPrincipal(t.Context(), history.LocalOwner())
	const n = 300
	var ops []annals.CaptureOp
	for i := range n {
		ops = append(ops, annals.CaptureOp{Chat: &annals.Chat{ID: fmt.Sprintf("c%03d", i), TenantID: "local", UserID: "local"}})
	}
	if _, err := db.Capture(ctx, ops); err != nil {
		t.Fatal(err)
	}
	if err := db.ExecForTest(ctx, `ANALYZE chat_embeddings`); err != nil {
		t.Fatal(err)
	}
	emb, err := embed.NewHashing(64)
	if err != nil {
		t.Fatal(err)
	}
	p, err := history.New(history.Config{Store: db, Embedder: emb}).Backfill(ctx, nil)
	if err != nil || p.Embedded != n {
		t.Fatalf("backfill: %+v, %v", p, err)
	}
	var tuples float64
	if err := db.QueryRowForTest(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'chat_embeddings'::regclass`, &tuples); err != nil {
		t.Fatal(err)
	}
	if tuples != n {
		t.Errorf("the planner estimates %v vectors after the backfill, want %d", tuples, n)
	}
}
