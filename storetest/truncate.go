package storetest

import (
	"fmt"
	"testing"

	annals "github.com/annals-dev/annals"
)

func truncateTests() []test {
	return []test{
		{"ByEntryIDRemovesThatEntryAndAllAfter", testTruncateByEntryID},
		{"BySourceIDStartsAtFirstEntryCarryingIt", testTruncateBySourceID},
		{"BySeqRemovesThatSeqAndAllAfter", testTruncateBySeq},
		{"AtFirstEntryEmptiesTranscript", testTruncateAll},
		{"LaterAppendsContinueFromNewLastSeq", testTruncateThenAppend},
		{"TruncatedEntryIDCanBeAppendedAgain", testTruncateReappend},
		{"MissingPointIsNotFoundAndChangesNothing", testTruncateMissingPoint},
		{"MissingChatIsNotFound", testTruncateMissingChat},
		{"InvalidPointIsRejected", testTruncateInvalidPoint},
	}
}

// rewindChat stores six entries e1..e6 with tokens i in and 10*i out. e3 and e4 both carry
// source id s-a (e3 first, and not as its first source id), so a rewind to s-a starts at e3.
func rewindChat(t *testing.T, s Store) {
	t.Helper()
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	es := Entries("e", 6)
	for i, e := range es {
		e.ID = "e" + string(rune('1'+i))
		e.InputTokens, e.OutputTokens = int64(i+1), int64(10*(i+1))
		e.SourceIDs = []string{"src-" + e.ID}
	}
	es[2].SourceIDs = []string{"s-x", "s-a"}
	es[3].SourceIDs = []string{"s-a"}
	mustAppend(t, s, "c1", es...)
}

// rewindTotals are the counters of rewindChat's first n entries.
func rewindTotals(n int64) annals.Totals {
	in := n * (n + 1) / 2
	return annals.Totals{Entries: n, InputTokens: in, OutputTokens: 10 * in}
}

func testTruncateByEntryID(t *testing.T, s Store) {
	rewindChat(t, s)
	res := mustTruncate(t, s, "c1", annals.TruncatePoint{EntryID: "e4"})
	if res.Removed != 3 || res.LastSeq != 3 {
		t.Errorf("TruncateChat(entry e4) = %+v, want removed 3, last seq 3", *res)
	}
	wantTranscript(t, mustEntries(t, s, "c1"), "e1", "e2", "e3")
	wantTotals(t, "after truncation", mustChat(t, s, "c1").Totals, rewindTotals(3))
}

func testTruncateBySourceID(t *testing.T, s Store) {
	rewindChat(t, s)
	res := mustTruncate(t, s, "c1", annals.TruncatePoint{SourceID: "s-a"})
	if res.Removed != 4 || res.LastSeq != 2 {
		t.Errorf("TruncateChat(source s-a) = %+v, want removed 4, last seq 2", *res)
	}
	wantTranscript(t, mustEntries(t, s, "c1"), "e1", "e2")
	wantTotals(t, "after truncation", mustChat(t, s, "c1").Totals, rewindTotals(2))
}

func testTruncateBySeq(t *testing.T, s Store) {
	rewindChat(t, s)
	res := mustTruncate(t, s, "c1", annals.TruncatePoint{Seq: 5})
	if res.Removed != 2 || res.LastSeq != 4 {
		t.Errorf("TruncateChat(seq 5) = %+v, want removed 2, last seq 4", *res)
	}
	wantTranscript(t, mustEntries(t, s, "c1"), "e1", "e2", "e3", "e4")
	wantTotals(t, "after truncation", mustChat(t, s, "c1").Totals, rewindTotals(4))
}

