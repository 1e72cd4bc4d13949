package sqlite_test

import (
	"slices"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// The candidate walks of FindEmbeddings are kept between calls (walkcache.go) until anything is
// committed to the file, by this handle or another process: a kept walk never hides a chat that
// was archived, deleted or embedded since.

func candidateIDs(t *testing.T, db *sqlite.DB, f annals.EmbeddingFilter) []string {
	t.Helper()
	vs, err := db.FindEmbeddings(t.Context(), f)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(vs))
	for i, v := range vs {
		if len(v.Vector) == 0 {
			t.Fatalf("candidate %s has no vector", v.ChatID)
		}
		ids[i] = v.ChatID
	}
	return ids
}

func TestCandidateWalksAreKeptUntilAnyCommit(t *testing.T) {
	a, b := frozenDBs(t)
	ctx := t.Context()
	for _, id := range []string{"c1", "c2", "c3"} {
		if _, err := annals.CreateChat(ctx, a, &annals.Chat{ID: id, TenantID: "T"}); err != nil {
			t.Fatal(err)
		}
		embedChat(t, a, id, []float32{1, 0, 0})
	}
	scope := annals.EmbeddingFilter{Owner: annals.Owner{TenantID: "T"}, Model: "m", Limit: 2}
	first := candidateIDs(t, a, scope)
	if kept, current, err := a.WalksCachedForTest(ctx); err != nil || kept != 1 || current != 1 {
		t.Fatalf("after one walk: %d kept, %d current, %v; want the walk kept", kept, current, err)
	}
	// Served from the kept walk: the same answer, and an excluded chat dropped from it as the
	// SQL would (the newest two other than it).
	if again := candidateIDs(t, a, scope); !slices.Equal(again, first) {
		t.Errorf("second call %v, first %v", again, first)
	}
	ex := scope
	ex.ExcludeChatID = first[0]
	if got := candidateIDs(t, a, ex); len(got) != 2 || slices.Contains(got, first[0]) {
		t.Errorf("excluding %s: %v, want the two others", first[0], got)
	}
	if kept, _, _ := a.WalksCachedForTest(ctx); kept != 1 {
		t.Errorf("an excluded chat made a walk of its own (%d kept)", kept)
	}

	// Another process archives the newest chat: the kept walk is no longer served.
	if _, err := b.UpdateChat(ctx, mustRef(t, b, first[0]), annals.ChatUpdate{Archived: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, current, _ := a.WalksCachedForTest(ctx); current != 0 {
		t.Errorf("a commit by another handle left %d walks current", current)
	}
	if got := candidateIDs(t, a, scope); slices.Contains(got, first[0]) || len(got) != 2 {
		t.Errorf("after another process archived %s: %v", first[0], got)
	}
	// This handle embeds a new chat that sorts first (the clock stands still, so by id): it
	// comes first now.
	third := "c0"
	if _, err := annals.CreateChat(ctx, a, &annals.Chat{ID: third, TenantID: "T"}); err != nil {
		t.Fatal(err)
	}
	embedChat(t, a, third, []float32{0, 1, 0})
	if got := candidateIDs(t, a, scope); len(got) == 0 || got[0] != third {
		t.Errorf("after embedding %s here: %v, want it first", third, got)
	}
	// Another process deletes it: gone at once.
	if err := b.DeleteChat(ctx, mustRef(t, b, third)); err != nil {
		t.Fatal(err)
	}
	if got := candidateIDs(t, a, scope); slices.Contains(got, third) {
		t.Errorf("a chat deleted by another process is still a candidate: %v", got)
	}
}

func mustRef(t *testing.T, db *sqlite.DB, id string) annals.ChatRef {
	t.Helper()
	c, err := db.FindChatByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return c.Ref()
}

func ptr[T any](v T) *T { return &v }
