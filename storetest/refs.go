package storetest

import (
	"testing"

	annals "github.com/annals-dev/annals"
)

// refTests prove that every by-id write (and a bound read) lands only on the chat its caller
// checked: the same id with another owner, or a chat created again under the id after a
// delete, is not found and left exactly as it is.
func refTests() []test {
	return []test{
		{"UpdateAndDeleteNeedTheOwnerAndIncarnationAsFetched", testRefBindsUpdateAndDelete},
		{"ACaptureOpBoundToAnOwnerLandsOnlyOnIt", testExpectBindsCapture},
		{"ABoundReadOfAReplacedChatIsEmpty", testRefBindsEntries},
		{"ARecreatedChatHasANewIncarnation", testRecreatedIncarnation},
	}
}

func testRefBindsUpdateAndDelete(t *testing.T, s Store) {
	orig := mustCreateChat(t, s, &annals.Chat{ID: "x", TenantID: "A", UserID: "u1", AgentID: "g1", Title: "A's"})
	stale := orig.Ref()
	for name, ref := range map[string]annals.ChatRef{
		"another tenant":      {ID: "x", Owner: annals.ChatOwner{TenantID: "B", UserID: "u1", AgentID: "g1"}, Incarnation: stale.Incarnation},
		"another user":        {ID: "x", Owner: annals.ChatOwner{TenantID: "A", UserID: "u2", AgentID: "g1"}, Incarnation: stale.Incarnation},
		"another agent":       {ID: "x", Owner: annals.ChatOwner{TenantID: "A", UserID: "u1"}, Incarnation: stale.Incarnation},
		"another incarnation": {ID: "x", Owner: stale.Owner, Incarnation: stale.Incarnation + 1},
	} {
		_, err := s.UpdateChat(t.Context(), ref, annals.ChatUpdate{Title: ptr("changed"), Pinned: ptr(true)})
		wantCode(t, "UpdateChat with "+name, err, annals.ENOTFOUND)
		wantCode(t, "DeleteChat with "+name, s.DeleteChat(t.Context(), ref), annals.ENOTFOUND)
	}
	wantSameChat(t, "chat after mismatched writes", mustChat(t, s, "x"), orig)

	// Deleted and created again by another tenant: the first owner's reference reaches nothing.
	if err := s.DeleteChat(t.Context(), stale); err != nil {
		t.Fatal(err)
	}
	theirs := mustCreateChat(t, s, &annals.Chat{ID: "x", TenantID: "B", UserID: "u1", AgentID: "g1", Title: "B's"})
	_, err := s.UpdateChat(t.Context(), stale, annals.ChatUpdate{Summary: ptr("written by A")})
	wantCode(t, "UpdateChat through the deleted chat's reference", err, annals.ENOTFOUND)
	wantCode(t, "UpsertEmbedding through the deleted chat's reference", s.UpsertEmbedding(t.Context(), stale, "m", []float32{1, 0}, 0), annals.ENOTFOUND)
	if vs, err := s.FindEmbeddings(t.Context(), annals.EmbeddingFilter{Owner: allTenants, Model: "m", IncludeArchived: true}); err != nil || len(vs) != 0 {
		t.Errorf("B's chat got A's vector: %d vectors, %v", len(vs), err)
	}
	wantCode(t, "DeleteChat through the deleted chat's reference", s.DeleteChat(t.Context(), stale), annals.ENOTFOUND)
	wantSameChat(t, "B's chat", mustChat(t, s, "x"), theirs)
}

func testExpectBindsCapture(t *testing.T, s Store) {
	mustCreateChat(t, s, &annals.Chat{ID: "x", TenantID: "B", UserID: "ub", AgentID: "g"})
	mustAppend(t, s, "x", TextEntry("b1", annals.KindUser, "B's words"))
	checked := &annals.ChatOwner{TenantID: "A", UserID: "ua", AgentID: "g"}
	for name, op := range map[string]annals.CaptureOp{
		"append":   {Append: &annals.AppendOp{ChatID: "x", Entries: []*annals.Entry{TextEntry("a1", annals.KindUser, "A's words")}}, Expect: checked},
		"truncate": {Truncate: &annals.TruncateOp{ChatID: "x", Point: annals.TruncatePoint{Seq: 1}}, Expect: checked},
		"run":      {Run: NewRun("r-a", "x", annals.StatusFailed, runStart), Expect: checked},
	} {
		_, err := s.Capture(t.Context(), []annals.CaptureOp{op})
		wantCode(t, name+" bound to another owner", err, annals.ENOTFOUND)
	}
	wantTranscript(t, mustEntries(t, s, "x"), "b1")
	if rs := mustRuns(t, s, "x"); len(rs) != 0 {
		t.Errorf("runs of x = %d, want none", len(rs))
	}
	// Bound to its real owner, the same op goes through.
	own := annals.CaptureOp{Append: &annals.AppendOp{ChatID: "x", Entries: []*annals.Entry{TextEntry("b2", annals.KindAssistant, "more")}}, Expect: &annals.ChatOwner{TenantID: "B", UserID: "ub", AgentID: "g"}}
	if _, err := s.Capture(t.Context(), []annals.CaptureOp{own}); err != nil {
		t.Fatalf("append bound to the chat's own owner: %v", err)
	}
	wantTranscript(t, mustEntries(t, s, "x"), "b1", "b2")
}

func testRefBindsEntries(t *testing.T, s Store) {
	orig := mustCreateChat(t, s, NewChat("x", "A"))
	mustAppend(t, s, "x", TextEntry("a1", annals.KindUser, "A's words"))
	ref := orig.Ref()
	es, err := s.FindEntries(t.Context(), annals.EntryFilter{ChatID: "x", Ref: &ref})
	if err != nil || len(es) != 1 {
		t.Fatalf("bound read of the chat as fetched: %d entries, %v; want 1", len(es), err)
	}
	if err := s.DeleteChat(t.Context(), ref); err != nil {
		t.Fatal(err)
	}
	mustCreateChat(t, s, NewChat("x", "B"))
	mustAppend(t, s, "x", TextEntry("b1", annals.KindUser, "B's words"))
	es, err = s.FindEntries(t.Context(), annals.EntryFilter{ChatID: "x", Ref: &ref})
	if err != nil || len(es) != 0 {
		t.Errorf("bound read after the chat was replaced: %d entries, %v; want none", len(es), err)
	}
}

func testRecreatedIncarnation(t *testing.T, s Store) {
	first := mustCreateChat(t, s, NewChat("x", "A"))
	again, err := annals.CreateChat(t.Context(), s, NewChat("x", "A"))
	if err != nil {
		t.Fatal(err)
	}
	if again.Incarnation != first.Incarnation {
		t.Errorf("an idempotent create changed the incarnation: %d then %d", first.Incarnation, again.Incarnation)
	}
	if err := s.DeleteChat(t.Context(), first.Ref()); err != nil {
		t.Fatal(err)
	}
	second := mustCreateChat(t, s, NewChat("x", "A"))
	if second.Incarnation == first.Incarnation {
		t.Errorf("a chat created again after a delete kept incarnation %d: a stale reference would reach it", first.Incarnation)
	}
}
