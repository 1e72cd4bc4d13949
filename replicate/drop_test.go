package replicate

import (
	"context"
	"database/sql"
	"testing"

	"github.com/annals-dev/annals"
)

// corruptOp changes a queued operation's payload in the host's database by hand (a damaged
// outbox): the remote finds it does not chain to its lane and refuses it for good.
func corruptOp(t *testing.T, path, chatID string, laneSeq int64) {
	t.Helper()
	raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	res, err := raw.Exec(`UPDATE replication_outbox SET payload = CAST(replace(CAST(payload AS TEXT), 'entry', 'ENTRY') AS BLOB) WHERE chat_id = ? AND lane_seq = ?`, chatID, laneSeq)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("corrupt op %s/%d: %v (%d rows)", chatID, laneSeq, err, n)
	}
}

// A damaged operation quarantines its lane; retry --drop shows it, drops it, renumbers the
// operations queued after it onto the remote's head, and they flow; the remote then lacks the
// dropped change, which verify reports and repairs from the host's chat.
func TestDropRefusedOperation(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	host, path := newHostAt(t)
	writeChat(t, host, "p", 2)
	writeChat(t, host, "q", 1)
	p := newPusher(host, r.url, r.key)
	mustPush(t, p)
	for _, id := range []string{"p-x", "p-y", "p-z"} {
		appendText(t, host, "p", id, "entry "+id)
	}
	corruptOp(t, path, "p", 4)
	appendText(t, host, "q", "q-more", "entry q-more")
	rep := mustPush(t, p)
	if !contains(rep.Quarantined, "p") || contains(rep.Quarantined, "q") {
		t.Fatalf("push: %+v; want lane p quarantined, q flowing", rep)
	}
	if _, err := p.PlanDrop(ctx, "q"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("PlanDrop of a lane not quarantined: %v, want not_found", err)
	}
	plan, err := p.PlanDrop(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if plan.Op.LaneSeq != 4 || plan.Op.Kind != annals.OpAppend || plan.Later != 2 || plan.RemoteSeq != 3 || plan.Quarantine.Code != annals.ECONFLICT {
		t.Fatalf("plan: %+v (op %+v); want op 4, an append, 2 later, the remote at 3", plan, plan.Op)
	}
	if pendingOps(t, host) != 3 {
		t.Fatal("planning a drop changed the queue")
	}
	res, err := p.Drop(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Push.Pushed != 2 || len(res.Push.Quarantined) != 0 {
		t.Fatalf("the push after the drop: %+v; want the 2 later operations applied", res.Push)
	}
	if q, _ := host.Quarantined(ctx); len(q) != 0 {
		t.Fatalf("quarantines after the drop: %+v", q)
	}
	es, _ := r.db.FindEntries(ctx, annals.EntryFilter{ChatID: "p"})
	if len(es) != 4 || es[2].ID != "p-y" {
		t.Fatalf("the remote's chat p: %d entries; want 4, without the dropped p-x", len(es))
	}
	v, err := p.Verify(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if d := differences(t, v)["p"]; len(v.Differences) != 1 || d == nil || !d.Repairable || d.Remote.Entries != 4 || d.Host.Entries != 5 {
		t.Fatalf("verify after the drop: %+v; want lane p short of one entry", v.Differences)
	}
	if v, err = p.Verify(ctx, true); err != nil || len(v.Repaired) != 1 {
		t.Fatalf("verify: %+v, %v; want lane p repaired", v, err)
	}
	sameTranscript(t, host, r.db, "p")
	mustVerifyZero(t, p)
}
