package storetest

import (
	"strings"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

func runTests() []test {
	return []test{
		{"UpsertsByID", testRunUpsert},
		{"FindRunsReturnsOldestFirst", testRunOrder},
		{"FindRunsByIDReadsOnlyTheChatsNamedRuns", testRunsByID},
		{"ChatStatusIsNewestRunsStatus", testRunStatusNewest},
		{"ChatStatusIsRunningWhileAnyRunIsRunning", testRunStatusRunning},
		{"TotalsSumOverRunsAndEntries", testRunTotals},
		{"MissingChatIsNotFound", testRunMissingChat},
		{"UnknownStatusIsInvalidAndListsAllowedStatuses", testRunUnknownStatus},
		{"RunIDOfAnotherChatConflicts", testRunOtherChat},
		{"AdvancesLastActivity", testRunLastActivity},
		{"AnnalsOwnRunsAreNotActivity", testRunKindNotActivity},
		{"UnknownKindIsInvalid", testRunUnknownKind},
	}
}

// runStart is when the suite's runs start: fixed, millisecond precision, UTC.
var runStart = BaseTime.Add(time.Hour)

func testRunUpsert(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	first := NewRun("r1", "c1", annals.StatusRunning, runStart)
	first.Model = "model-a"
	got := mustRecordRun(t, s, first)
	if d := diffRun(got, first); len(d) > 0 {
		t.Errorf("RecordRun result differs: %q", d)
	}

	// The same run, finished: recorded again by id, it replaces the first record.
	done := NewRun("r1", "c1", annals.StatusCompleted, runStart)
	done.Model = "model-a"
	done.EndedAt = ptr(runStart.Add(90 * time.Second))
	done.InputTokens, done.OutputTokens, done.CostUSD = 100, 50, 0.5
	// The cache's part of the input and the context's size are kept and replaced as the rest.
	done.CacheReadTokens, done.CacheCreationTokens, done.ContextTokens = 60, 30, 95
	got = mustRecordRun(t, s, done)
	if d := diffRun(got, done); len(d) > 0 {
		t.Errorf("second RecordRun result differs: %q", d)
	}

	runs := mustRuns(t, s, "c1")
	if len(runs) != 1 {
		t.Fatalf("FindRuns = %d runs, want 1 (a run recorded twice is one run)", len(runs))
	}
	if d := diffRun(runs[0], done); len(d) > 0 {
		t.Errorf("stored run differs: %q", d)
	}
	c := mustChat(t, s, "c1")
	wantTotals(t, "chat after the upsert", c.Totals, annals.Totals{Runs: 1, InputTokens: 100, OutputTokens: 50, CostUSD: 0.5})
	if c.Status != annals.StatusCompleted {
		t.Errorf("Status = %q, want %q", c.Status, annals.StatusCompleted)
	}
}

func testRunOrder(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	for i, id := range []string{"r-a", "r-b", "r-c"} {
		mustRecordRun(t, s, NewRun(id, "c1", annals.StatusCompleted, runStart.Add(time.Duration(i)*time.Minute)))
	}
	got := mustRuns(t, s, "c1")
	ids := make([]string, len(got))
	for i, r := range got {
		ids[i] = r.ID
	}
	wantIDs(t, "FindRuns order", ids, []string{"r-a", "r-b", "r-c"})
	if runs := mustRuns(t, s, "absent"); len(runs) != 0 {
		t.Errorf("FindRuns(absent) = %d runs, want none", len(runs))
	}
}

// In these status tests each new run starts later and is recorded later than the previous one,
// so "newest" means the same whether a store orders by start time or by recording order.

func testRunStatusNewest(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	steps := []annals.RunStatus{annals.StatusCompleted, annals.StatusFailed, annals.StatusAwaitingInput, annals.StatusCancelled}
	for i, st := range steps {
		mustRecordRun(t, s, NewRun("r"+string(rune('1'+i)), "c1", st, runStart.Add(time.Duration(i)*time.Minute)))
		if got := mustChat(t, s, "c1").Status; got != st {
			t.Errorf("after run %d (%s): chat Status = %q, want the newest run's %q", i+1, st, got, st)
		}
	}
}

func testRunStatusRunning(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	mustRecordRun(t, s, NewRun("r1", "c1", annals.StatusRunning, runStart))
	mustRecordRun(t, s, NewRun("r2", "c1", annals.StatusFailed, runStart.Add(time.Minute)))
	if got := mustChat(t, s, "c1").Status; got != annals.StatusRunning {
		t.Errorf("Status with an older run still running = %q, want %q", got, annals.StatusRunning)
	}
	// FindChats rows derive the same status.
	cs, _ := mustFindChats(t, s, annals.ChatFilter{Owner: tenant("tenant-a")})
	if len(cs) != 1 || cs[0].Status != annals.StatusRunning {
		t.Errorf("FindChats rows = %q with status %v, want c1 running", chatIDs(cs), statuses(cs))
	}

	// Once the running run ends, the newest run (r2, started and recorded after r1's first
	// record) decides.
	end := NewRun("r1", "c1", annals.StatusCompleted, runStart)
	end.EndedAt = ptr(runStart.Add(2 * time.Minute))
	mustRecordRun(t, s, end)
	if got := mustChat(t, s, "c1").Status; got == annals.StatusRunning || got == "" {
		t.Errorf("Status after the only running run completed = %q, want a finished status", got)
	}
	mustRecordRun(t, s, NewRun("r3", "c1", annals.StatusAwaitingInput, runStart.Add(3*time.Minute)))
	if got := mustChat(t, s, "c1").Status; got != annals.StatusAwaitingInput {
		t.Errorf("Status after a newer awaiting run = %q, want %q", got, annals.StatusAwaitingInput)
	}
}

func statuses(cs []*annals.Chat) []annals.RunStatus {
	out := make([]annals.RunStatus, len(cs))
	for i, c := range cs {
		out[i] = c.Status
	}
	return out
}

// testRunTotals pins the token rule: a chat's token totals are the sum of its runs' tokens plus
// the sum of its entries' tokens; cost is the sum of its runs' costs.
func testRunTotals(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	es := Entries("e", 2)
	es[0].InputTokens, es[1].OutputTokens = 7, 3
	mustAppend(t, s, "c1", es...)

	r1 := NewRun("r1", "c1", annals.StatusCompleted, runStart)
	r1.InputTokens, r1.OutputTokens, r1.CostUSD = 100, 10, 0.25
	r2 := NewRun("r2", "c1", annals.StatusCompleted, runStart.Add(time.Minute))
	r2.InputTokens, r2.OutputTokens, r2.CostUSD = 200, 20, 0.5
	mustRecordRun(t, s, r1)
	mustRecordRun(t, s, r2)
	wantTotals(t, "after two runs", mustChat(t, s, "c1").Totals,
		annals.Totals{Runs: 2, Entries: 2, InputTokens: 307, OutputTokens: 33, CostUSD: 0.75})

	// An upsert replaces the run's numbers; it does not add to them.
	r1.InputTokens, r1.OutputTokens, r1.CostUSD = 150, 15, 0.3
	mustRecordRun(t, s, r1)
	wantTotals(t, "after updating r1", mustChat(t, s, "c1").Totals,
		annals.Totals{Runs: 2, Entries: 2, InputTokens: 357, OutputTokens: 38, CostUSD: 0.8})

	// A truncation recomputes the entry part and keeps the run part.
	mustTruncate(t, s, "c1", annals.TruncatePoint{Seq: 2})
	wantTotals(t, "after truncating e-2", mustChat(t, s, "c1").Totals,
		annals.Totals{Runs: 2, Entries: 1, InputTokens: 357, OutputTokens: 35, CostUSD: 0.8})
}

func testRunMissingChat(t *testing.T, s Store) {
	_, err := annals.RecordRun(t.Context(), s, NewRun("r1", "absent", annals.StatusRunning, runStart))
	wantCode(t, "RecordRun for a missing chat", err, annals.ENOTFOUND)
	if runs := mustRuns(t, s, "absent"); len(runs) != 0 {
		t.Errorf("FindRuns(absent) = %d runs, want none", len(runs))
	}
}

func testRunUnknownStatus(t *testing.T, s Store) {
	before := mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	_, err := annals.RecordRun(t.Context(), s, NewRun("r1", "c1", "complete", runStart))
	wantCode(t, "RecordRun with status \"complete\"", err, annals.EINVALID)
	// The message tells the caller what is allowed.
	msg := annals.ErrorMessage(err)
	for _, st := range annals.RunStatuses {
		if !strings.Contains(msg, string(st)) {
			t.Errorf("error message %q does not list the allowed status %q", msg, st)
		}
	}

	neg := NewRun("r1", "c1", annals.StatusCompleted, runStart)
	neg.InputTokens = -1
	_, err = annals.RecordRun(t.Context(), s, neg)
	wantCode(t, "RecordRun with negative tokens", err, annals.EINVALID)

	// The cache's tokens are part of the input: more of them than input is refused.
	over := NewRun("r1", "c1", annals.StatusCompleted, runStart)
	over.InputTokens, over.CacheReadTokens, over.CacheCreationTokens = 100, 80, 30
	_, err = annals.RecordRun(t.Context(), s, over)
	wantCode(t, "RecordRun with more cache tokens than input", err, annals.EINVALID)

	if runs := mustRuns(t, s, "c1"); len(runs) != 0 {
		t.Errorf("FindRuns after invalid runs = %d runs, want none", len(runs))
	}
	wantSameChat(t, "chat after invalid runs", mustChat(t, s, "c1"), before)
}

func testRunOtherChat(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	mustCreateChat(t, s, NewChat("c2", "tenant-a"))
	mustRecordRun(t, s, NewRun("r1", "c1", annals.StatusRunning, runStart))
	_, err := annals.RecordRun(t.Context(), s, NewRun("r1", "c2", annals.StatusCompleted, runStart))
	wantCode(t, "RecordRun of c1's run id under c2", err, annals.ECONFLICT)
	if runs := mustRuns(t, s, "c2"); len(runs) != 0 {
		t.Errorf("c2 has %d runs, want none", len(runs))
	}
	runs := mustRuns(t, s, "c1")
	if len(runs) != 1 || runs[0].Status != annals.StatusRunning {
		t.Errorf("c1's runs after the conflict = %d (first status %v), want 1 still running", len(runs), firstStatus(runs))
	}
}

func firstStatus(rs []*annals.Run) annals.RunStatus {
	if len(rs) == 0 {
		return ""
	}
	return rs[0].Status
}

func testRunLastActivity(t *testing.T, s Store) {
	created := mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	tick()
	// Started an hour ahead, so the activity advances whether the store stamps the write time
	// or the run's own times.
	mustRecordRun(t, s, NewRun("r1", "c1", annals.StatusRunning, time.Now().Add(time.Hour).Truncate(time.Millisecond)))
	if got := mustChat(t, s, "c1").LastActivity; !got.After(created.LastActivity) {
		t.Errorf("LastActivity after RecordRun = %v, want after the creation's %v", got, created.LastActivity)
	}
}
