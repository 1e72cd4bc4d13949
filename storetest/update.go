package storetest

import (
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

func updateTests() []test {
	return []test{
		{"SetsMutableFieldsAndLeavesImmutableOnes", testUpdateSetsFields},
		{"NilFieldsAreLeftUnchanged", testUpdateNilFields},
		{"EmptyValuesClearTitleAndTags", testUpdateClears},
		{"SummaryStampsSummaryUpdatedAt", testUpdateSummary},
		{"ArchiveKeepsFirstTimeAndRestoreClears", testUpdateArchive},
		{"MissingChatIsNotFound", testUpdateMissing},
		{"InvalidUpdateIsRejectedAndChangesNothing", testUpdateInvalid},
	}
}

// updatedChat stores fullChat("c1") with two entries and a run, so the update tests can check
// that counters and status survive an update.
func updatedChat(t *testing.T, s Store) *annals.Chat {
	t.Helper()
	mustCreateChat(t, s, fullChat("c1"))
	mustAppend(t, s, "c1", Entries("e", 2)...)
	r := NewRun("r1", "c1", annals.StatusCompleted, runStart)
	r.InputTokens, r.CostUSD = 9, 0.1
	mustRecordRun(t, s, r)
	return mustChat(t, s, "c1")
}

func testUpdateSetsFields(t *testing.T, s Store) {
	before := updatedChat(t, s)
	start := time.Now()
	got := mustUpdate(t, s, "c1", annals.ChatUpdate{
		Title:       ptr("New title"),
		Description: ptr("new description"),
		Tags:        &[]string{"x", "y", "z"},
		Pinned:      ptr(true),
		Archived:    ptr(true),
		Summary:     ptr("what happened"),
	})
	end := time.Now()

	want := *before
	want.Title, want.Description, want.Tags = "New title", "new description", []string{"x", "y", "z"}
	want.Pinned, want.Summary = true, "what happened"
	// Store-stamped times are taken from the result and checked for plausibility; whether an
	// update counts as activity is left to the store.
	want.ArchivedAt, want.SummaryUpdatedAt, want.LastActivity = got.ArchivedAt, got.SummaryUpdatedAt, got.LastActivity
	wantSameChat(t, "UpdateChat result", got, &want)
	if got.ArchivedAt == nil {
		t.Errorf("ArchivedAt is nil after archiving, want the time of the update")
	} else {
		wantRecent(t, "ArchivedAt", *got.ArchivedAt, start, end)
	}
	if got.SummaryUpdatedAt == nil {
		t.Errorf("SummaryUpdatedAt is nil after setting the summary")
	}
	wantSameChat(t, "FindChatByID after UpdateChat", mustChat(t, s, "c1"), got)
}

func testUpdateNilFields(t *testing.T, s Store) {
	mustCreateChat(t, s, fullChat("c1"))
	mustUpdate(t, s, "c1", annals.ChatUpdate{Summary: ptr("s1"), Pinned: ptr(true)})
	before := mustChat(t, s, "c1")

	got := mustUpdate(t, s, "c1", annals.ChatUpdate{Title: ptr("only the title")})
	want := *before
	want.Title, want.LastActivity = "only the title", got.LastActivity
	wantSameChat(t, "chat after a title-only update", got, &want)

	// An update with nothing set changes nothing.
	got = mustUpdate(t, s, "c1", annals.ChatUpdate{})
	want.LastActivity = got.LastActivity
	wantSameChat(t, "chat after an empty update", got, &want)
}

func testUpdateClears(t *testing.T, s Store) {
	mustCreateChat(t, s, fullChat("c1"))
	got := mustUpdate(t, s, "c1", annals.ChatUpdate{Title: ptr(""), Tags: &[]string{}})
	if got.Title != "" {
		t.Errorf("Title after clearing = %q, want empty", got.Title)
	}
	if len(got.Tags) != 0 {
		t.Errorf("Tags after an empty tags update = %q, want none", got.Tags)
	}
	stored := mustChat(t, s, "c1")
	if stored.Title != "" || len(stored.Tags) != 0 {
		t.Errorf("stored chat after clearing: title %q, tags %q; want both empty", stored.Title, stored.Tags)
	}
	if stored.Description != fullChat("c1").Description {
		t.Errorf("Description = %q, want it untouched: %q", stored.Description, fullChat("c1").Description)
	}
	wantChatSet(t, s, "tag alpha after clearing tags", annals.ChatFilter{Owner: tenant("tenant-a"), Tag: ptr("alpha")}, nil...)
}

func testUpdateSummary(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	if c := mustChat(t, s, "c1"); c.SummaryUpdatedAt != nil {
		t.Errorf("SummaryUpdatedAt of a new chat = %v, want nil", *c.SummaryUpdatedAt)
	}
	start := time.Now()
	got := mustUpdate(t, s, "c1", annals.ChatUpdate{Summary: ptr("first recap")})
	end := time.Now()
	if got.Summary != "first recap" {
		t.Errorf("Summary = %q, want %q", got.Summary, "first recap")
	}
	if got.SummaryUpdatedAt == nil {
		t.Fatalf("SummaryUpdatedAt is nil after setting the summary")
	}
	wantRecent(t, "SummaryUpdatedAt", *got.SummaryUpdatedAt, start, end)
	first := *got.SummaryUpdatedAt

	// Another update that leaves the summary alone keeps the stamp.
	got = mustUpdate(t, s, "c1", annals.ChatUpdate{Title: ptr("t")})
	if got.SummaryUpdatedAt == nil || !got.SummaryUpdatedAt.Equal(first) {
		t.Errorf("SummaryUpdatedAt after a title update = %s, want unchanged %v", fmtTimePtr(got.SummaryUpdatedAt), first)
	}

	// A new recap moves the stamp forward (or keeps it, at a coarse clock).
	tick()
	got = mustUpdate(t, s, "c1", annals.ChatUpdate{Summary: ptr("second recap")})
	if got.SummaryUpdatedAt == nil || got.SummaryUpdatedAt.Before(first) {
		t.Errorf("SummaryUpdatedAt after a second summary = %s, want not before %v", fmtTimePtr(got.SummaryUpdatedAt), first)
	}
}

func testUpdateArchive(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	got := mustUpdate(t, s, "c1", annals.ChatUpdate{Archived: ptr(true)})
	if got.ArchivedAt == nil {
		t.Fatalf("ArchivedAt is nil after archiving")
	}
	first := *got.ArchivedAt

	// Archiving an archived chat keeps the time it was first archived.
	tick()
	got = mustUpdate(t, s, "c1", annals.ChatUpdate{Archived: ptr(true)})
	if got.ArchivedAt == nil || !got.ArchivedAt.Equal(first) {
		t.Errorf("ArchivedAt after archiving again = %s, want the first %v", fmtTimePtr(got.ArchivedAt), first)
	}

	got = mustUpdate(t, s, "c1", annals.ChatUpdate{Archived: ptr(false)})
	if got.ArchivedAt != nil {
		t.Errorf("ArchivedAt after restoring = %v, want nil", *got.ArchivedAt)
	}
	if c := mustChat(t, s, "c1"); c.ArchivedAt != nil {
		t.Errorf("stored ArchivedAt after restoring = %v, want nil", *c.ArchivedAt)
	}
}

func testUpdateMissing(t *testing.T, s Store) {
	_, err := s.UpdateChat(t.Context(), annals.ChatRef{ID: "absent"}, annals.ChatUpdate{Title: ptr("x")})
	wantCode(t, "UpdateChat(absent)", err, annals.ENOTFOUND)
	if _, err := s.FindChatByID(t.Context(), "absent"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("FindChatByID(absent) after updating it: err %v, want not_found (an update must not create a chat)", err)
	}
}

func testUpdateInvalid(t *testing.T, s Store) {
	before := mustCreateChat(t, s, fullChat("c1"))
	cases := []struct {
		name string
		upd  annals.ChatUpdate
	}{
		{"an empty tag", annals.ChatUpdate{Title: ptr("changed"), Tags: &[]string{"ok", ""}}},
		{"a tag with a newline", annals.ChatUpdate{Tags: &[]string{"a\nb"}}},
		{"an invalid UTF-8 title", annals.ChatUpdate{Title: ptr("bad\xff")}},
	}
	for _, tc := range cases {
		_, err := s.UpdateChat(t.Context(), before.Ref(), tc.upd)
		wantCode(t, "UpdateChat with "+tc.name, err, annals.EINVALID)
	}
	wantSameChat(t, "chat after invalid updates", mustChat(t, s, "c1"), before)
}
