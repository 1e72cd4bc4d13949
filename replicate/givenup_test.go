package replicate

import (
	"context"
	"database/sql"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

// corruptRunOp changes a queued run operation's status by hand (a damaged outbox): the payload
// still reads, and the remote refuses it for good (it does not chain to the lane).
func corruptRunOp(t *testing.T, path, chatID string, laneSeq int64, status annals.RunStatus) {
	t.Helper()
	raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	res, err := raw.Exec(`UPDATE replication_outbox SET payload = CAST(replace(CAST(payload AS TEXT), '"' || ? || '"', '"failed"') AS BLOB)
		WHERE chat_id = ? AND lane_seq = ? AND kind = 'run'`, string(status), chatID, laneSeq)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("corrupt run op %s/%d: %v (%d rows)", chatID, laneSeq, err, n)
	}
}

func recordRun(t *testing.T, host annals.Store, id, chatID string, status annals.RunStatus) {
	t.Helper()
	if _, err := annals.RecordRun(context.Background(), host, storetest.NewRun(id, chatID, status, storetest.BaseTime)); err != nil {
		t.Fatal(err)
	}
}

// A run given up by retry --drop usually comes again (recorded running, then completed): the
// later operation reaches the remote, and verify must take the remote's run as it should be,
// never delete it in a repair — whether the run came again after the drop or was queued behind
// the refused operation before it. A run given up and never recorded again stays withheld from a
// repair; one whose earlier operation the remote applied is not a difference for that alone.
func TestGivenUpRunRecordedAgainStaysOnTheRemote(t *testing.T) {
	ctx := context.Background()
	r := newFileRemote(t)
	host, path := newHostAt(t)
	p := newPusher(host, r.url, r.key)
	for _, id := range []string{"after", "behind", "kept", "earlier"} {
		writeChat(t, host, id, 1) // lane seq 1 and 2
	}
	recordRun(t, host, "earlier-run", "earlier", annals.StatusRunning) // lane seq 3, applied
	mustPush(t, p)
	recordRun(t, host, "earlier-run", "earlier", annals.StatusCompleted) // lane seq 4, given up
	corruptRunOp(t, path, "earlier", 4, annals.StatusCompleted)
	for _, id := range []string{"after", "behind", "kept"} {
		recordRun(t, host, id+"-run", id, annals.StatusRunning) // lane seq 3
		corruptRunOp(t, path, id, 3, annals.StatusRunning)
	}
	recordRun(t, host, "behind-run", "behind", annals.StatusCompleted) // queued behind the refused one
	for _, id := range []string{"after", "behind", "kept", "earlier"} {
		dropFirstRefused(t, p, id)
	}
	recordRun(t, host, "after-run", "after", annals.StatusCompleted) // recorded again after the drop
	mustPush(t, p)

	v := mustVerifyZero(t, p)
	if len(v.GivenUp) != 2 || v.GivenUp[0].ChatID != "earlier" || v.GivenUp[1].ChatID != "kept" || v.GivenUp[1].Withheld == nil || v.GivenUp[1].Withheld.Runs != 1 {
		t.Fatalf("given up: %+v; want lanes earlier and kept, their runs withheld", v.GivenUp)
	}
	st, err := ReadStatus(ctx, host, "")
	if err != nil || len(st.GivenUp) != 2 || st.GivenUp[0].ChatID != "earlier" || st.GivenUp[0].RunID != "earlier-run" || st.GivenUp[1].ChatID != "kept" {
		t.Fatalf("status: %+v, %v; want the marks of lanes earlier and kept", st, err)
	}
	if _, _, givenUp, _, err := p.ReplicationGauges(ctx); err != nil || givenUp != 2 {
		t.Fatalf("the given-up gauge = %d, %v; want 2", givenUp, err)
	}
	deleteRemoteChat(t, r.path, "kept") // a repair of lane kept must still leave its run out
	if v, err := p.Verify(ctx, true); err != nil || len(v.Differences) != 0 || len(v.Repaired) != 1 || v.Repaired[0].ChatID != "kept" {
		t.Fatalf("verify with repair: %+v, %v; want only lane kept repaired", v, err)
	}
	for id, want := range map[string]int64{"after": 1, "behind": 1, "kept": 0, "earlier": 1} {
		c, err := r.db.FindChatByID(ctx, id)
		if err != nil || c.Totals.Runs != want {
			t.Fatalf("the remote's chat %s: %+v, %v; want %d runs", id, c, err, want)
		}
	}
	runs, err := r.db.FindRuns(ctx, "after")
	if err != nil || len(runs) != 1 || runs[0].Status != annals.StatusCompleted {
		t.Fatalf("the remote's runs of chat after: %+v, %v; want the run, completed", runs, err)
	}
	mustVerifyZero(t, p)
}

// A lane with a given-up run is compared by the ids of its rows, not their counts: a remote
// that holds the given-up run (an earlier operation of it was applied) and lost another run has
// as many runs as the host less the given-up one, and is not in sync; a repair sends the lost run
// and still leaves the given-up one out.
func TestVerifyComparesGivenUpRunsByIdentity(t *testing.T) {
	ctx := context.Background()
	r := newFileRemote(t)
	host, path := newHostAt(t)
	p := newPusher(host, r.url, r.key)
	writeChat(t, host, "w", 1)                               // lane seq 1 and 2
	recordRun(t, host, "w-given", "w", annals.StatusRunning) // lane seq 3, applied
	recordRun(t, host, "w-other", "w", annals.StatusRunning) // lane seq 4, applied
	mustPush(t, p)
	recordRun(t, host, "w-given", "w", annals.StatusCompleted) // lane seq 5, given up
	corruptRunOp(t, path, "w", 5, annals.StatusCompleted)
	dropFirstRefused(t, p, "w")
	mustVerifyZero(t, p)

	deleteRemoteRun(t, r.path, "w", "w-other")
	v, err := p.Verify(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if d := differences(t, v)["w"]; d == nil || !d.Repairable {
		t.Fatalf("verify after the remote lost run w-other: %+v; want lane w repairable (the remote holds the given-up run in its place)", v.Differences)
	}
	if v, err = p.Verify(ctx, true); err != nil || len(v.Repaired) != 1 || len(v.Differences) != 0 {
		t.Fatalf("verify with repair: %+v, %v; want lane w repaired", v, err)
	}
	runs, err := r.db.FindRuns(ctx, "w")
	if err != nil || len(runs) != 1 || runs[0].ID != "w-other" {
		t.Fatalf("the remote's runs of chat w after the repair: %+v, %v; want w-other only (w-given withheld)", runs, err)
	}
	mustVerifyZero(t, p)
}

// deleteRemoteRun deletes a run by hand in a remote's database file (a partial restore), its
// chat's counter with it.
func deleteRemoteRun(t *testing.T, path, chatID, runID string) {
	t.Helper()
	raw, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`DELETE FROM runs WHERE id = ? AND chat_pk = (SELECT pk FROM chats WHERE id = ?)`, runID, chatID); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE chats SET run_count = run_count - 1 WHERE id = ?`, chatID); err != nil {
		t.Fatal(err)
	}
}
