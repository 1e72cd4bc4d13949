package storetest

import (
	"testing"

	annals "github.com/annals-dev/annals"
)

// SharedModelUpgrade describes, for one backend, how to put a store back in the schema before
// per-tenant learned models (SQLite 0020, PostgreSQL 0014) and open it again.
type SharedModelUpgrade struct {
	// Exec runs one statement on the open store.
	Exec func(query string) error
	// OldStateTable is the embedder_state table as it was: one row per name.
	OldStateTable string
	// Version is the migration to undo and apply again.
	Version int
	// Reopen closes the store and opens it again, which applies the migration.
	Reopen func() Store
}

// RunSharedModelUpgrade checks the upgrade from one learned model per database to one per
// tenant: the shared state (counted over every tenant's chats) is dropped, not handed to any
// tenant; the vectors it made are dropped, so every chat that had one is due again and is
// embedded with its tenant's own model at the next backfill; other models' vectors stay.
func RunSharedModelUpgrade(t *testing.T, s Store, u SharedModelUpgrade) {
	t.Helper()
	const shared = "annals-learned-v1-128+annals-hash-v1-256-0123456789ab"
	mustCreateChat(t, s, NewChat("a1", "A"))
	mustCreateChat(t, s, NewChat("b1", "B"))
	upsert := func(id, model string) {
		c := mustChat(t, s, id)
		if err := s.UpsertEmbedding(t.Context(), c.Ref(), model, vec(1), c.Totals.Entries); err != nil {
			t.Fatalf("UpsertEmbedding(%s, %s): %v", id, model, err)
		}
	}
	upsert("a1", shared)
	upsert("b1", "annals-hash-v1-512")
	for _, q := range []string{`DROP TABLE embedder_state`, u.OldStateTable,
		`INSERT INTO embedder_state (name, data, updated_at) VALUES ('learned-v1', 'every tenant''s words', 0)`,
		`DELETE FROM schema_migrations WHERE version = ` + itoa(int64(u.Version))} {
		if err := u.Exec(q); err != nil {
			t.Fatalf("set up the old schema (%s): %v", q, err)
		}
	}
	s = u.Reopen()
	es, ok := s.(annals.EmbedderStateStore)
	if !ok {
		t.Fatal("the reopened store keeps no embedder state")
	}
	for _, tenant := range []string{"A", "B", "learned-v1", "local"} {
		if data, err := es.LoadEmbedderState(t.Context(), tenant, "learned-v1"); annals.ErrorCode(err) != annals.ENOTFOUND {
			t.Errorf("after the upgrade, tenant %s's state = %q, %v; want none (the shared state is dropped)", tenant, data, err)
		}
	}
	if got := mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: allTenants, Model: shared, IncludeArchived: true}); len(got) != 0 {
		t.Errorf("after the upgrade, the shared model's vectors = %q; want none", vectorChatIDs(got))
	}
	if got := vectorChatIDs(mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: allTenants, Model: "annals-hash-v1-512", IncludeArchived: true})); len(got) != 1 || got[0] != "b1" {
		t.Errorf("after the upgrade, the hashing vectors = %q; want b1's kept", got)
	}
	due, err := s.FindChatsToEmbed(t.Context(), tenant("A"), "annals-learned-v2-x", 10)
	if err != nil || len(due) != 1 || due[0].ID != "a1" {
		t.Errorf("after the upgrade, A's chats due = %q, %v; want a1", chatIDs(due), err)
	}
	if err := es.SaveEmbedderState(t.Context(), "A", "learned-v1", []byte("A's words")); err != nil {
		t.Errorf("save a tenant's state after the upgrade: %v", err)
	}
}
