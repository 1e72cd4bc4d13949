package storetest

import (
	"math"
	"slices"
	"testing"

	annals "github.com/annals-dev/annals"
)

func embeddingTests() []test {
	return []test{
		{"UpsertThenFindReturnsExactVector", testEmbedRoundTrip},
		{"UpsertReplacesTheChatsVector", testEmbedReplace},
		{"MissingChatOrEmptyInputIsRefused", testEmbedInvalid},
		{"FindFoldsByOwner", testEmbedOwner},
		{"FindFiltersModelExcludedChatAndArchived", testEmbedFilters},
		{"FindKeepsNewestByActivity", testEmbedNewest},
		{"FindOverTheCapKeepsNewestWhateverThePins", testEmbedNewestPinned},
		{"FindByChatReadsThatChatAlone", testEmbedByChat},
		{"DeleteChatRemovesItsVector", testEmbedDelete},
		{"FindChatsToEmbedListsChatsLackingTheModel", testEmbedMissingModel},
		{"FindChatsToEmbedListsChatsWhoseTranscriptChangedMaterially", testEmbedStale},
		{"FindChatsToEmbedFoldsByTenant", testEmbedDueByTenant},
		{"FindTenantsListsEveryTenantOnce", testFindTenants},
		{"EmbedderStateRoundTrip", testEmbedderState},
		{"EmbedderStateIsKeyedByTenant", testEmbedderStatePerTenant},
	}
}

func mustUpsertEmbedding(t *testing.T, s Store, chatID, model string, v []float32) {
	t.Helper()
	c := mustChat(t, s, chatID)
	if err := s.UpsertEmbedding(t.Context(), c.Ref(), model, v, c.Totals.Entries); err != nil {
		t.Fatalf("UpsertEmbedding(%q, %q): %v", chatID, model, err)
	}
}

func mustFindEmbeddings(t *testing.T, s Store, f annals.EmbeddingFilter) []annals.ChatVector {
	t.Helper()
	vs, err := s.FindEmbeddings(t.Context(), f)
	if err != nil {
		t.Fatalf("FindEmbeddings(owner %s, model %q): %v", f.Owner, f.Model, err)
	}
	return vs
}

func vectorChatIDs(vs []annals.ChatVector) []string {
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i] = v.ChatID
	}
	return ids
}

// vec is a small distinct vector per seed.
func vec(seed float32) []float32 { return []float32{seed, -seed / 3, 1} }

func testEmbedRoundTrip(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	// Values a lossy encoding (float64 text, rounding) would change.
	want := []float32{0.1, -2.5, 3e-8, math.MaxFloat32, -math.SmallestNonzeroFloat32, 0}
	mustUpsertEmbedding(t, s, "c1", "model-a", want)
	got := mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: tenant("A"), Model: "model-a"})
	if len(got) != 1 {
		t.Fatalf("FindEmbeddings = %q, want [c1]", vectorChatIDs(got))
	}
	if got[0].ChatID != "c1" || got[0].Model != "model-a" {
		t.Errorf("vector of (chat %q, model %q), want (c1, model-a)", got[0].ChatID, got[0].Model)
	}
	if !slices.Equal(got[0].Vector, want) {
		t.Errorf("Vector = %v, want exactly %v", got[0].Vector, want)
	}
	if la := mustChat(t, s, "c1").LastActivity; !got[0].LastActivity.Equal(la) {
		t.Errorf("LastActivity = %v, want the chat's %v", got[0].LastActivity, la)
	}
}

func testEmbedReplace(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	mustUpsertEmbedding(t, s, "c1", "model-a", vec(1))
	mustUpsertEmbedding(t, s, "c1", "model-a", []float32{9, 8, 7, 6})
	got := mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: tenant("A"), Model: "model-a"})
	if len(got) != 1 {
		t.Fatalf("FindEmbeddings after two upserts = %q, want one vector", vectorChatIDs(got))
	}
	if want := []float32{9, 8, 7, 6}; !slices.Equal(got[0].Vector, want) {
		t.Errorf("Vector = %v, want the latest %v", got[0].Vector, want)
	}
}

func testEmbedInvalid(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	wantCode(t, "UpsertEmbedding(absent)", s.UpsertEmbedding(t.Context(), annals.ChatRef{ID: "absent"}, "model-a", vec(1), 0), annals.ENOTFOUND)
	wantCode(t, "UpsertEmbedding with an empty vector", s.UpsertEmbedding(t.Context(), refOf(t, s, "c1"), "model-a", nil, 0), annals.EINVALID)
	wantCode(t, "UpsertEmbedding without a model", s.UpsertEmbedding(t.Context(), refOf(t, s, "c1"), "", vec(1), 0), annals.EINVALID)
	if got := mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: allTenants, IncludeArchived: true}); len(got) != 0 {
		t.Errorf("FindEmbeddings after refused upserts = %q, want none", vectorChatIDs(got))
	}
}

