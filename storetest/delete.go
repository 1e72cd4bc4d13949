package storetest

import (
	"testing"

	annals "github.com/annals-dev/annals"
)

func deleteTests() []test {
	return []test{
		{"RemovesChatEntriesRunsAndIndexRows", testDeleteRemovesAll},
		{"MissingChatIsNotFound", testDeleteMissing},
		{"DeletedIDCanBeCreatedAfresh", testDeleteThenRecreate},
	}
}

func testDeleteRemovesAll(t *testing.T, s Store) {
	doomed := NewChat("doomed", "A")
	doomed.Title, doomed.Tags = "wombattitle", []string{"wombattag"}
	mustCreateChat(t, s, doomed)
	mustAppend(t, s, "doomed",
		TextEntry("d1", annals.KindUser, "wombatword sharedword"),
		ToolEntry("d2", "wombattool", `{"q":"wombatarg"}`, "wombatresult"),
	)
	mustRecordRun(t, s, NewRun("r1", "doomed", annals.StatusRunning, runStart))
	mustUpdate(t, s, "doomed", annals.ChatUpdate{Summary: ptr("wombatsummary")})

	keep := NewChat("keep", "A")
	keep.Title = "sharedword kept"
	mustCreateChat(t, s, keep)
	mustAppend(t, s, "keep", TextEntry("k1", annals.KindUser, "sharedword stays"))

	if err := s.DeleteChat(t.Context(), refOf(t, s, "doomed")); err != nil {
		t.Fatalf("DeleteChat(doomed): %v", err)
	}
	if _, err := s.FindChatByID(t.Context(), "doomed"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("FindChatByID(doomed) after delete: err %v, want not_found", err)
	}
	if es := mustEntries(t, s, "doomed"); len(es) != 0 {
		t.Errorf("entries of the deleted chat = %q, want none", entryIDs(es))
	}
	if rs := mustRuns(t, s, "doomed"); len(rs) != 0 {
		t.Errorf("runs of the deleted chat = %d, want none", len(rs))
	}
	wantChatSet(t, s, "chats after delete", annals.ChatFilter{Owner: allTenants, IncludeArchived: true}, "keep")

	// No ghost hits: every field of the deleted chat has left both indexes.
	for _, term := range []string{"wombatword", "wombattool", "wombatarg", "wombatresult"} {
		wantRefs(t, "MatchEntries("+term+") after delete", mustMatchEntries(t, s, allTenants, term), nil)
	}
	for _, term := range []string{"wombattitle", "wombattag", "wombatsummary"} {
		wantIDs(t, "MatchChats("+term+") after delete", mustMatchChats(t, s, allTenants, term), nil)
	}
	// The other chat is untouched.
	wantRefs(t, "MatchEntries(sharedword) after delete", mustMatchEntries(t, s, allTenants, "sharedword"), []annals.EntryRef{ref("keep", 1)})
	wantIDs(t, "MatchChats(sharedword) after delete", mustMatchChats(t, s, allTenants, "sharedword"), []string{"keep"})
	wantTranscript(t, mustEntries(t, s, "keep"), "k1")
}

func testDeleteMissing(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	wantCode(t, "DeleteChat(absent)", s.DeleteChat(t.Context(), annals.ChatRef{ID: "absent"}), annals.ENOTFOUND)
	c1 := refOf(t, s, "c1")
	if err := s.DeleteChat(t.Context(), c1); err != nil {
		t.Fatalf("DeleteChat(c1): %v", err)
	}
	wantCode(t, "DeleteChat(c1) a second time", s.DeleteChat(t.Context(), c1), annals.ENOTFOUND)
}

func testDeleteThenRecreate(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	mustAppend(t, s, "c1", Entries("old", 3)...)
	mustRecordRun(t, s, NewRun("r1", "c1", annals.StatusCompleted, runStart))
	if err := s.DeleteChat(t.Context(), refOf(t, s, "c1")); err != nil {
		t.Fatalf("DeleteChat(c1): %v", err)
	}
	// A hard delete leaves nothing to conflict with: the id may now belong to another tenant,
	// its transcript starts at seq 1 and the old run id is free.
	c, err := annals.CreateChat(t.Context(), s, NewChat("c1", "B"))
	if err != nil {
		t.Fatalf("CreateChat(c1) in another tenant after delete: %v, want no error", err)
	}
	wantTotals(t, "recreated chat", c.Totals, annals.Totals{})
	res := mustAppend(t, s, "c1", Entries("old", 1)...)
	if res.Appended != 1 || res.LastSeq != 1 {
		t.Errorf("append to the recreated chat = %+v, want appended 1, last seq 1", *res)
	}
	mustRecordRun(t, s, NewRun("r1", "c1", annals.StatusRunning, runStart))
	if got := mustChat(t, s, "c1"); got.Status != annals.StatusRunning || got.Totals.Runs != 1 {
		t.Errorf("recreated chat status %q with %d runs, want running with 1", got.Status, got.Totals.Runs)
	}
}
