package storetest

import (
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// testRunKindNotActivity: a run annals made for the chat (a recap or digest, an embedding) is
// recorded and counted in the chat's totals, with its kind, but it is not the chat's activity:
// it sets neither the chat's status nor its last activity, whatever its times and status; and
// a run keeps the kind it was first recorded with.
func testRunKindNotActivity(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	own := NewRun("r-own", "c1", annals.StatusCompleted, runStart)
	own.EndedAt = ptr(runStart.Add(time.Minute))
	own.InputTokens, own.CostUSD = 10, 0.25
	mustRecordRun(t, s, own)
	before := mustChat(t, s, "c1")

	// Later than everything the chat holds, failed, and then running: none of it is the chat's.
	recap := NewRun("recap-c1-1", "c1", annals.StatusFailed, runStart.Add(time.Hour))
	recap.Kind, recap.Model = annals.RunKindRecap, "gpt-x"
	recap.EndedAt = ptr(runStart.Add(time.Hour + time.Second))
	recap.InputTokens, recap.OutputTokens, recap.CostUSD = 100, 20, 0.5
	got := mustRecordRun(t, s, recap)
	if d := diffRun(got, recap); len(d) > 0 {
		t.Errorf("RecordRun result differs: %q", d)
	}
	embed := NewRun("embed-c1-1", "c1", annals.StatusRunning, runStart.Add(2*time.Hour))
	embed.Kind, embed.InputTokens = annals.RunKindEmbed, 7
	mustRecordRun(t, s, embed)

	c := mustChat(t, s, "c1")
	if c.Status != annals.StatusCompleted {
		t.Errorf("Status after annals' own runs = %q, want the chat's own run's %q", c.Status, annals.StatusCompleted)
	}
	if !c.LastActivity.Equal(before.LastActivity) {
		t.Errorf("LastActivity after annals' own runs = %v, want it unmoved at %v", c.LastActivity, before.LastActivity)
	}
	wantTotals(t, "totals with annals' own runs", c.Totals, annals.Totals{Runs: 3, InputTokens: 117, OutputTokens: 20, CostUSD: 0.75})

	// Recorded again without a kind, the recap run stays a recap run.
	again := *recap
	again.Kind, again.Status = annals.RunKindChat, annals.StatusRunning
	mustRecordRun(t, s, &again)
	runs := mustRuns(t, s, "c1")
	kinds := map[string]annals.RunKind{}
	for _, r := range runs {
		kinds[r.ID] = r.Kind
	}
	if kinds["r-own"] != annals.RunKindChat || kinds["recap-c1-1"] != annals.RunKindRecap || kinds["embed-c1-1"] != annals.RunKindEmbed {
		t.Errorf("stored kinds = %v, want r-own own, recap-c1-1 recap, embed-c1-1 embed", kinds)
	}
	c = mustChat(t, s, "c1")
	if c.Status != annals.StatusCompleted || !c.LastActivity.Equal(before.LastActivity) {
		t.Errorf("after the recap run was recorded again as running: status %q, last activity %v; want %q, %v",
			c.Status, c.LastActivity, annals.StatusCompleted, before.LastActivity)
	}

	// A chat whose only runs are annals' own has no status.
	mustCreateChat(t, s, NewChat("c2", "tenant-a"))
	only := NewRun("recap-c2-1", "c2", annals.StatusCompleted, runStart.Add(time.Hour))
	only.Kind = annals.RunKindRecap
	mustRecordRun(t, s, only)
	if c2 := mustChat(t, s, "c2"); c2.Status != "" || c2.Totals.Runs != 1 {
		t.Errorf("a chat with only a recap run: status %q, runs %d; want no status, 1 run", c2.Status, c2.Totals.Runs)
	}
}

// testRunUnknownKind: a kind outside annals.RunKinds is refused and nothing is recorded.
func testRunUnknownKind(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "tenant-a"))
	r := NewRun("r1", "c1", annals.StatusCompleted, runStart)
	r.Kind = "digest-ish"
	_, err := annals.RecordRun(t.Context(), s, r)
	wantCode(t, "RecordRun with an unknown kind", err, annals.EINVALID)
	if runs := mustRuns(t, s, "c1"); len(runs) != 0 {
		t.Errorf("FindRuns after an invalid kind = %d runs, want none", len(runs))
	}
}