func testEmbedOwner(t *testing.T, s Store) {
	ownerChats(t, s) // a1..a4 in A, b1 in B
	for i, id := range []string{"a1", "a2", "a3", "a4", "b1"} {
		mustUpsertEmbedding(t, s, id, "m", vec(float32(i+1)))
	}
	cases := []struct {
		owner annals.Owner
		want  []string
	}{
		{annals.Owner{TenantID: "A"}, []string{"a1", "a2", "a3", "a4"}},
		{annals.Owner{TenantID: "B"}, []string{"b1"}},
		{annals.Owner{TenantID: "A", UserID: "u1"}, []string{"a1", "a3"}},
		{annals.Owner{TenantID: "A", AgentID: "g1"}, []string{"a1", "a2"}},
		{annals.Owner{UserID: "u1"}, nil},
		{annals.Owner{}, nil},
		{annals.Owner{AllTenants: true}, []string{"a1", "a2", "a3", "a4", "b1"}},
	}
	for _, tc := range cases {
		got := vectorChatIDs(mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: tc.owner, Model: "m"}))
		if !sameSet(got, tc.want) {
			t.Errorf("FindEmbeddings for %s = %q, want %q", tc.owner, got, tc.want)
		}
	}
}

func testEmbedFilters(t *testing.T, s Store) {
	for _, id := range []string{"v1", "v2", "v3", "v4"} {
		mustCreateChat(t, s, NewChat(id, "A"))
	}
	mustUpsertEmbedding(t, s, "v1", "m1", vec(1))
	mustUpsertEmbedding(t, s, "v2", "m2", vec(2))
	mustUpsertEmbedding(t, s, "v3", "m1", vec(3))
	mustUpsertEmbedding(t, s, "v4", "m1", vec(4))
	mustUpdate(t, s, "v4", annals.ChatUpdate{Archived: ptr(true)})
	cases := []struct {
		name   string
		filter annals.EmbeddingFilter
		want   []string
	}{
		{"model m1", annals.EmbeddingFilter{Model: "m1"}, []string{"v1", "v3"}},
		{"model m2", annals.EmbeddingFilter{Model: "m2"}, []string{"v2"}},
		{"model m1 with archived", annals.EmbeddingFilter{Model: "m1", IncludeArchived: true}, []string{"v1", "v3", "v4"}},
		{"model m1 without v1", annals.EmbeddingFilter{Model: "m1", ExcludeChatID: "v1"}, []string{"v3"}},
	}
	for _, tc := range cases {
		tc.filter.Owner = tenant("A")
		got := vectorChatIDs(mustFindEmbeddings(t, s, tc.filter))
		if !sameSet(got, tc.want) {
			t.Errorf("FindEmbeddings %s = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func testEmbedNewest(t *testing.T, s Store) {
	ids := []string{"n1", "n2", "n3", "n4"}
	activityChats(t, s, "A", ids, []string{"n3", "n1", "n4", "n2"}) // activity: n3 < n1 < n4 < n2
	for i, id := range ids {
		mustUpsertEmbedding(t, s, id, "m", vec(float32(i+1)))
	}
	got := vectorChatIDs(mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: tenant("A"), Model: "m"}))
	wantIDs(t, "FindEmbeddings order", got, []string{"n2", "n4", "n1", "n3"})
	// The candidate cap keeps the newest, not any two.
	got = vectorChatIDs(mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: tenant("A"), Model: "m", Limit: 2}))
	wantIDs(t, "FindEmbeddings with limit 2", got, []string{"n2", "n4"})
}

