package storetest

import (
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

func appendTests() []test {
	return []test{
		{"AssignsContiguousSeqFromOne", testAppendAssignsSeq},
		{"AppendSameBatchTwiceChangesNothing", testAppendSameBatchTwice},
		{"MixedBatchAppendsOnlyNewEntriesContiguously", testAppendMixedBatch},
		{"RepeatedIDInsideOneBatchIsStoredOnce", testAppendRepeatedIDInBatch},
		{"AppendToMissingChatIsNotFound", testAppendMissingChat},
		{"InvalidEntryRejectsWholeAppend", testAppendInvalidEntry},
		{"EntriesRoundTripEveryField", testAppendRoundTrip},
		{"UpdatesEntryCountAndTokenTotals", testAppendTotals},
		{"AdvancesLastActivity", testAppendLastActivity},
	}
}

func findEntriesTests() []test {
	return []test{
		{"PagesBySeq", testFindEntriesPaging},
		{"FiltersByKind", testFindEntriesKinds},
		{"MissingChatGivesNoEntries", testFindEntriesMissingChat},
	}
}

func testAppendAssignsSeq(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	res := mustAppend(t, s, "c1", Entries("a", 5)...)
	if res.Appended != 5 || res.Skipped != 0 || res.LastSeq != 5 {
		t.Errorf("first append = %+v, want appended 5, skipped 0, last seq 5", *res)
	}
	res = mustAppend(t, s, "c1", Entries("b", 3)...)
	if res.Appended != 3 || res.Skipped != 0 || res.LastSeq != 8 {
		t.Errorf("second append = %+v, want appended 3, skipped 0, last seq 8", *res)
	}
	got := mustEntries(t, s, "c1")
	wantTranscript(t, got, "a-1", "a-2", "a-3", "a-4", "a-5", "b-1", "b-2", "b-3")
	for _, e := range got {
		if e.ChatID != "c1" {
			t.Errorf("entry %q ChatID = %q, want %q", e.ID, e.ChatID, "c1")
		}
	}
}

func testAppendSameBatchTwice(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	mustAppend(t, s, "c1", Entries("a", 4)...)
	chatBefore := mustChat(t, s, "c1")
	entriesBefore := mustEntries(t, s, "c1")

	res := mustAppend(t, s, "c1", Entries("a", 4)...)
	if res.Appended != 0 || res.Skipped != 4 || res.LastSeq != 4 {
		t.Errorf("repeated append = %+v, want appended 0, skipped 4, last seq 4", *res)
	}
	wantSameEntries(t, "entries after the repeated append", mustEntries(t, s, "c1"), entriesBefore)
	wantSameChat(t, "chat after the repeated append", mustChat(t, s, "c1"), chatBefore)
}

func testAppendMixedBatch(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	old := Entries("old", 3)
	mustAppend(t, s, "c1", old...)

	// Already-stored ids interleaved with new ones; the repeated old-2 carries different text,
	// which must not overwrite the stored entry: the first write of an id wins.
	changed := TextEntry("old-2", annals.KindUser, "rewritten text that must be ignored")
	batch := []*annals.Entry{
		Entries("old", 1)[0],
		TextEntry("new-1", annals.KindUser, "first new"),
		changed,
		TextEntry("new-2", annals.KindAssistant, "second new"),
	}
	res := mustAppend(t, s, "c1", batch...)
	if res.Appended != 2 || res.Skipped != 2 || res.LastSeq != 5 {
		t.Errorf("mixed append = %+v, want appended 2, skipped 2, last seq 5", *res)
	}
	got := mustEntries(t, s, "c1")
	wantTranscript(t, got, "old-1", "old-2", "old-3", "new-1", "new-2")
	if len(got) == 5 && got[1].Text != "old entry 2" {
		t.Errorf("old-2 text = %q after a repeated append, want the original %q", got[1].Text, "old entry 2")
	}
	if c := mustChat(t, s, "c1"); c.Totals.Entries != 5 {
		t.Errorf("Totals.Entries = %d, want 5", c.Totals.Entries)
	}
}

func testAppendRepeatedIDInBatch(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	res := mustAppend(t, s, "c1",
		TextEntry("x", annals.KindUser, "one"),
		TextEntry("y", annals.KindAssistant, "two"),
		TextEntry("x", annals.KindUser, "one again"),
	)
	if res.Appended != 2 || res.Skipped != 1 || res.LastSeq != 2 {
		t.Errorf("append with a repeated id = %+v, want appended 2, skipped 1, last seq 2", *res)
	}
	wantTranscript(t, mustEntries(t, s, "c1"), "x", "y")
}

func testAppendMissingChat(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("present", "tenant-a"))
	_, err := annals.AppendEntries(t.Context(), s, "absent", Entries("a", 2))
	wantCode(t, "AppendEntries(absent)", err, annals.ENOTFOUND)
	if got := mustEntries(t, s, "absent"); len(got) != 0 {
		t.Errorf("entries of the missing chat = %q, want none", entryIDs(got))
	}
	if _, err := s.FindChatByID(t.Context(), "absent"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("FindChatByID(absent) after an append to it: err %v, want not_found (an append must not create a chat)", err)
	}
}

