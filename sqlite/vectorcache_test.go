package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// The vector cache (vectorcache.go) must never serve a vector its row no longer holds: not after
// a rewrite by this handle or by another process on the same file under a clock that stands
// still, and not for a chat that took the row key of a deleted one.

// frozenDBs opens the same file twice (two processes, as far as caches go) with one clock that
// never moves.
func frozenDBs(t *testing.T) (a, b *sqlite.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "annals.db")
	at := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	open := func() *sqlite.DB {
		db, err := sqlite.Open(context.Background(), path, sqlite.Options{Now: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	return open(), open()
}

func embedChat(t *testing.T, db *sqlite.DB, id string, v []float32) {
	t.Helper()
	ctx := t.Context()
	c, err := db.FindChatByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpsertEmbedding(ctx, c.Ref(), "m", v, 0); err != nil {
		t.Fatal(err)
	}
}

// vectorOf is chat id's vector as FindEmbeddings returns it at the candidate cap.
func vectorOf(t *testing.T, db *sqlite.DB, id string) []float32 {
	t.Helper()
	vs, err := db.FindEmbeddings(t.Context(), annals.EmbeddingFilter{Owner: annals.Owner{AllTenants: true}, Model: "m", IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.ChatID == id {
			return v.Vector
		}
	}
	t.Fatalf("no vector for %s among %d", id, len(vs))
	return nil
}

func TestFindEmbeddingsNeverServesARewrittenVector(t *testing.T) {
	a, b := frozenDBs(t)
	ctx := t.Context()
	for _, id := range []string{"c1", "c2"} {
		if _, err := annals.CreateChat(ctx, a, &annals.Chat{ID: id, TenantID: "T"}); err != nil {
			t.Fatal(err)
		}
	}
	embedChat(t, a, "c1", []float32{1, 0, 0})
	embedChat(t, a, "c2", []float32{0, 1, 0})
	for range 2 { // the second read comes from the cache
		if got := vectorOf(t, a, "c1"); !slices.Equal(got, []float32{1, 0, 0}) {
			t.Fatalf("c1 = %v before any rewrite", got)
		}
	}

	// The same handle rewrites c1 at the same instant.
	embedChat(t, a, "c1", []float32{2, 0, 0})
	if got := vectorOf(t, a, "c1"); !slices.Equal(got, []float32{2, 0, 0}) {
		t.Errorf("after a rewrite by this handle, c1 = %v, want [2 0 0]", got)
	}
	// Another handle (another process) rewrites it, still at the same instant.
	embedChat(t, b, "c1", []float32{3, 0, 0})
	if got := vectorOf(t, a, "c1"); !slices.Equal(got, []float32{3, 0, 0}) {
		t.Errorf("after a rewrite by another process, c1 = %v, want [3 0 0]", got)
	}
	if got := vectorOf(t, a, "c2"); !slices.Equal(got, []float32{0, 1, 0}) {
		t.Errorf("c2 = %v, want its own [0 1 0]", got)
	}
}

func TestFindEmbeddingsNeverServesADeletedChatsVectorToItsSuccessor(t *testing.T) {
	a, b := frozenDBs(t)
	ctx := t.Context()
	if _, err := annals.CreateChat(ctx, a, &annals.Chat{ID: "old", TenantID: "T"}); err != nil {
		t.Fatal(err)
	}
	embedChat(t, a, "old", []float32{1, 1, 1})
	vectorOf(t, a, "old") // cached
	var pk int64
	if err := a.QueryRowForTest(ctx, `SELECT pk FROM chats WHERE id = 'old'`, &pk); err != nil {
		t.Fatal(err)
	}
	old, err := b.FindChatByID(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteChat(ctx, old.Ref()); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.CreateChat(ctx, b, &annals.Chat{ID: "new", TenantID: "T"}); err != nil {
		t.Fatal(err)
	}
	var newPK int64
	if err := a.QueryRowForTest(ctx, `SELECT pk FROM chats WHERE id = 'new'`, &newPK); err != nil {
		t.Fatal(err)
	}
	if newPK != pk {
		t.Fatalf("the new chat took pk %d, not the deleted chat's %d: the case is not exercised", newPK, pk)
	}
	embedChat(t, b, "new", []float32{5, 5, 5})
	if got := vectorOf(t, a, "new"); !slices.Equal(got, []float32{5, 5, 5}) {
		t.Errorf("the chat that took a deleted chat's row key has vector %v, want its own [5 5 5]", got)
	}
}

func TestFindEmbeddingsFromTheCacheEqualsTheStoredVectors(t *testing.T) {
	db := MustOpenDB(t)
	ctx := t.Context()
	want := map[string][]float32{}
	for i := range 30 {
		id := string(rune('a'+i%26)) + string(rune('0'+i/26))
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "T"}); err != nil {
			t.Fatal(err)
		}
		v := []float32{float32(i), float32(-i) / 7, 1.5}
		embedChat(t, db, id, v)
		want[id] = v
	}
	f := annals.EmbeddingFilter{Owner: annals.Owner{TenantID: "T"}, Model: "m", Limit: 20}
	cold, err := db.FindEmbeddings(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := db.FindEmbeddings(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(cold) != 20 || len(warm) != 20 {
		t.Fatalf("%d then %d candidates, want the cap 20 both times", len(cold), len(warm))
	}
	for i := range cold {
		if cold[i].ChatID != warm[i].ChatID || !cold[i].LastActivity.Equal(warm[i].LastActivity) {
			t.Errorf("candidate %d: %s then %s", i, cold[i].ChatID, warm[i].ChatID)
		}
		if !slices.Equal(warm[i].Vector, want[warm[i].ChatID]) || !slices.Equal(cold[i].Vector, want[cold[i].ChatID]) {
			t.Errorf("%s: vectors %v then %v, want %v", cold[i].ChatID, cold[i].Vector, warm[i].Vector, want[cold[i].ChatID])
		}
	}
}

func TestFindEmbeddingsWhileVectorsAreRewritten(t *testing.T) {
	db := MustOpenDB(t)
	ctx := t.Context()
	ids := []string{"c0", "c1", "c2", "c3"}
	for _, id := range ids {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "T"}); err != nil {
			t.Fatal(err)
		}
		embedChat(t, db, id, []float32{0, 0, 1})
	}
	// Each rewrite stores round r as every component but the last, so a reader can tell a torn
	// or mixed vector from a whole one.
	const rounds = 40
	done := make(chan error, 3)
	for range 2 {
		go func() {
			for range rounds {
				vs, err := db.FindEmbeddings(ctx, annals.EmbeddingFilter{Owner: annals.Owner{TenantID: "T"}, Model: "m"})
				if err != nil {
					done <- err
					return
				}
				for _, v := range vs {
					if len(v.Vector) != 3 || v.Vector[0] != v.Vector[1] || v.Vector[2] != 1 {
						done <- fmt.Errorf("%s: vector %v is not one that was written", v.ChatID, v.Vector)
						return
					}
				}
			}
			done <- nil
		}()
	}
	go func() {
		for r := 1; r <= rounds; r++ {
			for _, id := range ids {
				c, err := db.FindChatByID(ctx, id)
				if err == nil {
					err = db.UpsertEmbedding(ctx, c.Ref(), "m", []float32{float32(r), float32(r), 1}, 0)
				}
				if err != nil {
					done <- err
					return
				}
			}
		}
		done <- nil
	}()
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		if got := vectorOf(t, db, id); !slices.Equal(got, []float32{rounds, rounds, 1}) {
			t.Errorf("%s after the last rewrite = %v, want [%d %d 1]", id, got, rounds, rounds)
		}
	}
}