// Over the cap a store may walk the chat list's indexes, which put pinned chats first: the
// candidates must still be the newest by activity, pinned or not, in scope and filtered.
func testEmbedNewestPinned(t *testing.T, s Store) {
	ids := []string{"p1", "p2", "p3", "p4", "p5", "p6"}
	activityChats(t, s, "A", ids, []string{"p3", "p1", "p6", "p4", "p2", "p5"}) // activity: p3 < p1 < p6 < p4 < p2 < p5
	mustCreateChat(t, s, &annals.Chat{ID: "q1", TenantID: "B"})
	for i, id := range append(ids, "q1") {
		model := "m"
		if id == "p4" {
			model = "other"
		}
		mustUpsertEmbedding(t, s, id, model, vec(float32(i+1)))
	}
	mustUpdate(t, s, "p3", annals.ChatUpdate{Pinned: ptr(true)}) // the oldest, pinned
	mustUpdate(t, s, "p2", annals.ChatUpdate{Pinned: ptr(true)})
	mustUpdate(t, s, "p6", annals.ChatUpdate{Archived: ptr(true)})
	cases := []struct {
		name   string
		filter annals.EmbeddingFilter
		want   []string
	}{
		// In scope: p5, p2 (pinned), p1, p3 (pinned); p4 is another model's, p6 archived.
		{"cap 2", annals.EmbeddingFilter{Owner: tenant("A"), Model: "m", Limit: 2}, []string{"p5", "p2"}},
		{"cap 3", annals.EmbeddingFilter{Owner: tenant("A"), Model: "m", Limit: 3}, []string{"p5", "p2", "p1"}},
		{"cap 3 with archived", annals.EmbeddingFilter{Owner: tenant("A"), Model: "m", Limit: 3, IncludeArchived: true}, []string{"p5", "p2", "p6"}},
		{"cap 2 without p5", annals.EmbeddingFilter{Owner: tenant("A"), Model: "m", Limit: 2, ExcludeChatID: "p5"}, []string{"p2", "p1"}},
		{"cap 3, every tenant", annals.EmbeddingFilter{Owner: allTenants, Model: "m", Limit: 3}, []string{"p5", "p2", "p1"}},
		{"cap 3, tenant B", annals.EmbeddingFilter{Owner: tenant("B"), Model: "m", Limit: 3}, []string{"q1"}},
	}
	for _, tc := range cases {
		got := vectorChatIDs(mustFindEmbeddings(t, s, tc.filter))
		wantIDs(t, "FindEmbeddings "+tc.name, got, tc.want)
	}
}

func testEmbedDelete(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	mustCreateChat(t, s, NewChat("c2", "A"))
	mustUpsertEmbedding(t, s, "c1", "m", vec(1))
	mustUpsertEmbedding(t, s, "c2", "m", vec(2))
	if err := s.DeleteChat(t.Context(), refOf(t, s, "c1")); err != nil {
		t.Fatalf("DeleteChat(c1): %v", err)
	}
	got := vectorChatIDs(mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: allTenants, Model: "m", IncludeArchived: true}))
	wantIDs(t, "FindEmbeddings after deleting c1", got, []string{"c2"})
	// A recreated chat of the same id starts without the old vector.
	mustCreateChat(t, s, NewChat("c1", "B"))
	got = vectorChatIDs(mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: tenant("B"), Model: "m"}))
	wantIDs(t, "FindEmbeddings for the recreated c1", got, nil)
}

func testEmbedMissingModel(t *testing.T, s Store) {
	for _, c := range []*annals.Chat{NewChat("x1", "A"), NewChat("x2", "A"), NewChat("x3", "B"), NewChat("x4", "A")} {
		mustCreateChat(t, s, c)
	}
	mustUpsertEmbedding(t, s, "x1", "m1", vec(1))
	mustUpsertEmbedding(t, s, "x4", "m2", vec(4))
	cs, err := s.FindChatsToEmbed(t.Context(), allTenants, "m1", 10)
	if err != nil {
		t.Fatalf("FindChatsToEmbed(m1): %v", err)
	}
	// Any owner: backfills run for every tenant. x4 has a vector, but of another model.
	if got, want := chatIDs(cs), []string{"x2", "x3", "x4"}; !sameSet(got, want) {
		t.Errorf("FindChatsToEmbed(m1) = %q, want %q", got, want)
	}
	cs, err = s.FindChatsToEmbed(t.Context(), allTenants, "m1", 2)
	if err != nil {
		t.Fatalf("FindChatsToEmbed(m1, 2): %v", err)
	}
	if len(cs) != 2 {
		t.Errorf("FindChatsToEmbed(m1, limit 2) = %q, want 2 chats", chatIDs(cs))
	}
	for _, c := range cs {
		if c.ID == "x1" {
			t.Errorf("FindChatsToEmbed(m1, limit 2) returned x1, which has an m1 vector")
		}
	}
	mustUpsertEmbedding(t, s, "x2", "m1", vec(2))
	mustUpsertEmbedding(t, s, "x3", "m1", vec(3))
	mustUpsertEmbedding(t, s, "x4", "m1", vec(4))
	cs, err = s.FindChatsToEmbed(t.Context(), allTenants, "m1", 10)
	if err != nil {
		t.Fatalf("FindChatsToEmbed(m1) after backfill: %v", err)
	}
	if len(cs) != 0 {
		t.Errorf("FindChatsToEmbed(m1) after backfill = %q, want none", chatIDs(cs))
	}
}