func testAppendInvalidEntry(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	bad := TextEntry("bad", "thought", "unknown kind")
	_, err := annals.AppendEntries(t.Context(), s, "c1", []*annals.Entry{TextEntry("good", annals.KindUser, "fine"), bad})
	wantCode(t, "AppendEntries with an unknown kind", err, annals.EINVALID)

	noTool := &annals.Entry{ID: "tool-without-call", Kind: annals.KindTool, Time: BaseTime}
	_, err = annals.AppendEntries(t.Context(), s, "c1", []*annals.Entry{TextEntry("good", annals.KindUser, "fine"), noTool})
	wantCode(t, "AppendEntries with a tool entry lacking its call", err, annals.EINVALID)

	if got := mustEntries(t, s, "c1"); len(got) != 0 {
		t.Errorf("entries after rejected appends = %q, want none (the valid entry of a rejected batch must not be stored)", entryIDs(got))
	}
	if c := mustChat(t, s, "c1"); c.Totals.Entries != 0 {
		t.Errorf("Totals.Entries after rejected appends = %d, want 0", c.Totals.Entries)
	}
}

// roundTripEntries covers every entry field and kind. Times are in a non-UTC zone with
// millisecond precision: the store must return the same instant, in UTC.
func roundTripEntries() []*annals.Entry {
	zone := time.FixedZone("UTC+2", 2*60*60)
	when := time.Date(2025, 1, 2, 3, 4, 5, 678_000_000, zone)
	return []*annals.Entry{
		{
			ID: "rt-user", Kind: annals.KindUser, RunID: "run-1",
			SourceIDs: []string{"msg-b", "msg-a"}, Channel: "in/agent/main", CorrelationID: "corr-1",
			Time: when, Text: "hello, wörld ✓ \"quoted\" and \\ backslash\n  second line  ",
			InputTokens: 12,
			Metadata:    []byte(`{"model": "m-1", "nested": {"k": [1, 2, 3]}, "flag": true, "s": "a\"b"}`),
		},
		{
			ID: "rt-assistant", Kind: annals.KindAssistant, RunID: "run-1",
			Time: when.Add(1500 * time.Millisecond), Text: "the answer", Reasoning: "thinking it over",
			InputTokens: 3, OutputTokens: 40,
		},
		{
			ID: "rt-tool", Kind: annals.KindTool, RunID: "run-1", Channel: "tool/read_file",
			CorrelationID: "corr-2", Time: when.Add(2001 * time.Millisecond),
			Tool: &annals.ToolCall{
				Name: "read_file", CallID: "call-7",
				Arguments: []byte(`{"path": "/etc/hosts", "limit": 10, "opts": {"follow": false}}`),
				Result:    "127.0.0.1 localhost\n",
				Outcome:   annals.OutcomeFailed,
			},
			OutputTokens: 5,
		},
		{ID: "rt-system", Kind: annals.KindSystem, Time: when.Add(3 * time.Second), Text: "multi\nline\ttext"},
		{
			ID: "rt-event", Kind: annals.KindEvent, Channel: "out/agent/main/x", Time: when.Add(4 * time.Second),
			Metadata: []byte(`{"event": "handoff"}`),
		},
	}
}

func testAppendRoundTrip(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	in := roundTripEntries()
	want := make([]*annals.Entry, len(in))
	for i, e := range in {
		want[i] = cloneEntry(e)
		want[i].ChatID, want[i].Seq = "c1", int64(i+1)
	}
	mustAppend(t, s, "c1", in...)

	got := mustEntries(t, s, "c1")
	wantSameEntries(t, "entries read back", got, want)
	for _, e := range got {
		if e.Time.Location() != time.UTC {
			t.Errorf("entry %q Time location = %v, want UTC", e.ID, e.Time.Location())
		}
	}
}

