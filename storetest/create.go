package storetest

import (
	"strings"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

func createChatTests() []test {
	return []test{
		{"ReturnsStoredChatWithCreatedAt", testCreateReturnsStoredChat},
		{"SameIDAndImmutableDataIsIdempotent", testCreateIdempotent},
		{"NilAndEmptyAttributesAreTheSameImmutableData", testCreateNilEmptyAttributes},
		{"DifferentImmutableDataConflicts", testCreateConflict},
		{"InvalidChatIsRejectedAndNothingStored", testCreateInvalid},
		{"FindChatByIDOfMissingChatIsNotFound", testFindChatByIDMissing},
		{"HumanLayerIsTakenAtCreationOnly", testCreateHumanLayer},
	}
}

// testCreateHumanLayer: an importer moving a curated history over gives pinned, archived and
// summary with the chat; they are stored when the chat is new and never overwritten by a repeat.
func testCreateHumanLayer(t *testing.T, s Store) {
	archived := BaseTime.Add(time.Hour)
	summarized := BaseTime.Add(2 * time.Hour)
	c := fullChat("h1")
	c.CreatedAt = BaseTime
	c.Pinned, c.ArchivedAt, c.Summary, c.SummaryUpdatedAt = true, &archived, "the gist", &summarized
	got := mustCreateChat(t, s, c)
	if !got.Pinned || got.ArchivedAt == nil || !got.ArchivedAt.Equal(archived) || got.Summary != "the gist" ||
		got.SummaryUpdatedAt == nil || !got.SummaryUpdatedAt.Equal(summarized) {
		t.Fatalf("created chat = pinned %v archived %v summary %q at %v; want true, %v, \"the gist\", %v",
			got.Pinned, got.ArchivedAt, got.Summary, got.SummaryUpdatedAt, archived, summarized)
	}
	ids, err := s.MatchChats(t.Context(), annals.TextMatch{Owner: annals.Owner{AllTenants: true}, Terms: []string{"gist"}})
	if err != nil || len(ids) != 1 {
		t.Errorf("summary given at creation is not in the metadata index: %v, %v", ids, err)
	}
	again := fullChat("h1")
	again.CreatedAt = BaseTime
	got = mustCreateChat(t, s, again)
	if !got.Pinned || got.Summary != "the gist" || got.ArchivedAt == nil {
		t.Errorf("re-creating the chat without its human layer changed it: %+v", got)
	}
}

// fullChat is a chat with every creatable field set.
func fullChat(id string) *annals.Chat {
	return &annals.Chat{
		ID:          id,
		TenantID:    "tenant-a",
		UserID:      "user-1",
		AgentID:     "agent-1",
		Attributes:  annals.Attributes{"source": "claude-code", "repository": "github.com/o/r"},
		Title:       "First title",
		Description: "what this chat is about",
		Tags:        []string{"alpha", "beta"},
	}
}

func testCreateReturnsStoredChat(t *testing.T, s Store) {
	before := time.Now()
	got := mustCreateChat(t, s, fullChat("c1"))
	after := time.Now()

	want := fullChat("c1")
	// Store-derived fields are copied from the result; their values are checked below.
	want.CreatedAt, want.LastActivity = got.CreatedAt, got.LastActivity
	wantSameChat(t, "CreateChat result", got, want)
	wantRecent(t, "CreatedAt", got.CreatedAt, before, after)
	// A chat without entries still needs an activity time: lists sort and filter on it.
	if got.LastActivity.IsZero() {
		t.Errorf("LastActivity is zero after creation, want it set (lists sort and filter on it)")
	}
	if got.Status != "" {
		t.Errorf("Status = %q for a chat without runs, want empty", got.Status)
	}
	wantTotals(t, "new chat", got.Totals, annals.Totals{})

	// "Returns the chat as stored": a later read gives the same values, to the nanosecond the
	// store keeps (a result built from time.Now() but stored rounded would differ here).
	wantSameChat(t, "FindChatByID after CreateChat", mustChat(t, s, "c1"), got)
}

func testCreateIdempotent(t *testing.T, s Store) {
	first := mustCreateChat(t, s, fullChat("c1"))

	// Same immutable data, different mutable data: a no-op that leaves the stored metadata alone.
	again := fullChat("c1")
	again.Title, again.Description, again.Tags = "Another title", "another description", []string{"gamma"}
	tick()
	second, err := annals.CreateChat(t.Context(), s, again)
	if err != nil {
		t.Fatalf("CreateChat again with the same immutable data: %v, want no error", err)
	}
	wantSameChat(t, "second CreateChat result", second, first)
	wantSameChat(t, "chat after second CreateChat", mustChat(t, s, "c1"), first)

	// Through Capture the same op is counted as unchanged, not created.
	res, err := s.Capture(t.Context(), []annals.CaptureOp{{Chat: fullChat("c1")}})
	if err != nil {
		t.Fatalf("Capture(chat again): %v", err)
	}
	if res.ChatsCreated != 0 || res.ChatsUnchanged != 1 {
		t.Errorf("Capture(chat again) = created %d, unchanged %d; want created 0, unchanged 1", res.ChatsCreated, res.ChatsUnchanged)
	}
	if _, total := findChatIDs(t, s, annals.ChatFilter{Owner: allTenants}); total != 1 {
		t.Errorf("chats stored = %d, want 1", total)
	}
}

func testCreateNilEmptyAttributes(t *testing.T, s Store) {
	c := NewChat("c1", "tenant-a")
	c.Attributes = nil
	mustCreateChat(t, s, c)
	c2 := NewChat("c1", "tenant-a")
	c2.Attributes = annals.Attributes{}
	if _, err := annals.CreateChat(t.Context(), s, c2); err != nil {
		t.Errorf("CreateChat with empty attributes after nil attributes: %v, want no error (SameImmutable treats them as equal)", err)
	}
}

func testCreateConflict(t *testing.T, s Store) {
	stored := mustCreateChat(t, s, fullChat("c1"))
	cases := []struct {
		name   string
		change func(c *annals.Chat)
	}{
		{"tenant", func(c *annals.Chat) { c.TenantID = "tenant-b" }},
		{"user", func(c *annals.Chat) { c.UserID = "user-2" }},
		{"no user", func(c *annals.Chat) { c.UserID = "" }},
		{"agent", func(c *annals.Chat) { c.AgentID = "agent-2" }},
		{"attribute value", func(c *annals.Chat) { c.Attributes["source"] = "codex" }},
		{"extra attribute", func(c *annals.Chat) { c.Attributes["branch"] = "main" }},
		{"missing attribute", func(c *annals.Chat) { delete(c.Attributes, "repository") }},
		{"no attributes", func(c *annals.Chat) { c.Attributes = nil }},
	}
	for _, tc := range cases {
		c := fullChat("c1")
		tc.change(c)
		_, err := annals.CreateChat(t.Context(), s, c)
		wantCode(t, "CreateChat with a different "+tc.name, err, annals.ECONFLICT)
	}
	wantSameChat(t, "chat after conflicting creates", mustChat(t, s, "c1"), stored)
}

func testCreateInvalid(t *testing.T, s Store) {
	cases := []struct {
		name string
		chat *annals.Chat
	}{
		{"empty id", NewChat("", "tenant-a")},
		{"1 MB id", NewChat(strings.Repeat("x", 1<<20), "tenant-a")},
		{"invalid UTF-8 id", NewChat("bad\xff\xfe", "tenant-a")},
		{"control character in id", NewChat("bad\nid", "tenant-a")},
		{"missing tenant", NewChat("no-tenant", "")},
		{"empty tag", &annals.Chat{ID: "empty-tag", TenantID: "tenant-a", Tags: []string{""}}},
	}
	for _, tc := range cases {
		got, err := annals.CreateChat(t.Context(), s, tc.chat)
		wantCode(t, "CreateChat with "+tc.name, err, annals.EINVALID)
		if err != nil && got != nil {
			t.Errorf("CreateChat with %s returned a chat with its error", tc.name)
		}
	}
	if ids, total := findChatIDs(t, s, annals.ChatFilter{Owner: allTenants, IncludeArchived: true}); total != 0 || len(ids) != 0 {
		t.Errorf("after invalid creates: chats %q (total %d), want none stored", ids, total)
	}
	for _, id := range []string{"no-tenant", "empty-tag"} {
		_, err := s.FindChatByID(t.Context(), id)
		wantCode(t, "FindChatByID("+id+") after its invalid create", err, annals.ENOTFOUND)
	}
}

func testFindChatByIDMissing(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("present", "tenant-a"))
	c, err := s.FindChatByID(t.Context(), "absent")
	wantCode(t, "FindChatByID(absent)", err, annals.ENOTFOUND)
	if c != nil {
		t.Errorf("FindChatByID(absent) returned a chat %+v with its error", c)
	}
}