// A by-chat read answers that chat's vector alone, still folded by owner and archive.
func testEmbedByChat(t *testing.T, s Store) {
	for _, c := range []*annals.Chat{NewChat("c1", "A"), NewChat("c2", "A"), NewChat("c3", "A"), NewChat("b1", "B")} {
		mustCreateChat(t, s, c)
	}
	for i, id := range []string{"c1", "c2", "c3", "b1"} {
		mustUpsertEmbedding(t, s, id, "m", vec(float32(i+1)))
	}
	got := mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: tenant("A"), Model: "m", ChatID: "c2", Limit: 1})
	if len(got) != 1 || got[0].ChatID != "c2" || !slices.Equal(got[0].Vector, vec(2)) {
		t.Fatalf("FindEmbeddings by c2 = %+v, want c2's vector alone", got)
	}
	if got := mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: tenant("A"), Model: "m", ChatID: "b1"}); len(got) != 0 {
		t.Errorf("FindEmbeddings by b1 in tenant A = %q, want nothing", vectorChatIDs(got))
	}
	mustUpdate(t, s, "c2", annals.ChatUpdate{Archived: ptr(true)})
	if got := mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: tenant("A"), Model: "m", ChatID: "c2"}); len(got) != 0 {
		t.Errorf("FindEmbeddings by archived c2 = %q, want nothing without IncludeArchived", vectorChatIDs(got))
	}
}

// A vector stays current while its chat's transcript is what it was computed over, and is due
// again when the transcript changed materially (annals.EmbeddingStale): any change of a short
// chat, a quarter's growth of a longer one, any rewind.
func testEmbedStale(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("short", "A"))
	mustCreateChat(t, s, NewChat("long", "A"))
	mustAppend(t, s, "short", Entries("s", 2)...)
	mustAppend(t, s, "long", Entries("l", 20)...)
	mustUpsertEmbedding(t, s, "short", "m", vec(1))
	mustUpsertEmbedding(t, s, "long", "m", vec(2))
	due := func() []string {
		t.Helper()
		cs, err := s.FindChatsToEmbed(t.Context(), allTenants, "m", 10)
		if err != nil {
			t.Fatalf("FindChatsToEmbed(m): %v", err)
		}
		return chatIDs(cs)
	}
	wantIDs(t, "FindChatsToEmbed right after embedding", due(), nil)
	mustAppend(t, s, "short", Entries("s2", 1)...)
	mustAppend(t, s, "long", Entries("l2", 4)...) // 24 of 20: under a quarter more
	wantIDs(t, "FindChatsToEmbed after one entry on the short chat and four on the long one", due(), []string{"short"})
	mustAppend(t, s, "long", Entries("l3", 1)...) // 25 of 20: a quarter more
	wantIDs(t, "FindChatsToEmbed after the long chat grew by a quarter", due(), []string{"short", "long"})
	mustUpsertEmbedding(t, s, "short", "m", vec(1))
	mustUpsertEmbedding(t, s, "long", "m", vec(2))
	mustTruncate(t, s, "long", annals.TruncatePoint{EntryID: "l2-3"})
	wantIDs(t, "FindChatsToEmbed after a rewind of the long chat", due(), []string{"long"})
	// The stores' SQL and the root's rule agree.
	for _, c := range []struct{ then, now int64 }{{2, 3}, {20, 24}, {20, 25}, {25, 23}, {-1, 0}, {7, 7}} {
		want := c.then == 20 && c.now == 25 || c.then == 2 || c.now < c.then || c.then < 0
		if got := annals.EmbeddingStale(c.then, c.now); got != want {
			t.Errorf("EmbeddingStale(%d, %d) = %v, want %v", c.then, c.now, got, want)
		}
	}
}

// The learned embedder's state is saved and read back whole, replaced by a later save, and a
// name never saved is not_found.
func testEmbedderState(t *testing.T, s Store) {
	es, ok := s.(annals.EmbedderStateStore)
	if !ok {
		t.Skip("the store keeps no embedder state")
	}
	if _, err := es.LoadEmbedderState(t.Context(), "A", "learned"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("LoadEmbedderState before any save = %v, want not_found", err)
	}
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	for _, data := range [][]byte{[]byte("first"), big} {
		if err := es.SaveEmbedderState(t.Context(), "A", "learned", data); err != nil {
			t.Fatalf("SaveEmbedderState: %v", err)
		}
		got, err := es.LoadEmbedderState(t.Context(), "A", "learned")
		if err != nil || string(got) != string(data) {
			t.Fatalf("LoadEmbedderState = %d bytes, %v; want the %d bytes saved", len(got), err, len(data))
		}
	}
	wantCode(t, "SaveEmbedderState without a name", es.SaveEmbedderState(t.Context(), "A", "", []byte("x")), annals.EINVALID)
	wantCode(t, "SaveEmbedderState without a tenant", es.SaveEmbedderState(t.Context(), "", "learned", []byte("x")), annals.EINVALID)
}