func testAppendTotals(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	es := Entries("a", 3)
	es[0].InputTokens, es[1].OutputTokens, es[2].InputTokens, es[2].OutputTokens = 10, 20, 1, 2
	mustAppend(t, s, "c1", es...)
	wantTotals(t, "after append", mustChat(t, s, "c1").Totals, annals.Totals{Entries: 3, InputTokens: 11, OutputTokens: 22})

	// Skipped entries count nothing, even when their repeat carries other token numbers. The
	// batch also appends a new entry, so the counters are written, not left alone wholesale.
	again := Entries("a", 4)
	again[0].InputTokens, again[1].OutputTokens, again[3].InputTokens = 1000, 1000, 100
	mustAppend(t, s, "c1", again...)
	wantTotals(t, "after a partly repeated append", mustChat(t, s, "c1").Totals, annals.Totals{Entries: 4, InputTokens: 111, OutputTokens: 22})

	// FindChats rows carry the same counters as FindChatByID.
	cs, _ := mustFindChats(t, s, annals.ChatFilter{Owner: tenant("tenant-a")})
	if len(cs) != 1 {
		t.Fatalf("FindChats returned %d chats, want 1", len(cs))
	}
	wantTotals(t, "FindChats row", cs[0].Totals, annals.Totals{Entries: 4, InputTokens: 111, OutputTokens: 22})
}

func testAppendLastActivity(t *testing.T, s Store) {
	created := mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	tick()
	// The entry's own time is an hour ahead, so the activity advances whether the store stamps
	// the write time or the entry time.
	e := TextEntry("e1", annals.KindUser, "hello")
	e.Time = time.Now().Add(time.Hour).Truncate(time.Millisecond)
	mustAppend(t, s, "c1", e)
	if got := mustChat(t, s, "c1").LastActivity; !got.After(created.LastActivity) {
		t.Errorf("LastActivity after append = %v, want after the creation's %v", got, created.LastActivity)
	}
}

func testFindEntriesPaging(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	mustAppend(t, s, "c1", Entries("e", 6)...)
	cases := []struct {
		name   string
		filter annals.EntryFilter
		want   []string
	}{
		{"all", annals.EntryFilter{ChatID: "c1"}, []string{"e-1", "e-2", "e-3", "e-4", "e-5", "e-6"}},
		{"after seq 2", annals.EntryFilter{ChatID: "c1", AfterSeq: 2}, []string{"e-3", "e-4", "e-5", "e-6"}},
		{"seq 2 to 4", annals.EntryFilter{ChatID: "c1", FromSeq: 2, ToSeq: 4}, []string{"e-2", "e-3", "e-4"}},
		{"limit 2", annals.EntryFilter{ChatID: "c1", Limit: 2}, []string{"e-1", "e-2"}},
		{"after seq 2 limit 2", annals.EntryFilter{ChatID: "c1", AfterSeq: 2, Limit: 2}, []string{"e-3", "e-4"}},
		{"after the last seq", annals.EntryFilter{ChatID: "c1", AfterSeq: 6}, nil},
	}
	for _, tc := range cases {
		wantIDs(t, "FindEntries "+tc.name, entryIDs(mustFindEntries(t, s, tc.filter)), tc.want)
	}
}

func testFindEntriesMissingChat(t *testing.T, s Store) {
	got, err := s.FindEntries(t.Context(), annals.EntryFilter{ChatID: "absent"})
	if err != nil {
		t.Fatalf("FindEntries(absent): %v, want no error and no entries", err)
	}
	if len(got) != 0 {
		t.Errorf("FindEntries(absent) = %q, want none", entryIDs(got))
	}
}

func testFindEntriesKinds(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	mustAppend(t, s, "c1",
		TextEntry("u1", annals.KindUser, "question"),
		TextEntry("a1", annals.KindAssistant, "answer"),
		ToolEntry("t1", "grep", `{"q": "x"}`, "found"),
		TextEntry("u2", annals.KindUser, "follow-up"),
	)
	wantIDs(t, "FindEntries kind tool", entryIDs(mustFindEntries(t, s, annals.EntryFilter{ChatID: "c1", Kinds: []annals.EntryKind{annals.KindTool}})), []string{"t1"})
	wantIDs(t, "FindEntries kinds user, assistant",
		entryIDs(mustFindEntries(t, s, annals.EntryFilter{ChatID: "c1", Kinds: []annals.EntryKind{annals.KindUser, annals.KindAssistant}})),
		[]string{"u1", "a1", "u2"})
	// Seq stays the transcript position, not the position in the filtered page.
	if got := mustFindEntries(t, s, annals.EntryFilter{ChatID: "c1", Kinds: []annals.EntryKind{annals.KindUser}}); len(got) == 2 && got[1].Seq != 4 {
		t.Errorf("u2 seq in a kind-filtered page = %d, want 4", got[1].Seq)
	}
	// An unknown kind is refused, never read as "no kind filter" or silently as "nothing".
	_, err := s.FindEntries(t.Context(), annals.EntryFilter{ChatID: "c1", Kinds: []annals.EntryKind{"thought"}})
	wantCode(t, "FindEntries with kind \"thought\"", err, annals.EINVALID)
}
