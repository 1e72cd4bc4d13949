package storetest

import (
	"errors"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// badOp is one way for the middle op of a batch to fail, and the code it must fail with.
type badOp struct {
	name string
	op   annals.CaptureOp
	code string
}

// badOps fail at different stages: some at validation, some only once the transaction has
// already written the earlier ops (a missing chat or truncation point is found by a query).
// Every one of them must roll back the ops before it.
func badOps() []badOp {
	return []badOp{
		{"UnknownEntryKind", annals.CaptureOp{Append: &annals.AppendOp{ChatID: "pre", Entries: []*annals.Entry{
			TextEntry("bad-kind", "thought", "an entry of an unknown kind"),
		}}}, annals.EINVALID},
		{"AppendToMissingChat", annals.CaptureOp{Append: &annals.AppendOp{ChatID: "absent", Entries: Entries("absent", 1)}}, annals.ENOTFOUND},
		{"TruncateToMissingPoint", annals.CaptureOp{Truncate: &annals.TruncateOp{ChatID: "pre", Point: annals.TruncatePoint{EntryID: "no-such-entry"}}}, annals.ENOTFOUND},
		{"RunForMissingChat", annals.CaptureOp{Run: NewRun("r-absent", "absent", annals.StatusRunning, BaseTime)}, annals.ENOTFOUND},
		{"ConflictingChat", annals.CaptureOp{Chat: NewChat("pre", "tenant-other")}, annals.ECONFLICT},
		{"EmptyOp", annals.CaptureOp{}, annals.EINVALID},
	}
}

func captureTests() []test {
	tests := []test{
		{"AppliesOpsInOrderAndCountsThem", testCaptureAppliesInOrder},
		{"TruncateToMissingPointNamesIt", testTruncateToMissingPointNamesIt},
		{"CountsAreNetOfTheBatchItself", testCaptureCountsNet},
		{"OneOpBatchAnswersWhatItStored", testCaptureOneOpAnswersWhatItStored},
	}
	for _, b := range badOps() {
		tests = append(tests, test{
			name: "BatchWith" + b.name + "CommitsNothing",
			fn:   func(t *testing.T, s Store) { testCaptureRollsBack(t, s, b) },
		})
	}
	return tests
}

func testCaptureAppliesInOrder(t *testing.T, s Store) {
	// Later ops see earlier ones inside the same transaction: the append needs the chat created
	// just before it, the truncation needs the appended entries.
	first := Entries("e", 3)
	second := append(Entries("e", 3), TextEntry("e-4", annals.KindUser, "fourth"))
	ops := []annals.CaptureOp{
		{Chat: NewChat("c1", "tenant-a")},
		{Append: &annals.AppendOp{ChatID: "c1", Entries: first}},
		{Append: &annals.AppendOp{ChatID: "c1", Entries: second}},
		{Truncate: &annals.TruncateOp{ChatID: "c1", Point: annals.TruncatePoint{Seq: 4}}},
		{Run: NewRun("r1", "c1", annals.StatusCompleted, BaseTime)},
		{Chat: NewChat("c1", "tenant-a")},
	}
	res, err := s.Capture(t.Context(), ops)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	// LastSeq is what the last append or truncate (the rewind to seq 4) left. The counts are net
	// of the batch itself: e-4, appended and rewound by it, is neither appended nor removed.
	want := annals.CaptureResult{ChatsCreated: 1, ChatsUnchanged: 1, EntriesAppended: 3, EntriesSkipped: 3, EntriesRemoved: 0, RunsRecorded: 1, LastSeq: 3}
	if *res != want {
		t.Errorf("Capture result = %+v, want %+v", *res, want)
	}
	wantTranscript(t, mustEntries(t, s, "c1"), "e-1", "e-2", "e-3")
	c := mustChat(t, s, "c1")
	wantTotals(t, "chat after the batch", c.Totals, annals.Totals{Runs: 1, Entries: 3})
	if c.Status != annals.StatusCompleted {
		t.Errorf("Status = %q, want %q", c.Status, annals.StatusCompleted)
	}
}

// testCaptureRollsBack runs a batch whose op 3 (of 5) is bad, after ops that create a chat,
// append to it and append to a pre-existing chat, and before one that records a run. Nothing of
// it may remain: rows, counters, derived status or full-text index rows.
func testCaptureRollsBack(t *testing.T, s Store, bad badOp) {
	pre := NewChat("pre", "tenant-a")
	pre.Title = "heron notes"
	mustCreateChat(t, s, pre)
	mustAppend(t, s, "pre",
		TextEntry("p1", annals.KindUser, "heronword first"),
		TextEntry("p2", annals.KindAssistant, "heronword second"),
	)
	chatBefore := mustChat(t, s, "pre")
	entriesBefore := mustEntries(t, s, "pre")
	heronEntries := mustMatchEntries(t, s, allTenants, "heronword")
	heronChats := mustMatchChats(t, s, allTenants, "heron")
	if len(heronEntries) != 2 || len(heronChats) != 1 {
		t.Fatalf("setup: heronword matches %v and heron chats %q, want 2 entries and 1 chat", heronEntries, heronChats)
	}

	created := NewChat("batch-new", "tenant-a")
	created.Title = "zanzibarword plans"
	ops := []annals.CaptureOp{
		{Chat: created},
		{Append: &annals.AppendOp{ChatID: "batch-new", Entries: []*annals.Entry{
			TextEntry("n1", annals.KindUser, "quokkaword in the new chat"),
		}}},
		{Append: &annals.AppendOp{ChatID: "pre", Entries: []*annals.Entry{
			TextEntry("p3", annals.KindUser, "quokkaword in the old chat"),
		}}},
		bad.op,
		{Run: NewRun("r-batch", "pre", annals.StatusRunning, time.Now().Add(time.Hour))},
	}
	_, err := s.Capture(t.Context(), ops)
	wantBatchError(t, err, 3, bad.code)

	if _, err := s.FindChatByID(t.Context(), "batch-new"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("FindChatByID(batch-new) after the failed batch: err %v, want not_found (the chat must not be created)", err)
	}
	if got := mustEntries(t, s, "batch-new"); len(got) != 0 {
		t.Errorf("entries of batch-new = %q, want none", entryIDs(got))
	}
	wantSameEntries(t, "pre's entries after the failed batch", mustEntries(t, s, "pre"), entriesBefore)
	wantSameChat(t, "pre after the failed batch", mustChat(t, s, "pre"), chatBefore)
	if runs := mustRuns(t, s, "pre"); len(runs) != 0 {
		t.Errorf("pre has %d runs after the failed batch, want 0", len(runs))
	}
	if _, total := findChatIDs(t, s, annals.ChatFilter{Owner: allTenants, IncludeArchived: true}); total != 1 {
		t.Errorf("chats stored after the failed batch = %d, want 1", total)
	}

	// The full-text index is written in the same transaction: nothing of the batch is found,
	// and what was found before still is.
	wantRefs(t, "MatchEntries(quokkaword) after the failed batch", mustMatchEntries(t, s, allTenants, "quokkaword"), nil)
	wantIDs(t, "MatchChats(zanzibarword) after the failed batch", mustMatchChats(t, s, allTenants, "zanzibarword"), nil)
	wantRefs(t, "MatchEntries(heronword) after the failed batch", mustMatchEntries(t, s, allTenants, "heronword"), heronEntries)
	wantIDs(t, "MatchChats(heron) after the failed batch", mustMatchChats(t, s, allTenants, "heron"), heronChats)

	// The store is still usable, and the rolled-back ids are free: the same good ops, without
	// the bad one, now apply in full.
	good := append(ops[:3:3], ops[4])
	if _, err := s.Capture(t.Context(), good); err != nil {
		t.Fatalf("Capture of the batch without its bad op: %v", err)
	}
	wantTranscript(t, mustEntries(t, s, "pre"), "p1", "p2", "p3")
	wantTranscript(t, mustEntries(t, s, "batch-new"), "n1")
	wantRefs(t, "MatchEntries(quokkaword) after the good batch", mustMatchEntries(t, s, allTenants, "quokkaword"),
		[]annals.EntryRef{ref("batch-new", 1), ref("pre", 3)})
}

// testTruncateToMissingPointNamesIt checks the error of a truncation point the chat does not
// hold: it names the chat and the point, in a sentence.
func testTruncateToMissingPointNamesIt(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	mustAppend(t, s, "c1", TextEntry("e-1", annals.KindUser, "first"))
	for _, c := range []struct {
		point annals.TruncatePoint
		want  string
	}{
		{annals.TruncatePoint{EntryID: "nope"}, `chat "c1" has no entry with id "nope" to truncate from`},
		{annals.TruncatePoint{SourceID: "src-9"}, `chat "c1" has no entry with source id "src-9" to truncate from`},
		{annals.TruncatePoint{Seq: 7}, `chat "c1" has no entry at seq 7 to truncate from`},
	} {
		_, err := annals.TruncateChat(t.Context(), s, "c1", c.point)
		wantCode(t, "TruncateChat to a missing point", err, annals.ENOTFOUND)
		var ae *annals.Error
		if !errors.As(err, &ae) || ae.Message != c.want {
			t.Errorf("TruncateChat(%+v): %v, want the message %q", c.point, err, c.want)
		}
	}
}

// testCaptureCountsNet checks that a batch's counts are net of itself: a rewind of entries the
// same batch appended counts neither, a rewind into entries from before the batch counts those
// as removed, and replaying a batch that appended and rewound reports nothing.
func testCaptureCountsNet(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	mustAppend(t, s, "c1", TextEntry("old-1", annals.KindUser, "one"), TextEntry("old-2", annals.KindAssistant, "two"))
	replay := []annals.CaptureOp{
		{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{TextEntry("new-1", annals.KindUser, "three"), TextEntry("new-2", annals.KindAssistant, "four")}}},
		{Truncate: &annals.TruncateOp{ChatID: "c1", Point: annals.TruncatePoint{EntryID: "new-2"}}},
		{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{TextEntry("new-3", annals.KindAssistant, "four, again")}}},
	}
	for i, want := range []annals.CaptureResult{
		{EntriesAppended: 2, LastSeq: 4},
		{EntriesAppended: 0, EntriesSkipped: 2, LastSeq: 4}, // new-2 comes back, and goes again
	} {
		res, err := s.Capture(t.Context(), replay)
		if err != nil {
			t.Fatalf("Capture %d: %v", i+1, err)
		}
		if *res != want {
			t.Errorf("Capture %d = %+v, want %+v", i+1, *res, want)
		}
		wantTranscript(t, mustEntries(t, s, "c1"), "old-1", "old-2", "new-1", "new-3")
	}
	// A rewind into the entries from before the batch removes those, and only those count.
	res, err := s.Capture(t.Context(), []annals.CaptureOp{
		{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{TextEntry("new-4", annals.KindUser, "five")}}},
		{Truncate: &annals.TruncateOp{ChatID: "c1", Point: annals.TruncatePoint{EntryID: "old-2"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (annals.CaptureResult{EntriesAppended: 0, EntriesRemoved: 3, LastSeq: 1}); *res != want {
		t.Errorf("rewind into older entries = %+v, want %+v", *res, want)
	}
	wantTranscript(t, mustEntries(t, s, "c1"), "old-1")
}

// A batch of one chat op or one run op answers the chat or the run as stored after it (what
// annals.CreateChat and annals.RecordRun return); a larger batch answers counts only.
func testCaptureOneOpAnswersWhatItStored(t *testing.T, s Store) {
	ctx := t.Context()
	chat := NewChat("c1", "A")
	chat.Tags = []string{"b", "a"}
	res, err := s.Capture(ctx, []annals.CaptureOp{{Chat: chat}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chat == nil {
		t.Fatal("a one-chat-op batch answered no chat")
	}
	wantSameChat(t, "the chat a one-op batch answered", res.Chat, mustChat(t, s, "c1"))
	run := NewRun("r1", "c1", annals.StatusCompleted, runStart)
	run.InputTokens = 12
	res, err = s.Capture(ctx, []annals.CaptureOp{{Run: run}})
	if err != nil {
		t.Fatal(err)
	}
	runs := mustRuns(t, s, "c1")
	if res.Run == nil || len(runs) != 1 || res.Run.ID != "r1" || res.Run.InputTokens != 12 || !res.Run.StartedAt.Equal(runs[0].StartedAt) {
		t.Fatalf("a one-run-op batch answered %+v, want the stored %+v", res.Run, runs)
	}
	res, err = s.Capture(ctx, []annals.CaptureOp{{Chat: NewChat("c2", "A")}, {Run: NewRun("r2", "c2", annals.StatusRunning, runStart)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chat != nil || res.Run != nil || res.ChatsCreated != 1 || res.RunsRecorded != 1 {
		t.Errorf("a two-op batch answered %+v, want counts only", res)
	}
}