// Each tenant's learned state is its own row: a tenant reads back what it saved and nothing of
// another tenant's, whatever order they save in (docs/SECURITY.md, "One learned model per
// tenant").
func testEmbedderStatePerTenant(t *testing.T, s Store) {
	es, ok := s.(annals.EmbedderStateStore)
	if !ok {
		t.Skip("the store keeps no embedder state")
	}
	ctx := t.Context()
	if err := es.SaveEmbedderState(ctx, "A", "learned", []byte("A's words")); err != nil {
		t.Fatalf("SaveEmbedderState(A): %v", err)
	}
	if got, err := es.LoadEmbedderState(ctx, "B", "learned"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("LoadEmbedderState(B) with only A's saved = %q, %v; want not_found", got, err)
	}
	if err := es.SaveEmbedderState(ctx, "B", "learned", []byte("B's words")); err != nil {
		t.Fatalf("SaveEmbedderState(B): %v", err)
	}
	if err := es.SaveEmbedderState(ctx, "A", "learned", []byte("A's words, later")); err != nil {
		t.Fatalf("SaveEmbedderState(A) again: %v", err)
	}
	for tenant, want := range map[string]string{"A": "A's words, later", "B": "B's words"} {
		if got, err := es.LoadEmbedderState(ctx, tenant, "learned"); err != nil || string(got) != want {
			t.Errorf("LoadEmbedderState(%s) = %q, %v; want %q", tenant, got, err, want)
		}
	}
	// A tenant id that is a prefix or a case variant of another is another tenant.
	for _, other := range []string{"a", "A ", "AB"} {
		if _, err := es.LoadEmbedderState(ctx, other, "learned"); annals.ErrorCode(err) != annals.ENOTFOUND {
			t.Errorf("LoadEmbedderState(%q) = %v; want not_found", other, err)
		}
	}
}

// A tenant's backfill sees that tenant's chats only.
func testEmbedDueByTenant(t *testing.T, s Store) {
	for _, c := range []*annals.Chat{NewChat("a1", "A"), NewChat("a2", "A"), NewChat("b1", "B"), NewChat("ab", "AB")} {
		mustCreateChat(t, s, c)
	}
	mustUpsertEmbedding(t, s, "a1", "m", vec(1))
	for owner, want := range map[string][]string{"A": {"a2"}, "B": {"b1"}, "AB": {"ab"}, "C": nil} {
		cs, err := s.FindChatsToEmbed(t.Context(), tenant(owner), "m", 10)
		if err != nil {
			t.Fatalf("FindChatsToEmbed(tenant %s): %v", owner, err)
		}
		wantIDs(t, "FindChatsToEmbed for tenant "+owner, chatIDs(cs), want)
	}
	if cs, err := s.FindChatsToEmbed(t.Context(), annals.Owner{}, "m", 10); err != nil || len(cs) != 0 {
		t.Errorf("FindChatsToEmbed with a zero owner = %q, %v; want nothing (fail closed)", chatIDs(cs), err)
	}
}

// FindTenants lists each tenant with a chat once, in byte order.
func testFindTenants(t *testing.T, s Store) {
	got, err := s.FindTenants(t.Context())
	if err != nil || len(got) != 0 {
		t.Fatalf("FindTenants on an empty store = %q, %v; want none", got, err)
	}
	for _, c := range []*annals.Chat{NewChat("1", "b"), NewChat("2", "B"), NewChat("3", "a"), NewChat("4", "b"), NewChat("5", "B"), NewChat("6", "é")} {
		mustCreateChat(t, s, c)
	}
	got, err = s.FindTenants(t.Context())
	if want := []string{"B", "a", "b", "é"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("FindTenants = %q, %v; want %q", got, err, want)
	}
	if err := s.DeleteChat(t.Context(), refOf(t, s, "3")); err != nil {
		t.Fatal(err)
	}
	got, err = s.FindTenants(t.Context())
	if want := []string{"B", "b", "é"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("FindTenants after deleting a's only chat = %q, %v; want %q", got, err, want)
	}
}