func testTruncateAll(t *testing.T, s Store) {
	rewindChat(t, s)
	res := mustTruncate(t, s, "c1", annals.TruncatePoint{Seq: 1})
	if res.Removed != 6 || res.LastSeq != 0 {
		t.Errorf("TruncateChat(seq 1) = %+v, want removed 6, last seq 0", *res)
	}
	wantTranscript(t, mustEntries(t, s, "c1"))
	wantTotals(t, "after truncating everything", mustChat(t, s, "c1").Totals, annals.Totals{})
	if r := mustAppend(t, s, "c1", TextEntry("fresh", annals.KindUser, "start over")); r.LastSeq != 1 {
		t.Errorf("append after emptying the transcript: last seq %d, want 1", r.LastSeq)
	}
}

func testTruncateThenAppend(t *testing.T, s Store) {
	rewindChat(t, s)
	mustTruncate(t, s, "c1", annals.TruncatePoint{Seq: 4})
	res := mustAppend(t, s, "c1", Entries("n", 2)...)
	if res.Appended != 2 || res.LastSeq != 5 {
		t.Errorf("append after truncation = %+v, want appended 2, last seq 5", *res)
	}
	wantTranscript(t, mustEntries(t, s, "c1"), "e1", "e2", "e3", "n-1", "n-2")
	if c := mustChat(t, s, "c1"); c.Totals.Entries != 5 {
		t.Errorf("Totals.Entries = %d, want 5", c.Totals.Entries)
	}
}

func testTruncateReappend(t *testing.T, s Store) {
	rewindChat(t, s)
	mustTruncate(t, s, "c1", annals.TruncatePoint{EntryID: "e4"})
	// After a rewind the upstream may send the same ids again with new content: they are new.
	res := mustAppend(t, s, "c1",
		TextEntry("e4", annals.KindUser, "rewritten fourth"),
		TextEntry("e5", annals.KindAssistant, "rewritten fifth"),
	)
	if res.Appended != 2 || res.Skipped != 0 || res.LastSeq != 5 {
		t.Errorf("re-append of truncated ids = %+v, want appended 2, skipped 0, last seq 5", *res)
	}
	got := mustEntries(t, s, "c1")
	wantTranscript(t, got, "e1", "e2", "e3", "e4", "e5")
	if len(got) == 5 && got[3].Text != "rewritten fourth" {
		t.Errorf("re-appended e4 text = %q, want %q", got[3].Text, "rewritten fourth")
	}
}

func testTruncateMissingPoint(t *testing.T, s Store) {
	rewindChat(t, s)
	chatBefore := mustChat(t, s, "c1")
	entriesBefore := mustEntries(t, s, "c1")
	for _, p := range []annals.TruncatePoint{{EntryID: "no-such-entry"}, {SourceID: "no-such-source"}, {Seq: 7}, {Seq: 99}} {
		_, err := annals.TruncateChat(t.Context(), s, "c1", p)
		wantCode(t, fmt.Sprintf("TruncateChat at missing point %+v", p), err, annals.ENOTFOUND)
	}
	wantSameEntries(t, "entries after truncations at missing points", mustEntries(t, s, "c1"), entriesBefore)
	wantSameChat(t, "chat after truncations at missing points", mustChat(t, s, "c1"), chatBefore)
}

func testTruncateMissingChat(t *testing.T, s Store) {
	_, err := annals.TruncateChat(t.Context(), s, "absent", annals.TruncatePoint{Seq: 1})
	wantCode(t, "TruncateChat(absent)", err, annals.ENOTFOUND)
}

func testTruncateInvalidPoint(t *testing.T, s Store) {
	rewindChat(t, s)
	for _, p := range []annals.TruncatePoint{{}, {EntryID: "e2", Seq: 2}, {Seq: -1}} {
		_, err := annals.TruncateChat(t.Context(), s, "c1", p)
		wantCode(t, fmt.Sprintf("TruncateChat with invalid point %+v", p), err, annals.EINVALID)
	}
	wantTranscript(t, mustEntries(t, s, "c1"), "e1", "e2", "e3", "e4", "e5", "e6")
}
